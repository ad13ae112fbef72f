package main

import "runtime/debug"

// version is the module version this binary was built from, as the Go
// toolchain recorded it ("(devel)" for a build inside the repository).
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return "unknown"
}
