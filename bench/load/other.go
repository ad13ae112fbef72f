//go:build !linux

// Command load measures benchsup's supervisor at scale; it reads the
// supervisor's memory and CPU time from /proc, so it needs Linux and says
// so elsewhere.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	fmt.Fprintf(os.Stderr, "load: reads the supervisor's peak RSS and CPU time from /proc (Linux); this is %s\n", runtime.GOOS)
	os.Exit(1)
}
