package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/rundoc"
)

// hostclaimRun is a short measuring run of the hostclaim fixture: its
// measuring interval lasts about a second.
var hostclaimRun = []string{"--bench", "--repetitions=2", "--samples=3", "--sample-time=20ms", "--metrics=none", "./..."}

// hostclaimArgs is benchsup's command line: run, extra, hostclaimRun.
func hostclaimArgs(extra ...string) []string {
	return append(append([]string{"run"}, extra...), hostclaimRun...)
}

// fixtureModule copies the fixture module testdata/name into a directory
// of its own, so concurrent runs share no build output.
func fixtureModule(t *testing.T, name string) string {
	t.Helper()
	mod := fixtureDir(t)
	if err := os.CopyFS(mod, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return mod
}

// readEvents reads an event stream file.
func readEvents(t *testing.T, path string) []rundoc.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := parseEvents(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return evs
}

// parseEvents decodes an --events stream, one event a line.
func parseEvents(data []byte) ([]rundoc.Event, error) {
	var evs []rundoc.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e rundoc.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return evs, fmt.Errorf("line %d: %v in %q", len(evs)+1, err, sc.Text())
		}
		evs = append(evs, e)
	}
	return evs, sc.Err()
}

func eventTime(t *testing.T, e rundoc.Event) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, e.Time)
	if err != nil {
		t.Fatalf("event %d: time %q: %v", e.Seq, e.Time, err)
	}
	return at
}

// spin starts a process that keeps one CPU busy until the test ends.
func spin(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopSpin(cmd) })
	return cmd
}

