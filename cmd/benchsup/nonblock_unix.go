//go:build unix

package main

import "syscall"

// nonblockFlag opens a FIFO for writing without waiting for a reader.
const nonblockFlag = syscall.O_NONBLOCK
