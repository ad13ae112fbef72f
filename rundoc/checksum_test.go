package rundoc_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// encodeWhole is how WriteJSON encoded a document before it streamed:
// the value whole, through one encoder.
func encodeWhole(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	return buf.Bytes()
}

// splitChecksum returns the content a document's checksum covers and its
// recorded hex digest, failing the test when the member is not last.
func splitChecksum(t *testing.T, doc []byte) (content []byte, recorded string) {
	t.Helper()
	require.Greater(t, len(doc), rundoc.ChecksumTailLen)
	content, tail := doc[:len(doc)-rundoc.ChecksumTailLen], string(doc[len(doc)-rundoc.ChecksumTailLen:])
	require.True(t, strings.HasPrefix(tail, ",\n  \"checksum\": \"sha256:") && strings.HasSuffix(tail, "\"\n}\n"), "tail %q", tail)
	return content, tail[len(rundoc.ChecksumPrefix) : len(tail)-len(rundoc.ChecksumSuffix)]
}

func TestWriteJSONStreamsTheWholeEncoding(t *testing.T) {
	for name, doc := range fixtureDocs() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, rundoc.WriteJSON(&buf, doc))
			content, recorded := splitChecksum(t, buf.Bytes())
			sum := sha256.Sum256(content)
			assert.Equal(t, hex.EncodeToString(sum[:]), recorded, "the checksum is the SHA-256 of every byte before its member")
			want := encodeWhole(t, rundoc.Normalize(doc))
			assert.Equal(t, string(want), string(content)+"\n}\n", "without its checksum member, the document is the whole value's encoding")
		})
	}
	t.Run("comparison", func(t *testing.T) {
		c := rundoctest.ComparisonFixture()
		c.Mismatches = []rundoc.FieldDiff{{Field: "cpu", Old: "a <b>", New: "c & d"}}
		var buf bytes.Buffer
		require.NoError(t, rundoc.WriteComparisonJSON(&buf, c))
		content, recorded := splitChecksum(t, buf.Bytes())
		sum := sha256.Sum256(content)
		assert.Equal(t, hex.EncodeToString(sum[:]), recorded)
		var back rundoc.Comparison
		require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
		assert.Equal(t, string(encodeWhole(t, back)), string(content)+"\n}\n")
		assert.Nil(t, c.Rows[0].Old.Outliers, "the caller's comparison is untouched")
	})
}

// TestDocumentMembers checks that the streaming writers write every
// member of Document and Comparison, in declaration order, then the
// checksum: a field added to either must be added to its writer too.
func TestDocumentMembers(t *testing.T) {
	tags := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
		return append(out, "checksum")
	}
	keys := func(b []byte) []string {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &m))
		dec := json.NewDecoder(bytes.NewReader(b))
		_, err := dec.Token() // {
		require.NoError(t, err)
		var out []string
		for dec.More() {
			k, err := dec.Token()
			require.NoError(t, err)
			out = append(out, k.(string))
			var skip json.RawMessage
			require.NoError(t, dec.Decode(&skip))
		}
		return out
	}
	full := rundoctest.Summarized(rundoctest.WindowDoc())
	full.Sweeps = rundoctest.SweepsFixture()
	full.Recordings = rundoctest.RecordingsFixture()
	full.Comparisons = []rundoc.Comparison{rundoctest.ComparisonFixture()}
	full.Interrupted = &rundoc.Interruption{Signal: "SIGTERM"}
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, full))
	assert.Equal(t, tags(rundoc.Document{}), keys(buf.Bytes()))
	embedded := buf.String()[strings.Index(buf.String(), `"comparisons": [`):]
	assert.Contains(t, embedded, `"mismatches": null`, "a run document's comparisons are written as they are")
	buf.Reset()
	withSweeps := rundoctest.ComparisonFixture()
	withSweeps.Sweeps = rundoctest.SweepChangesFixture()
	withSweeps.Variants = &rundoc.VariantComparison{Key: "impl", Reference: "fnv", Contender: "xxh", Iterations: "own",
		Groups: []rundoc.VariantGroup{{Group: "BenchmarkHash/impl=*", Members: []string{"fnv", "xxh"}, Schedule: [][]int{{0, 1}, {1, 0}}}}}
	require.NoError(t, rundoc.WriteComparisonJSON(&buf, withSweeps))
	assert.Equal(t, tags(rundoc.Comparison{}), keys(buf.Bytes()))
}

