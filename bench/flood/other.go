//go:build !linux

// Command flood measures how benchsup carries a flood of short lines on a
// child's stdout beside go test; it counts every descendant's CPU as their
// child subreaper, so it needs Linux, and benchsup runs children on Linux
// only.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	fmt.Fprintf(os.Stderr, "flood: counts every descendant's CPU as their child subreaper (Linux); this is %s\n", runtime.GOOS)
	os.Exit(1)
}
