//go:build !linux

package integration

// killEscaped does nothing: the scripts run on Linux only (TestScripts
// skips elsewhere).
func killEscaped(pid int) {}
