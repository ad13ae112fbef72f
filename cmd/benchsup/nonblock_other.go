//go:build !unix

package main

// nonblockFlag is zero where FIFOs are not files.
const nonblockFlag = 0

// nofollowFlag is zero where the open has no such flag.
const nofollowFlag = 0
