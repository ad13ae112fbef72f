// Package p7 is one of ten packages integration/faults_linux_test.go runs
// at once under a small descriptor limit.
package p7

import "testing"

func TestOK(t *testing.T) {}