func TestWriteJSONFailingWriter(t *testing.T) {
	for _, n := range []int{0, 1, 100, 2000} {
		w := &limitWriter{left: n}
		err := rundoc.WriteJSON(w, rundoctest.GreenDoc())
		assert.ErrorIs(t, err, rundoctest.ErrWrite, "a failure after %d bytes", n)
		err = rundoc.WriteComparisonJSON(&limitWriter{left: n}, rundoctest.ComparisonFixture())
		assert.ErrorIs(t, err, rundoctest.ErrWrite, "a failure after %d bytes", n)
	}
}

// limitWriter takes left bytes, then fails.
type limitWriter struct{ left int }

func (w *limitWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, rundoctest.ErrWrite
	}
	w.left -= len(p)
	return len(p), nil
}

func written(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, rundoctest.GreenDoc()))
	return buf.Bytes()
}

func TestReadChecksum(t *testing.T) {
	good := written(t)
	content, recorded := splitChecksum(t, good)
	withChecksum := func(content []byte) []byte {
		sum := sha256.Sum256(content)
		return append(bytes.Clone(content), rundoc.ChecksumPrefix+hex.EncodeToString(sum[:])+rundoc.ChecksumSuffix...)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		is   error  // nil: read, with a note
		want string // in the error
	}{
		{"edited", bytes.Replace(good, []byte(`"medianNs": 1236`), []byte(`"medianNs": 1136`), 1), rundoc.ErrChecksum,
			"checksum mismatch: the document was changed or cut after benchsup wrote it (sha256 recorded " + recorded[:12] + "..., content "},
		{"a row cut out", withoutRow(t, good, recorded), rundoc.ErrChecksum, "checksum mismatch"},
		{"cut short", good[:len(good)/2], rundoc.ErrNotDocument, "the document ends early (cut short?)"},
		{"cut in the checksum", good[:len(good)-20], rundoc.ErrNotDocument, "the document ends early"},
		{"no final newline", good[:len(good)-1], rundoc.ErrChecksum, "the checksum member is not where benchsup writes it"},
		{"CRLF", bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")), rundoc.ErrChecksum, "not where benchsup writes it"},
		{"upper-case digest", bytes.Replace(good, []byte(recorded), []byte(strings.ToUpper(recorded)), 1), rundoc.ErrChecksum, "not where"},
		{"short digest", bytes.Replace(good, []byte(recorded), []byte(recorded[:63]), 1), rundoc.ErrChecksum, "not where"},
		{"moved first", append([]byte("{\n  \"checksum\": \"sha256:"+recorded+"\","), append(bytes.Clone(content[1:]), "\n}\n"...)...),
			rundoc.ErrChecksum, "not where"},
		{"repeated", withChecksum(bytes.Replace(content, []byte(`"schema": 1,`), []byte(`"schema": 1, "checksum": "sha256:`+recorded+`",`), 1)),
			rundoc.ErrChecksum, "2 checksum members; benchsup writes one, last"},
		{"repeated in another case", withChecksum(bytes.Replace(content, []byte(`"schema": 1,`), []byte(`"schema": 1, "CheckSum": 0,`), 1)),
			rundoc.ErrChecksum, "2 checksum members"},
		{"data after", append(bytes.Clone(good), "{}\n"...), rundoc.ErrNotDocument, "data after the document"},
		{"white space after", append(bytes.Clone(good), " \n\n"...), rundoc.ErrChecksum, "not where"},
		{"empty", nil, rundoc.ErrNotDocument, "empty input"},
		{"checksum taken away", append(bytes.Clone(content), "\n}\n"...), nil, ""},
		{"edited, checksum taken away", append(bytes.Replace(content, []byte(`"medianNs": 1236`), []byte(`"medianNs": 1136`), 1), "\n}\n"...), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, integrity, err := rundoc.ReadDocument(bytes.NewReader(tc.in))
			if tc.is == nil {
				require.NoError(t, err)
				assert.NotNil(t, doc)
				assert.Empty(t, integrity.Checksum)
				assert.Contains(t, integrity.Note(), "has no checksum")
				return
			}
			assert.ErrorIs(t, err, tc.is)
			assert.ErrorContains(t, err, tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Nil(t, doc)
		})
	}
	t.Run("verified", func(t *testing.T) {
		doc, integrity, err := rundoc.ReadDocument(bytes.NewReader(good))
		require.NoError(t, err)
		assert.Equal(t, "sha256:"+recorded, integrity.Checksum)
		assert.Empty(t, integrity.Note())
		assert.Equal(t, rundoc.Normalize(rundoctest.GreenDoc()), *doc)
	})
	t.Run("the same value without its checksum", func(t *testing.T) {
		a, _, err := rundoc.ReadDocument(bytes.NewReader(good))
		require.NoError(t, err)
		b, _, err := rundoc.ReadDocument(bytes.NewReader(append(bytes.Clone(content), "\n}\n"...)))
		require.NoError(t, err)
		assert.Equal(t, a, b)
	})
	t.Run("comparison edited", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, rundoc.WriteComparisonJSON(&buf, rundoctest.ComparisonFixture()))
		edited := bytes.Replace(buf.Bytes(), []byte(`"verdict": "slower"`), []byte(`"verdict": "faster"`), 1)
		_, _, err := rundoc.ReadComparison(bytes.NewReader(edited))
		var ce *rundoc.ChecksumError
		require.True(t, errors.As(err, &ce), "err = %v", err)
		assert.Len(t, ce.Recorded, 64)
		assert.NotEqual(t, ce.Recorded, ce.Content)
	})
}

