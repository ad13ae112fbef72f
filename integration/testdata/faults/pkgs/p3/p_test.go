// Package p3 is one of ten packages integration/faults_linux_test.go runs
// at once under a small descriptor limit.
package p3

import "testing"

func TestOK(t *testing.T) {}
