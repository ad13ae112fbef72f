//go:build linux

package host

import (
	"fmt"
	"os"
	"strconv"
)

// sysCPU is where Linux describes its CPUs; a variable so tests can point
// it at a fixture tree.
var sysCPU = "/sys/devices/system/cpu"

// OnlineCPUs lists the CPUs the kernel has online.
func OnlineCPUs() ([]int, error) {
	return readCPUList(sysCPU + "/online")
}

// Siblings lists the logical CPUs that share cpu's core (SMT siblings,
// cpu itself included): load on a sibling slows a measurement while
// leaving the measured CPU's own busy share clean.
func Siblings(cpu int) ([]int, error) {
	if cpu < 0 {
		return nil, fmt.Errorf("%w: CPU %d", ErrCPUList, cpu)
	}
	return readCPUList(sysCPU + "/cpu" + strconv.Itoa(cpu) + "/topology/thread_siblings_list")
}

func readCPUList(path string) ([]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("CPU topology: %w", err)
	}
	cpus, err := ParseCPUList(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cpus, nil
}
