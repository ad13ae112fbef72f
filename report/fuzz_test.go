package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// documentSeeds are the golden run documents (each with its checksum),
// the demo's real run (without one), and corruptions of one of them: cut
// short, edited, its checksum taken away.
func documentSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, name := range []string{"green.json", "errors.json", "tests.json", "counted.json", "windows.json", "windows-only.json", "html/demo-run.json"} {
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
		append(bytes.Clone(tests[:len(tests)-checksumTailLen]), "\n}\n"...),
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
		doc, _, err := ReadDocument(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrNotDocument) && !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("an error of no documented kind: %v", err)
			}
			return
		}
		var first bytes.Buffer
		if err := WriteJSON(&first, *doc); err != nil {
			t.Fatalf("an accepted document does not write: %v", err)
		}
		again, integrity, err := ReadDocument(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("a written document does not read: %v\n%s", err, first.Bytes())
		}
		if integrity.Checksum == "" {
			t.Fatal("a written document reads without its checksum")
		}
		var second bytes.Buffer
		if err := WriteJSON(&second, *again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("a document changed between two round trips:\n%s\n---\n%s", first.Bytes(), second.Bytes())
		}
	})
}

// FuzzReadComparison is FuzzReadDocument for comparison documents.
func FuzzReadComparison(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteComparisonJSON(&buf, comparisonFixture()); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add(append(bytes.Clone(good[:len(good)-checksumTailLen]), "\n}\n"...))
	f.Add(bytes.Replace(good, []byte(`"low": 1.27`), []byte(`"low": 1.5`), 1))
	f.Add([]byte(`{"schema": 1, "old": {"label": "a"}, "new": {"label": "b"}, "rows": [{"package": "p", "name": "B", "metric": "sec/op", "low": 2, "high": 1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, err := ReadComparison(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrNotComparison) && !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("an error of no documented kind: %v", err)
			}
			return
		}
		var first bytes.Buffer
		if err := WriteComparisonJSON(&first, *c); err != nil {
			t.Fatalf("an accepted comparison does not write: %v", err)
		}
		again, integrity, err := ReadComparison(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("a written comparison does not read: %v\n%s", err, first.Bytes())
		}
		if integrity.Checksum == "" {
			t.Fatal("a written comparison reads without its checksum")
		}
		var second bytes.Buffer
		if err := WriteComparisonJSON(&second, *again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("a comparison changed between two round trips:\n%s\n---\n%s", first.Bytes(), second.Bytes())
		}
	})
}
