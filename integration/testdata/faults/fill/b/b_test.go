package b

import "testing"

// TestAfter runs after package a filled the disk.
func TestAfter(t *testing.T) {}
