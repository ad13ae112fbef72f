package rundoc_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// jsonTags are the JSON names of v's fields, in order, then "checksum".
func jsonTags(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return append(out, "checksum")
}

// TestReaderMembers holds the strict readers' member lists to the
// structs: a field added to Document or Comparison must be read too, or
// every document that has it is refused.
func TestReaderMembers(t *testing.T) {
	assert.Equal(t, jsonTags(rundoc.Document{}), rundoc.ReaderMembers(false))
	assert.Equal(t, jsonTags(rundoc.Comparison{}), rundoc.ReaderMembers(true))
}

// rechecksum gives a document's content (its bytes without the checksum
// member) a checksum member that verifies, so that what refuses an edited
// document in these tests is its shape, not its checksum.
func rechecksum(content []byte) []byte {
	sum := sha256.Sum256(content)
	return append(bytes.Clone(content), rundoc.ChecksumPrefix+hex.EncodeToString(sum[:])+rundoc.ChecksumSuffix...)
}

// edit returns the written document doc with the n-th (from 0) occurrence
// of old replaced by new, its checksum recomputed.
func edit(t *testing.T, doc []byte, old, new string, n int) []byte {
	t.Helper()
	content := doc[:len(doc)-rundoc.ChecksumTailLen]
	at := 0
	for range n + 1 {
		i := bytes.Index(content[at:], []byte(old))
		require.GreaterOrEqual(t, i, 0, "%q occurs %d times", old, n+1)
		at += i + len(old)
	}
	start := at - len(old)
	out := append(bytes.Clone(content[:start]), new...)
	return rechecksum(append(out, content[at:]...))
}

func TestReadStrict(t *testing.T) {
	good := written(t)
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeBench}}))
	empty := buf.Bytes()
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"unknown top-level member", edit(t, good, `"schema": 1,`, `"schema": 1, "extra": {"x": 1},`, 0),
			`unknown member "extra" (a document of a later benchsup, or edited?)`},
		{"unknown member of a row", edit(t, good, `"kind": `, `"bogus": true, "kind": `, 1),
			`rows[1]: unknown member "bogus"`},
		{"unknown member in meta", edit(t, good, `"meta": {`, `"meta": {"bogus": 1, `, 0), `meta: unknown member "bogus"`},
		{"rows null", edit(t, empty, `"rows": []`, `"rows": null`, 0), "rows: null, where benchsup writes an array"},
		{"columns null", edit(t, empty, `"columns": []`, `"columns": null`, 0), "columns: null, where benchsup writes an array"},
		{"rows an object", edit(t, empty, `"rows": []`, `"rows": {}`, 0), "rows: an object, where benchsup writes an array"},
		{"windows null", edit(t, empty, `"rows": []`, `"rows": [], "windows": null`, 0), "windows: null, where benchsup writes an array"},
		{"a member twice", edit(t, empty, `"rows": []`, `"rows": [], "ROWS": []`, 0), `member "rows" given twice`},
		{"a string for a number", edit(t, good, `"schema": 1`, `"schema": "1"`, 0), "schema: a JSON string, where benchsup writes int"},
		{"a string for a row's number", edit(t, good, `"index": 1`, `"index": "1"`, 0), "rows[0].processes.index: a JSON string, where benchsup writes int"},
		{"not an object", []byte("[]\n"), "an array, where a document is a JSON object"},
		{"another schema, before its members", []byte(`{"schema": 2, "future": []}`), "schema 2, this benchsup reads 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _, err := rundoc.ReadDocument(bytes.NewReader(tc.in))
			assert.Nil(t, doc)
			assert.ErrorIs(t, err, rundoc.ErrNotDocument)
			assert.ErrorContains(t, err, tc.want)
			if err != nil {
				assert.NotContains(t, err.Error(), "\n", "one line")
			}
		})
	}
	t.Run("absent members read as empty", func(t *testing.T) {
		doc, _, err := rundoc.ReadDocument(strings.NewReader(`{"schema": 1, "meta": {"mode": "bench"}}`))
		require.NoError(t, err)
		assert.Nil(t, doc.Rows, "an older document's shape")
	})
	t.Run("a run document's comparisons keep their nulls", func(t *testing.T) {
		withComparison := rundoctest.GreenDoc()
		withComparison.Comparisons = []rundoc.Comparison{rundoctest.ComparisonFixture()}
		var buf bytes.Buffer
		require.NoError(t, rundoc.WriteJSON(&buf, withComparison))
		require.Contains(t, buf.String(), `"mismatches": null`)
		_, _, err := rundoc.ReadDocument(&buf)
		assert.NoError(t, err, "what WriteJSON writes reads")
	})
}

