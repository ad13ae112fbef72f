package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// TestCompareRecordingsCommand: `benchsup compare` of two test-mode
// documents holding recordings compares their spans, and --fail-on=slower
// fails on a slower median.
func TestCompareRecordingsCommand(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	spans := func(median float64) []int64 {
		out := make([]int64, 300)
		for i := range out {
			out[i] = int64(median*math.Exp(0.4*rng.NormFloat64())) + 1
		}
		return out
	}
	dir := t.TempDir()
	write := func(name string, median float64) string {
		doc := rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeTest, Hostname: "h"},
			Recordings: []rundoc.Recording{rundoctest.RecordingOf("example.com/svc", "request", true, spans(median)...)}}
		var buf bytes.Buffer
		if err := rundoc.WriteJSON(&buf, doc); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	old, new := write("old.json", 1e6), write("new.json", 1.5e6)
	var stdout, stderr bytes.Buffer
	if got := run([]string{"benchsup", "compare", "--fail-on=slower", old, new}, &stdout, &stderr); got != exitFailed {
		t.Errorf("exit %d, want %d (a slower median); stderr %s", got, exitFailed, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"span-median", "span-p95", "span-p99", "block bootstrap", "slower"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if got := run([]string{"benchsup", "compare", old, old}, &stdout, &stderr); got != 0 {
		t.Errorf("a recording against itself exits %d: %s", got, stderr.String())
	}
}
