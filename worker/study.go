package worker

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// StudyEnv names the ablations of the agreement study (go run
// ./bench/agreement -ablate) a child runs with: a comma list the study
// passes with --env-set. They undo one difference between a benchsup child
// and go test at a time, to find which one moves a result; none is a user
// setting, and a child without the variable (every ordinary run) runs as
// documented in docs/design.md#sampling.
//
//	ramp       before the timed samples, the leaf runs as go test runs it
//	           to the sample time (testing's probe and predicted Ns), its
//	           results discarded: the timed run of the calibrated N then
//	           follows a ramp, as go test's last run does
//	nocapture  a top-level leaf's timed run prints to the child's stdout
//	           directly: no pipe, no goroutine reading it (its result is
//	           read from the B, exactly, as usual)
const StudyEnv = "BENCHSUP_WORKER_STUDY"

// studyOn reports whether the ablation name is asked for.
func studyOn(name string) bool {
	return slices.Contains(strings.Split(os.Getenv(StudyEnv), ","), name)
}

// studyRamp runs, with the ramp ablation, the leaf name of b as go test
// does (-test.benchtime of the sample time: testing's probe, then its
// predicted Ns up to the last run), its results discarded, before the timed
// samples of the calibrated N.
func (w *session) studyRamp(b testing.InternalBenchmark, name string, sample time.Duration) error {
	if !studyOn("ramp") {
		return nil
	}
	w.rampTo = sample.String()
	defer func() { w.rampTo = "" }()
	_, err := w.runBenchmark(b, exactPattern(name), -1, 1, nil)
	return err
}

// studyNoCapture runs, with the nocapture ablation, a top-level leaf's
// timed run without the stdout pipe and its reader (testing prints to the
// child's stdout), its result the exact one its wrapper read; it reports
// whether it ran.
func (w *session) studyNoCapture(leaf testing.InternalBenchmark, out *benchOutput) bool {
	if w.req.Mode != protocol.ModeBenchmark || w.warm || !studyOn("nocapture") {
		return false
	}
	testing.RunBenchmarks(matchString, []testing.InternalBenchmark{leaf})
	out.results[out.top] = slices.Clone(out.exact)
	if out.onResult != nil {
		for range out.exact {
			out.onResult(out.top) // the interference watch's edge
		}
	}
	return true
}
