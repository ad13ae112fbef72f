// Package p2 is one of ten packages integration/faults_linux_test.go runs
// at once under a small descriptor limit.
package p2

import "testing"

func TestOK(t *testing.T) {}
