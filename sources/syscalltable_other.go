//go:build !linux || !(amd64 || arm64)

package sources

// syscallNumbers is nil where this build carries no syscall table: syscall
// names are then checked for spelling only, and an unknown one surfaces as an
// absence when its tracepoint is looked up.
var syscallNumbers map[string]int
