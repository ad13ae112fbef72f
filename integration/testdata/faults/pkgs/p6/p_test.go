// Package p6 is one of ten packages integration/faults_linux_test.go runs
// at once under a small descriptor limit.
package p6

import "testing"

func TestOK(t *testing.T) {}
