//go:build !linux

package report

import "os"

// isTerminal reports false: benchsup's supervisor runs on Linux only, and
// on other systems live displays stay off rather than guess at a terminal
// (a port adds its own live_GOOS.go).
func isTerminal(*os.File) bool { return false }

// terminalWidth reports no width; see isTerminal.
func terminalWidth(*os.File) (int, bool) { return 0, false }

// terminalSize reports no size; see isTerminal.
func terminalSize(*os.File) (int, int, bool) { return 0, 0, false }
