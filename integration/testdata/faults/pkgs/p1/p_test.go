// Package p1 is one of ten packages integration/faults_linux_test.go runs
// at once under a small descriptor limit.
package p1

import "testing"

func TestOK(t *testing.T) {}
