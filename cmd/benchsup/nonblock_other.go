//go:build !unix

package main

// nonblockFlag is zero where FIFOs are not files.
const nonblockFlag = 0
