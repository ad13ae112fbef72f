package sandbox

import (
	"os"
	"testing"
)

// ParentPID reads /proc/<pid>/stat, whose command name may hold spaces
// and parentheses: the fields are counted from the last ')'.
func TestParentPID(t *testing.T) {
	if ppid, ok := ParentPID(os.Getpid()); !ok || ppid != os.Getppid() {
		t.Errorf("ParentPID(self) = %d, %v; want %d", ppid, ok, os.Getppid())
	}
	shell, grandchild := family(t) // sh leading its group, its background sleep
	if ppid, ok := ParentPID(grandchild); !ok || ppid != shell.Process.Pid {
		t.Errorf("ParentPID(the shell's sleep) = %d, %v; want the shell, %d", ppid, ok, shell.Process.Pid)
	}
	if _, ok := ParentPID(1 << 30); ok {
		t.Error("ParentPID of a pid past pid_max: want false")
	}
}
