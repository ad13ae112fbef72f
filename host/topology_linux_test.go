package host

import (
	"errors"
	"reflect"
	"testing"
)

func TestTopologyFixture(t *testing.T) {
	saved := sysCPU
	t.Cleanup(func() { sysCPU = saved })
	sysCPU = "testdata/sys"
	online, err := OnlineCPUs()
	if err != nil || !reflect.DeepEqual(online, []int{0, 1, 2, 3}) {
		t.Errorf("OnlineCPUs = %v, %v", online, err)
	}
	sib, err := Siblings(1)
	if err != nil || !reflect.DeepEqual(sib, []int{1, 3}) {
		t.Errorf("Siblings(1) = %v, %v", sib, err)
	}
	if _, err := Siblings(2); err == nil {
		t.Error("Siblings of a CPU without topology: no error")
	}
	if _, err := Siblings(-1); !errors.Is(err, ErrCPUList) {
		t.Errorf("Siblings(-1): %v", err)
	}
}
