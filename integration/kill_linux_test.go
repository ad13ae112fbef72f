package integration

import "syscall"

// killEscaped ends a fixture process that no containment could catch.
func killEscaped(pid int) { syscall.Kill(pid, syscall.SIGKILL) }
