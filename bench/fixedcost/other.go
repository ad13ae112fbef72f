//go:build !linux

// Command fixedcost measures what benchsup costs beyond the benchmark it
// runs; it counts the CPU of every descendant as their child subreaper,
// so it needs Linux, and benchsup runs children on Linux only.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	fmt.Fprintf(os.Stderr, "fixedcost: counts every descendant's CPU as their child subreaper (Linux); this is %s\n", runtime.GOOS)
	os.Exit(1)
}
