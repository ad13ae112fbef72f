//go:build unix

package main

import "syscall"

// nonblockFlag opens a FIFO for writing without waiting for a reader.
const nonblockFlag = syscall.O_NONBLOCK

// nofollowFlag refuses a symbolic link at the last element of a path
// (planted after it was checked).
const nofollowFlag = syscall.O_NOFOLLOW
