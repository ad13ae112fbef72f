package worker

import "runtime/debug"

// linkedVersion is the benchsup module version the build recorded. The
// supervisor's injected copy of this package replaces this file.
func linkedVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range append([]*debug.Module{&info.Main}, info.Deps...) {
		if m.Path != modulePath {
			continue
		}
		if m.Replace != nil {
			return m.Version + " => " + m.Replace.Path
		}
		return m.Version
	}
	return "unknown"
}
