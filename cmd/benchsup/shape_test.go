package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// TestCompareShapeAndMarkdown runs compare on two saved documents with
// --row/--col/--sort and --format=markdown, and with a key no name has.
func TestCompareShapeAndMarkdown(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"old.json", "new.json"} {
		var buf bytes.Buffer
		if err := rundoc.WriteJSON(&buf, rundoctest.GreenDoc()); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, tc := range []struct {
		name       string
		args       []string
		status     int
		stdout     []string // each must be in stdout
		stderrLine string   // the whole of stderr, when set
	}{
		{"markdown", []string{"--format=markdown"}, exitOK, []string{"### benchmark comparison", "| sec/op | old | new |", "markers: "}, ""},
		{"a column per size", []string{"--col=/size"}, exitOK, []string{"cells: the change", "size=1K", "(no size)"}, ""},
		{"sorted by name", []string{"--sort=name", "--format=markdown"}, exitOK, []string{"| BenchmarkDecode |"}, ""},
		{"a key no name has", []string{"--col=/imp"}, exitUsage, nil,
			"benchsup: --col: no benchmark name has the key /imp (keys present: .name, .fullname, /size)\n"},
		{"a shape of csv", []string{"--row=.name", "--format=csv"}, exitUsage, nil,
			"benchsup: --row, --col and --sort shape the table and markdown formats, not --format=csv\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			args := append(append([]string{"benchsup", "compare"}, tc.args...), paths...)
			if got := run(args, &stdout, &stderr); got != tc.status {
				t.Fatalf("exit %d, want %d; stderr %q", got, tc.status, stderr.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			if tc.stderrLine != "" && stderr.String() != tc.stderrLine {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.stderrLine)
			}
		})
	}
}
