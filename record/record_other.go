//go:build !linux

package record

// mapShared has no shared region to map: benchsup's delivery is Linux's.
func mapShared() (*region, string) {
	return nil, "no supervisor: spans are delivered to benchsup on Linux only"
}
