//go:build !linux

package supervisor

import "syscall"

// stopSignal is none: sandbox names signals on Linux only.
const stopSignal syscall.Signal = 0
