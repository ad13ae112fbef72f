package supervisor

import "syscall"

// stopSignal is SIGSTOP, which not every system's syscall package names.
const stopSignal = syscall.SIGSTOP
