//go:build !linux

package integration

import (
	"errors"
	"testing"
	"time"
)

// Off Linux, benchsup runs no children (sandbox says so itself), so the
// end-to-end tests of faults, signals and process lifetimes have nothing to
// run.

// killEscaped does nothing: the scripts run on Linux only (testScripts
// skips elsewhere).
func killEscaped(pid int) {}

func testFaults(t *testing.T)                                             { skipNotLinux(t) }
func testInterruptExitStatus(t *testing.T)                                { skipNotLinux(t) }
func testSupervisorKilled(t *testing.T, limit time.Duration)              { skipNotLinux(t) }
func testStaleRemoved(t *testing.T)                                       { skipNotLinux(t) }
func testSupervisorKilledWhileBuilding(t *testing.T, limit time.Duration) { skipNotLinux(t) }

func skipNotLinux(t *testing.T) {
	t.Skip("fresh-process children need Linux; benchsup reports that itself, see sandbox")
}

// lockDir takes no lock: the tests that use the directory run on Linux
// only.
func lockDir(dir string) (release func(), locked bool) { return func() {}, true }

// laneCPUs and pinThread confine a timing script to one CPU, which needs
// Linux's affinity calls; the scripts run on Linux only.
func laneCPUs() ([]int, error) { return nil, errors.New("lanes need Linux") }

func pinThread(cpu int) (unpin func(), err error) { return nil, errors.New("lanes need Linux") }

// goSiblings would count the go command's other children; see the Linux file.
func goSiblings() (n int, ok bool, err error) { return 0, false, nil }
