//go:build linux

package treecost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Sample is one command's wall time and the CPU (user plus system) of its
// process tree.
type Sample struct{ Wall, CPU time.Duration }

// Setup readies a study: this process becomes the child subreaper, dir
// (its work directory) exists, and the benchsup binary it measures is
// prebuilt or built into dir (BuildBenchsup).
func Setup(dir, prebuilt string) (bin string, err error) {
	if err := BecomeSubreaper(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return BuildBenchsup(dir, prebuilt)
}

// BecomeSubreaper makes this process the child subreaper.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("becoming the child subreaper (so that CPU counts every descendant): %w", err)
	}
	return nil
}

// Run runs cmd to its end and waits for every descendant it left (at most
// 30 s); a failing command is an error carrying the output Run captured:
// each of cmd's streams the caller left unset.
func Run(cmd *exec.Cmd) (Sample, error) {
	before, err := childrenCPU()
	if err != nil {
		return Sample{}, err
	}
	var captured strings.Builder
	if cmd.Stdout == nil {
		cmd.Stdout = &captured
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &captured
	}
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return Sample{}, fmt.Errorf("%s in %s: %v\n%s", strings.Join(cmd.Args, " "), cmd.Dir, err, captured.String())
	}
	if err := reapOrphans(30 * time.Second); err != nil {
		return Sample{}, err
	}
	after, err := childrenCPU()
	if err != nil {
		return Sample{}, err
	}
	return Sample{wall, after - before}, nil
}

// BuildBenchsup returns prebuilt, or builds ./cmd/benchsup of the module
// in whose tree this process runs into dir and returns that binary.
func BuildBenchsup(dir, prebuilt string) (string, error) {
	if prebuilt != "" {
		return prebuilt, nil
	}
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the benchsup module (run this from its tree): %w", err)
	}
	bin := filepath.Join(dir, "benchsup")
	build := exec.Command("go", "build", "-o", bin, "./cmd/benchsup")
	build.Dir = strings.TrimSpace(string(root))
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building benchsup: %v: %s", err, b)
	}
	return bin, nil
}

// reapOrphans waits for the descendants reparented to this process until
// none is left, or fails after limit.
func reapOrphans(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return nil
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			return fmt.Errorf("waiting for orphaned descendants: %w", err)
		case pid == 0 && time.Now().After(deadline):
			return fmt.Errorf("a descendant of the command was still running %v after it exited", limit)
		case pid == 0:
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// childrenCPU is the user plus system time of every descendant reaped so
// far, by this process or by the descendants themselves.
func childrenCPU() (time.Duration, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// Median is the median of d (the mean of the middle two for an even
// count); d must not be empty.
func Median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	n := len(s)
	return (s[n/2-1] + s[n/2]) / 2
}

// Spread is "0.410 s [0.390–0.470]": the median and the range.
func Spread(d []time.Duration) string {
	return fmt.Sprintf("%.3f s [%.3f–%.3f]", Median(d).Seconds(), slices.Min(d).Seconds(), slices.Max(d).Seconds())
}
