package rundoc_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// documentSeeds are the golden run documents (each with its checksum),
// the demo's real run (without one), and corruptions of one of them: cut
// short, edited, its checksum taken away.
func documentSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, name := range []string{"green.json", "errors.json", "tests.json", "counted.json", "windows.json", "windows-only.json", "demo-run.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	tests := seeds[2]
	seeds = append(seeds,
		tests[:len(tests)/2],
		bytes.Replace(tests, []byte(`"elapsedNs": 0`), []byte(`"elapsedNs": -1`), 1),
		append(bytes.Clone(tests[:len(tests)-rundoc.ChecksumTailLen]), "\n}\n"...),
		[]byte(`{"schema": 1, "meta": {"mode": "bench"}, "rows": [{"package": "p", "name": "B", "kind": "benchmark", "processes": [{"index": 0}, {"index": 0}]}]}`),
	)
	return seeds
}

// FuzzReadDocument feeds arbitrary bytes to ReadDocument. Every input is
// read or refused with one of the reader's errors, and never panics; a
// document it reads writes back, reads again with its checksum verified,
// and writes back to the same bytes: what the reader accepts, the writer
// can write, and nothing is lost on the way.
func FuzzReadDocument(f *testing.F) {
	for _, s := range documentSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, "document", rundoc.ErrNotDocument, rundoc.ReadDocument, rundoc.WriteJSON)
	})
}

// FuzzReadComparison is FuzzReadDocument for comparison documents.
func FuzzReadComparison(f *testing.F) {
	var buf bytes.Buffer
	if err := rundoc.WriteComparisonJSON(&buf, rundoctest.ComparisonFixture()); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add(append(bytes.Clone(good[:len(good)-rundoc.ChecksumTailLen]), "\n}\n"...))
	f.Add(bytes.Replace(good, []byte(`"low": 1.27`), []byte(`"low": 1.5`), 1))
	f.Add([]byte(`{"schema": 1, "old": {"label": "a"}, "new": {"label": "b"}, "rows": [{"package": "p", "name": "B", "metric": "sec/op", "low": 2, "high": 1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, "comparison", rundoc.ErrNotComparison, rundoc.ReadComparison, rundoc.WriteComparisonJSON)
	})
}

// roundTrip is the body of both fuzz targets: data is read or refused with
// One of the reader's errors (notKind, ErrChecksum, ErrInvalidValue); what
// it reads writes back, reads again with its checksum verified, and writes
// back to the same bytes. what names the kind of document in failures.
func roundTrip[T any](t *testing.T, data []byte, what string, notKind error,
	read func(io.Reader) (*T, rundoc.Integrity, error), write func(io.Writer, T) error) {
	t.Helper()
	v, _, err := read(bytes.NewReader(data))
	if err != nil {
		if !errors.Is(err, notKind) && !errors.Is(err, rundoc.ErrChecksum) && !errors.Is(err, rundoc.ErrInvalidValue) {
			t.Fatalf("an error of no documented kind: %v", err)
		}
		return
	}
	var first bytes.Buffer
	if err := write(&first, *v); err != nil {
		t.Fatalf("an accepted %s does not write: %v", what, err)
	}
	again, integrity, err := read(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatalf("a written %s does not read: %v\n%s", what, err, first.Bytes())
	}
	if integrity.Checksum == "" {
		t.Fatalf("a written %s reads without its checksum", what)
	}
	var second bytes.Buffer
	if err := write(&second, *again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("a %s changed between two round trips:\n%s\n---\n%s", what, first.Bytes(), second.Bytes())
	}
}
