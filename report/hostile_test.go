package report

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// payload is what a hostile document puts in its strings: a clear
// screen, an OSC 8 link, a bell, bidi overrides and an isolate, a C1
// CSI (as a rune and as a lone byte), a byte that is not UTF-8, a
// carriage return, and markdown's cell end, code, emphasis and
// strikethrough. No space or line break, so that every name stays one
// the benchmark format can carry.
const payload = "\x1b[2J\x1b]8;;http://evil.example/\x1b\\here\x1b]8;;\x1b\\\x07\u202e\u2067\u009b\x9b\xff\r|`*~"

// formulas are the beginnings a spreadsheet evaluates, one per string in
// turn when the CSV is checked.
var formulas = []string{`=HYPERLINK("http://evil.example/")`, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx"}

// logicFields are plain string fields whose value the renderers act on
// (which renderer applies, how a value is formatted): left alone, so that
// the document still renders.
var logicFields = map[string]bool{"mode": true, "format": true, "class": true}

// poison appends payload to every string of *v (map keys too) that is not
// of a named type (an Outcome, a Verdict: values the renderers act on),
// or with formula set, puts one of formulas before it.
func poison(v any, formula bool) {
	n := 0
	edit := func(s string) string {
		n++
		if formula {
			return formulas[n%len(formulas)] + s
		}
		return s + payload
	}
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			if v.Type() == reflect.TypeFor[string]() && v.CanSet() {
				v.SetString(edit(v.String()))
			}
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if f := v.Type().Field(i); f.IsExported() && !logicFields[fieldName(f)] {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			if v.IsNil() {
				return
			}
			out := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				k := reflect.New(v.Type().Key()).Elem()
				k.Set(it.Key())
				walk(k)
				e := reflect.New(v.Type().Elem()).Elem()
				e.Set(it.Value())
				walk(e)
				out.SetMapIndex(k, e)
			}
			v.Set(out)
		}
	}
	walk(reflect.ValueOf(v).Elem())
}