// withoutRow returns doc with its last row taken out, still valid JSON.
func withoutRow(t *testing.T, doc []byte, recorded string) []byte {
	t.Helper()
	i := bytes.LastIndex(doc, []byte("\n    },\n    {\n"))
	j := bytes.LastIndex(doc, []byte("\n    }\n  ],\n  \"checksum\""))
	require.True(t, i > 0 && j > i)
	out := append(bytes.Clone(doc[:i]), "\n    }"...)
	out = append(out, doc[j+len("\n    }"):]...)
	require.True(t, json.Valid(out))
	require.Contains(t, string(out), recorded)
	return out
}

func TestReadTooLarge(t *testing.T) {
	good := written(t)
	_, _, err := rundoc.ReadDocumentLimited(bytes.NewReader(good), int64(len(good)-1))
	assert.ErrorIs(t, err, rundoc.ErrTooLarge)
	assert.ErrorContains(t, err, "larger than")
	_, _, err = rundoc.ReadDocumentLimited(bytes.NewReader(good), int64(len(good)))
	assert.NoError(t, err, "a document of exactly the limit reads")
	// Trailing white space beyond the limit is still too much input.
	_, _, err = rundoc.ReadDocumentLimited(io.MultiReader(bytes.NewReader(good), strings.NewReader(strings.Repeat(" ", 10))), int64(len(good)+5))
	assert.ErrorIs(t, err, rundoc.ErrTooLarge)
}

func TestReadDeepNesting(t *testing.T) {
	deep := `{"schema": 1, "meta": {"mode": "bench"}, "rows": [` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "]}"
	_, _, err := rundoc.ReadDocument(strings.NewReader(deep))
	assert.ErrorIs(t, err, rundoc.ErrNotDocument)
	assert.ErrorContains(t, err, "exceeded max depth")
}
