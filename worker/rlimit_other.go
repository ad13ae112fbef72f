//go:build !linux

package worker

// processLimits watches nothing here: the limits are watched on Linux
// only (docs/design.md#containment).
func processLimits() *limitWatch { return nil }
