//go:build !linux

// Command windows measures the cost of a workload window's edge reads; it
// needs Linux (cgroups, fadvise, the sources it measures) and says so
// elsewhere.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	fmt.Fprintf(os.Stderr, "windows: measures Linux sources and cgroups; this is %s\n", runtime.GOOS)
	os.Exit(1)
}
