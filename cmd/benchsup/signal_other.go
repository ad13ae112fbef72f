//go:build !linux

package main

// ofThisRun cannot place a process without /proc: every signal interrupts.
func ofThisRun(pid int) (string, bool) { return "", false }