func stopSpin(cmd *exec.Cmd) {
	if cmd.ProcessState == nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// testHostClaimQuiescence: under load the preflight fails the run after
// its timeout, in one line that gives the numbers, having measured
// nothing; without our load the same run passes and records the
// preflight. The two run side by side, each in a lane (lanes_test.go):
// benchsup and the load confined to one CPU, which the preflight then
// watches alone.
func testHostClaimQuiescence(t *testing.T) {
	endToEnd(t)
	if runtime.GOOS != "linux" {
		t.Skip("the quiescence preflight reads /proc/stat, and runs need Linux")
	}
	t.Run("under load", func(t *testing.T) {
		cpu := inLane(t)
		mod := fixtureModule(t, "hostclaim")
		events := filepath.Join(t.TempDir(), "events.ndjson")
		jsonOut := filepath.Join(t.TempDir(), "run.json")
		cmd := exec.Command(filepath.Join(binDir, "benchsup"), hostclaimArgs("--quiescence", "--quiescence-timeout=2s", "--events="+events, "--json="+jsonOut)...)
		cmd.Dir = mod
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		defer cmd.Process.Kill()
		// The load starts once the build is done: the preflight follows the
		// builds, and a build under two busy loops would only be slow.
		deadline := time.Now().Add(90 * time.Second) // a cold build of the fixture
		for {
			if data, _ := os.ReadFile(events); bytes.Contains(data, []byte(`"kind":"build"`)) {
				break
			}
			select {
			case err := <-exited:
				t.Fatalf("benchsup ended (%v) before its build event; stderr:\n%s", err, stderr.String())
			case <-time.After(5 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("no build event in 90s; stderr:\n%s", stderr.String())
			}
		}
		load := spin(t) // the lane's one CPU saturated: over the per-CPU limit
		err := <-exited
		ended := time.Now()
		stopSpin(load)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("benchsup under load ended with %v, want exit status 1; stderr:\n%s", err, stderr.String())
		}
		var failure []string
		waited := false
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			switch {
			case strings.Contains(line, "host not quiet"):
				failure = append(failure, line)
			case strings.HasPrefix(line, "benchsup: waiting for a quiet host: ") && strings.Contains(line, "(limits 20%, 50%)"):
				waited = true
			}
		}
		if len(failure) != 1 || !strings.HasPrefix(failure[0], "benchsup: host not quiet after 2") ||
			!strings.Contains(failure[0], fmt.Sprintf("%% average (limit 20%%), busiest cpu%d ", cpu)) || !strings.HasSuffix(failure[0], "(limit 50%); not measuring under known load") {
			t.Errorf("want one line saying the host was not quiet, with the numbers; stderr:\n%s", stderr.String())
		}
		if !waited {
			t.Errorf("the run did not say it waited for a quiet host; stderr:\n%s", stderr.String())
		}
		if _, err := os.Stat(jsonOut); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("--json written by a run that failed its preflight (stat: %v)", err)
		}
		var built time.Time
		for _, e := range readEvents(t, events) {
			switch e.Kind {
			case rundoc.EventProcessStart, rundoc.EventResult:
				t.Errorf("a run that failed its preflight started or reported something: %+v", e)
			case rundoc.EventBuild:
				built = eventTime(t, e)
			case rundoc.EventDone:
				if e.Error == nil || !strings.Contains(*e.Error, "host not quiet") {
					t.Errorf("done event %+v: want the preflight's error", e)
				}
			}
		}
		// The timeout, plus what a shared host adds to starting and ending.
		if took := ended.Sub(built); took < 2*time.Second || took > 8*time.Second {
			t.Errorf("the preflight failed %v after the build, want about its 2s timeout", took)
		}

	})
	t.Run("without our load", func(t *testing.T) {
		cpu := inLane(t)
		mod := fixtureModule(t, "hostclaim")
		// Without our load. The host is shared (the suite runs packages and
		// scripts in parallel): a timeout here is someone else's load, which
		// is a skip, not a failure.
		jsonOut := filepath.Join(t.TempDir(), "quiet.json")
		cmd := exec.Command(filepath.Join(binDir, "benchsup"), hostclaimArgs("--quiescence", "--quiescence-timeout=10s", "--json="+jsonOut)...)
		cmd.Dir = mod
		out, err := cmd.CombinedOutput()
		if err != nil {
			if bytes.Contains(out, []byte("host not quiet")) {
				t.Skipf("the host stayed busy without the test's load (other tests run beside this one): %s", lastLine(out))
			}
			t.Fatalf("benchsup --quiescence on a quiet host: %v\n%s", err, out)
		}
		doc := readJSON[rundoc.Document](t, jsonOut)
		q := doc.Meta.Quiescence
		if q == nil || q.StableAverage == nil || q.StableBusiest == nil || q.MaxAverage != 0.20 || q.MaxCore != 0.50 || q.TimeoutNs != int64(10*time.Second) || q.WaitedNs < q.StableNs {
			t.Errorf("meta.quiescence = %+v: want the limits, the timeout, and a stable interval that opened the gate", q)
		} else if *q.StableAverage > q.MaxAverage || *q.StableBusiest > q.MaxCore {
			t.Errorf("meta.quiescence = %+v: the stable interval's shares exceed the limits", q)
		}
		if sib, err := host.Siblings(cpu); err == nil && q != nil && q.CPUs != host.FormatCPUList(sib) {
			t.Errorf("meta.quiescence watched cpus %q, want the lane's cpu%d and its SMT siblings (%s) alone", q.CPUs, cpu, host.FormatCPUList(sib))
		}
		if doc.Meta.Claim != nil {
			t.Errorf("meta.claim = %+v without --claim", doc.Meta.Claim)
		}
	})
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// testHostClaimSerializes: two runs that take the host claim in one
// directory, started together, measure one after the other: the later one
// waits (before its build), says so, and records its wait.
func testHostClaimSerializes(t *testing.T) {
	endToEnd(t)
	if runtime.GOOS != "linux" {
		t.Skip("the host claim (flock on per-CPU files) is implemented for Linux only, and runs need Linux")
	}
	claimDir := t.TempDir()
	type result struct {
		events, json string
		stderr       bytes.Buffer
		err          error
	}
	runs := make([]*result, 2)
	var wg sync.WaitGroup
	for i := range runs {
		r := &result{events: filepath.Join(t.TempDir(), "events.ndjson"), json: filepath.Join(t.TempDir(), "run.json")}
		runs[i] = r
		cmd := exec.Command(filepath.Join(binDir, "benchsup"), hostclaimArgs("--claim", "--claim-dir="+claimDir, "--events="+r.events, "--json="+r.json)...)
		cmd.Dir = fixtureModule(t, "hostclaim")
		cmd.Stderr = &r.stderr
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.err = cmd.Run()
		}()
	}
	wg.Wait()

	type interval struct{ built, first, last time.Time }
	spans := make([]interval, 2)
	waiter := -1
	for i, r := range runs {
		if r.err != nil {
			t.Fatalf("run %d: %v\n%s", i, r.err, r.stderr.String())
		}
		for _, e := range readEvents(t, r.events) {
			at := eventTime(t, e)
			switch e.Kind {
			case rundoc.EventBuild:
				if spans[i].built.IsZero() {
					spans[i].built = at
				}
			case rundoc.EventProcessStart:
				if spans[i].first.IsZero() {
					spans[i].first = at
				}
			case rundoc.EventProcessEnd:
				spans[i].last = at
			}
		}
		if spans[i].first.IsZero() || spans[i].last.Before(spans[i].first) {
			t.Fatalf("run %d measured nothing: %+v", i, spans[i])
		}
		doc := readJSON[rundoc.Document](t, r.json)
		c := doc.Meta.Claim
		if c == nil || c.Dir != claimDir || !c.MachineWide {
			t.Fatalf("run %d: meta.claim = %+v, want a machine-wide claim in %s", i, c, claimDir)
		}
		if strings.Contains(r.stderr.String(), "benchsup: waiting for the host claim: cpu") {
			if waiter >= 0 {
				t.Errorf("both runs say they waited for the claim")
			}
			waiter = i
			if c.WaitedNs <= 0 || len(c.WaitedFor) == 0 {
				t.Errorf("run %d waited but meta.claim = %+v", i, c)
			}
		} else if c.WaitedNs != 0 {
			t.Errorf("run %d did not say it waited but meta.claim.waitedNs = %d", i, c.WaitedNs)
		}
	}
	if waiter < 0 {
		t.Errorf("neither run says it waited for the host claim; stderr:\n%s\n---\n%s", runs[0].stderr.String(), runs[1].stderr.String())
	}
	a, b := spans[0], spans[1]
	if !a.last.Before(b.first) && !b.last.Before(a.first) {
		t.Errorf("the two runs measured at once: %v..%v and %v..%v", a.first, a.last, b.first, b.last)
	}
	// The claim comes before the build: a waiting run compiles nothing
	// while the other measures.
	if waiter >= 0 && !spans[1-waiter].last.Before(spans[waiter].built) {
		t.Errorf("run %d waited for the claim but built at %v, before the other run's last process ended (%v)", waiter, spans[waiter].built, spans[1-waiter].last)
	}
}