// sgr is the painter's own styling, the one escape sequence a colored
// table may carry.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// assertInert fails the test at the first rune of out a terminal would
// act on: a control character other than a line feed or a tab, DEL, a
// C1 control, a bidi override or isolate, or a byte that is not UTF-8.
func assertInert(t *testing.T, what string, out []byte) {
	t.Helper()
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		bad := r == utf8.RuneError && n == 1 ||
			r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
		if bad {
			t.Errorf("%s: raw %q at byte %d: %q", what, out[i:i+n], i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
		i += n
	}
}

// hostileRuns are run documents with every part a renderer shows.
func hostileRuns() map[string]rundoc.Document {
	withComparison := rundoctest.GreenDoc()
	withComparison.Comparisons = []rundoc.Comparison{rundoctest.ComparisonFixture()}
	return map[string]rundoc.Document{
		"green": rundoctest.GreenDoc(), "errors": rundoctest.ErrorDoc(), "counted": rundoctest.CountedDoc(),
		"windows": rundoctest.Summarized(rundoctest.WindowDoc()), "sweeps": sweepDoc(), "recordings": recordingsDoc(),
		"hygiene": *hygieneDoc(), "against": *againstDoc(), "markup": *hostileDoc(), "compared": withComparison,
	}
}

// TestHostileTextIsInert renders documents whose every string carries
// terminal escapes, bidi overrides and markdown, in every text renderer:
// none reaches the output raw, each shows as its Go escape, and a
// markdown table keeps its columns.
func TestHostileTextIsInert(t *testing.T) {
	type render struct {
		name string
		run  func(*bytes.Buffer) error
	}
	var renders []render
	for name, doc := range hostileRuns() {
		poison(&doc, false)
		renders = append(renders,
			render{name + "/table", func(b *bytes.Buffer) error { return WriteTable(b, doc, TableOptions{}) }},
			render{name + "/table verbose", func(b *bytes.Buffer) error { return WriteTable(b, doc, TableOptions{Verbose: true}) }},
			render{name + "/table narrow", func(b *bytes.Buffer) error { return WriteTable(b, doc, TableOptions{Width: 100}) }},
			render{name + "/table shaped", func(b *bytes.Buffer) error {
				return WriteTable(b, doc, TableOptions{Shape: Shape{Sort: SortName}})
			}},
			render{name + "/markdown", func(b *bytes.Buffer) error { return WriteMarkdown(b, doc, TableOptions{Verbose: true}) }},
			render{name + "/html", func(b *bytes.Buffer) error {
				return WriteHTML(b, HTMLReport{Run: &doc, Comparisons: doc.Comparisons})
			}},
			render{name + "/benchfmt", func(b *bytes.Buffer) error { return WriteBenchfmt(b, doc) }},
		)
	}
	for name, c := range map[string]rundoc.Comparison{"comparison": rundoctest.ComparisonFixture(), "html comparison": htmlComparisonFixture()} {
		poison(&c, false)
		renders = append(renders,
			render{name + "/table", func(b *bytes.Buffer) error { return WriteComparisonTable(b, c) }},
			render{name + "/shaped", func(b *bytes.Buffer) error {
				return WriteShapedComparisonTable(b, c, Shape{Sort: SortMedian})
			}},
			render{name + "/markdown", func(b *bytes.Buffer) error { return WriteComparisonMarkdown(b, c, Shape{}) }},
		)
	}
	tests := rundoctest.TestsDoc()
	poison(&tests, false)
	rows, cs := variantRun(t)
	poison(&rows, false)
	poison(&cs, false)
	record := rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeRecord}, Rows: []rundoc.Row{{
		Package: "./crash", Name: "crash", Kind: rundoc.KindProgram, Outcome: "exit", Error: rundoctest.Str("exited"), Output: "panic: boom"}},
		Recordings: rundoctest.RecordingsFixture()}
	poison(&record, false)
	renders = append(renders,
		render{"tests", func(b *bytes.Buffer) error { return WriteTests(b, tests, false) }},
		render{"tests verbose", func(b *bytes.Buffer) error { return WriteTests(b, tests, true) }},
		render{"variants", func(b *bytes.Buffer) error { return WriteVariantTables(b, rows, cs) }},
		render{"variants markdown", func(b *bytes.Buffer) error { return WriteVariantMarkdown(b, rows, cs) }},
		render{"record run", func(b *bytes.Buffer) error { return WriteRecordRun(b, record, TableOptions{}) }},
	)
	for _, r := range renders {
		t.Run(r.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, r.run(&buf))
			assertInert(t, r.name, buf.Bytes())
			shown := `\x1b[2J`
			if strings.Contains(r.name, "markdown") {
				assertMarkdownColumns(t, buf.String())
				if !strings.Contains(buf.String(), shown) { // in a fence, as it is
					shown = markdownEscape(shown)
				}
			}
			assert.True(t, strings.Contains(buf.String(), shown), "the payload is shown, as its escapes %s", shown)
		})
	}
	t.Run("color", func(t *testing.T) {
		doc := rundoctest.ErrorDoc()
		poison(&doc, false)
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{Color: true}))
		require.Contains(t, buf.String(), "\x1b[1m", "the table is painted")
		assertInert(t, "color", sgr.ReplaceAll(buf.Bytes(), nil))
	})
}