func TestReadComparisonStrict(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteComparisonJSON(&buf, rundoctest.ComparisonFixture()))
	good := buf.Bytes()
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"unknown top-level member", edit(t, good, `"schema": 1,`, `"schema": 1, "extra": 1,`, 0), `unknown member "extra"`},
		{"unknown member of a row", edit(t, good, `"metric": `, `"bogus": 1, "metric": `, 2), `rows[2]: unknown member "bogus"`},
		{"rows null", edit(t, good, `"rows": [`, `"rows": null, "x": [`, 0), "rows: null, where benchsup writes an array"},
		{"mismatches null", edit(t, good, `"mismatches": []`, `"mismatches": null`, 0), "mismatches: null, where benchsup writes an array"},
		{"geomeans null", edit(t, good, `"geomeans": [`, `"geomeans": null, "x": [`, 0), "geomeans: null, where benchsup writes an array"},
		{"a run document", written(t), "no old and new sides (a run document, from run --json?)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := rundoc.ReadComparison(bytes.NewReader(tc.in))
			assert.Nil(t, c)
			assert.ErrorIs(t, err, rundoc.ErrNotComparison)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// within fails the test when f has not returned after 30 s, so that a
// read that blocks fails rather than hangs.
func within[T any](t *testing.T, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("still blocked after 30 s")
		panic("unreachable")
	}
}

func TestReadDocumentFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(good, written(t), 0o644))
	large := filepath.Join(dir, "large.json")
	f, err := os.Create(large)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(rundoc.MaxDocumentSize+1)) // sparse: nothing written
	require.NoError(t, f.Close())

	t.Run("a regular file", func(t *testing.T) {
		doc, integrity, err := rundoc.ReadDocumentFile(good)
		require.NoError(t, err)
		assert.Len(t, doc.Rows, len(rundoctest.GreenDoc().Rows))
		assert.NotEmpty(t, integrity.Checksum)
	})
	for _, tc := range []struct {
		name, path string
		is         error
		want       string
	}{
		{"missing", filepath.Join(dir, "none.json"), fs.ErrNotExist, "none.json"},
		{"a directory", dir, rundoc.ErrNotRegular, dir + ": not a regular file (a directory); benchsup reads documents from regular files"},
		{"a device", os.DevNull, rundoc.ErrNotRegular, os.DevNull + ": not a regular file (a character device)"},
		// Refused by its size before a byte is read: reading a GiB of
		// zeros would take seconds, and memory.
		{"too large", large, rundoc.ErrTooLarge, large + ": document too large: 1073741825 bytes, larger than 1073741824"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := within(t, func() error { _, _, err := rundoc.ReadDocumentFile(tc.path); return err })
			assert.ErrorIs(t, err, tc.is)
			assert.ErrorContains(t, err, tc.want)
			_, _, cerr := rundoc.ReadComparisonFile(tc.path)
			assert.ErrorIs(t, cerr, tc.is, "a comparison is read from a regular file too")
		})
	}
	t.Run("a file with a bad document names it", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.json")
		require.NoError(t, os.WriteFile(bad, []byte(`{"schema": 1, "rows": null}`), 0o644))
		_, _, err := rundoc.ReadDocumentFile(bad)
		assert.ErrorIs(t, err, rundoc.ErrNotDocument)
		assert.ErrorContains(t, err, bad+": not a benchsup run document: rows: null")
	})
}
