//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/sandbox"
)

// ofThisRun reports whether pid is a process of this run (a descendant of
// this process, or one that carries the run's sandbox.EnvRun, as a
// descendant that left for init does), and its name. This process itself
// and a process gone since are not: a user's kill(1) has usually exited by
// the time its signal is read.
func ofThisRun(pid int) (string, bool) {
	self := os.Getpid()
	if pid <= 0 || pid == self {
		return "", false
	}
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return "", false
	}
	name := strings.TrimSpace(string(comm))
	if sandbox.DescendantOf(pid, self) {
		return name, true
	}
	if run := os.Getenv(sandbox.EnvRun); run != "" {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), []byte("\x00"+sandbox.EnvRun+"="+run+"\x00")) {
			return name, true
		}
	}
	return "", false
}