// TestHostileEscapes holds the escapes to testing's: each rune as Go
// writes it in a quoted string.
func TestHostileEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"BenchmarkX", "BenchmarkX"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"\x1b]8;;http://x/\x1b\\t\x1b]8;;\x1b\\", `\x1b]8;;http://x/\x1b\t\x1b]8;;\x1b\`},
		{"bell\a", `bell\a`},
		{"\u202eevil\u202c", `\u202eevil\u202c`},
		{"\u2066iso\u2069", `\u2066iso\u2069`},
		{"c1\u009b", `c1\u009b`},
		{"byte\x9b\xff", `byte\x9b\xff`},
		{"del\x7f", `del\x7f`},
		{"cr\rlf\ntab\t", `cr\rlf\ntab\t`},
		{"µs × — ≈ 日本", "µs × — ≈ 日本"},
	} {
		assert.Equal(t, tc.want, escapeText(tc.in, false), "%q", tc.in)
	}
	assert.Equal(t, "a\tb\nc\\x1b", escapeText("a\tb\nc\x1b", true), "text over lines keeps its tabs and line feeds")
	row := rundoc.Row{Name: "B\nx", Output: "line 1\n\tline 2\x1b[0m", Notes: []string{"n\n1"}}
	got := escaped(row)
	assert.Equal(t, `B\nx`, got.Name, "a name stays on its line")
	assert.Equal(t, "line 1\n\tline 2\\x1b[0m", got.Output)
	assert.Equal(t, []string{"n\n1"}, got.Notes)
	assert.Equal(t, "B\nx", row.Name, "the caller's value is not changed")
	clean := rundoctest.GreenDoc()
	assert.Same(t, &clean.Rows[0], &escaped(clean).Rows[0], "a document with nothing to escape is not copied")
}

// TestHostileProgress: the live line and the record view show a name as
// its escapes (their own cursor movements aside).
func TestHostileProgress(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	p.Update("BenchmarkX"+payload, 1, 2)
	p.SetUsage(&LiveUsage{Label: "rss" + payload})
	v := NewRecordView(&buf, true)
	v.Update(LiveRecording{UsageReason: payload, Identities: []LiveIdentity{{Name: "job" + payload}}})
	out := buf.String()
	for _, raw := range []string{"\x1b[2J", "\x1b]8", "\a", "\u202e", "\u2067", "\u009b", "\x9b", "\xff"} {
		assert.NotContains(t, out, raw)
	}
	assert.Contains(t, out, `BenchmarkX\x1b[2J`)
	assert.Contains(t, out, `job\x1b[2J`)
}

// assertMarkdownColumns checks that every row of each markdown table has
// as many cells as its header: no name ended a cell early.
func assertMarkdownColumns(t *testing.T, md string) {
	t.Helper()
	cells := func(line string) int { return strings.Count(line, "|") - strings.Count(line, `\|`) }
	want := -1
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		if want < 0 {
			want = cells(line)
			continue
		}
		assert.Equal(t, want, cells(line), "a row has the header's cells: %q", line)
	}
}

// TestHostileCSV: every CSV form of documents whose strings begin with
// formulas writes each text cell so that a spreadsheet shows it as text,
// while numbers, negative ones included, stay numbers.
func TestHostileCSV(t *testing.T) {
	type form struct {
		name string
		run  func(*bytes.Buffer) error
	}
	var forms []form
	for name, doc := range hostileRuns() {
		poison(&doc, true)
		forms = append(forms,
			form{name + "/wide", func(b *bytes.Buffer) error { return WriteCSV(b, doc, CSVOptions{}) }},
			form{name + "/samples", func(b *bytes.Buffer) error { return WriteCSV(b, doc, CSVOptions{Samples: true}) }},
		)
	}
	c := rundoctest.ComparisonFixture()
	poison(&c, true)
	_, cs := variantRun(t)
	poison(&cs, true)
	forms = append(forms,
		form{"comparison", func(b *bytes.Buffer) error { return WriteComparisonCSV(b, c) }},
		form{"variants", func(b *bytes.Buffer) error { return WriteComparisonsCSV(b, cs) }},
	)
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, f.run(&buf))
			assertInert(t, f.name, bytes.ReplaceAll(buf.Bytes(), []byte("\r"), nil))
			recs, err := csv.NewReader(&buf).ReadAll()
			require.NoError(t, err)
			neutralised := 0
			for _, rec := range recs[1:] {
				for j, cell := range rec {
					if strings.HasPrefix(cell, "'") {
						neutralised++
					}
					if cell == "" || !strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
						continue
					}
					_, err := strconv.ParseFloat(cell, 64)
					assert.NoError(t, err, "column %s: %q would be evaluated", recs[0][j], cell)
				}
			}
			assert.NotZero(t, neutralised, "the formulas are in the output, quoted")
		})
	}
	t.Run("numbers stay numbers", func(t *testing.T) {
		assert.Equal(t, "-3.2", csvFloat(-3.2))
		assert.Equal(t, "'-3.2", csvText("-3.2"), "a text cell is text whatever it holds")
		assert.Equal(t, "-12", csvDecimal("-12"))
		assert.Equal(t, "'=1+1", csvDecimal("=1+1"))
		assert.Equal(t, "'@x", csvText("@x"))
		assert.Equal(t, "plain", csvText("plain"))
	})
}

// TestMarkdownItem: a list item holds blocks, so a note that begins
// like a heading, a quote, a list or a rule is escaped at its start.
func TestMarkdownItem(t *testing.T) {
	for in, want := range map[string]string{
		"# heading": `\# heading`, "> quote": "&gt; quote", "- item": `\- item`, "+ item": `\+ item`,
		"=== rule": `\=== rule`, "12. item": `12\. item`, "3) item": `3\) item`, "2026 ok": "2026 ok",
		"BenchmarkX: a | b": `BenchmarkX: a \| b`, "~~gone~~ &amp;": `\~\~gone\~\~ &amp;amp;`, "": "",
	} {
		assert.Equal(t, want, markdownItem(in), "%q", in)
	}
}
