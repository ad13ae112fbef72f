package report

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/rundoc"
)

func TestWindowsGolden(t *testing.T) {
	tests := []struct {
		name string
		doc  rundoc.Document
	}{
		{"windows", rundoctest.Summarized(rundoctest.WindowDoc())},
		{"windows-only", rundoctest.Summarized(rundoctest.WindowsOnlyDoc())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var table bytes.Buffer
			require.NoError(t, WriteTable(&table, tt.doc, TableOptions{}))
			rundoctest.Golden(t, tt.name+".table", table.Bytes())
			assert.NotContains(t, table.String(), "\x1b", "the zero TableOptions writes plain text")
		})
	}
}

// windowLines returns the windows table's header and rows from the table
// WriteTable writes for doc.
func windowLines(t *testing.T, doc rundoc.Document) (header string, rows []string) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
	ls := strings.Split(buf.String(), "\n")
	for i, l := range ls {
		if l == windowsTitle {
			header = ls[i+1]
			for _, r := range ls[i+2:] {
				if r == "" {
					break
				}
				rows = append(rows, r)
			}
			return header, rows
		}
	}
	t.Fatalf("no %q title in\n%s", windowsTitle, buf.String())
	return "", nil
}

// fieldsOf splits a table line into its blank-separated fields.
func fieldsOf(line string) []string {
	return strings.Fields(line)
}

func TestWindowsTable(t *testing.T) {
	doc := rundoctest.Summarized(rundoctest.WindowDoc())
	header, rows := windowLines(t, doc)
	require.Len(t, rows, len(doc.WindowSummaries), "one line per window summarized across processes, none dropped")
	assert.Less(t, len(rows), len(doc.Windows), "not one line per process")

	t.Run("columns", func(t *testing.T) {
		g, notes := windowGrid(doc.WindowSummaries, nil, TableOptions{})
		var got []string
		for _, c := range g.cols {
			got = append(got, c.header)
		}
		assert.Equal(t, []string{"window", "n", "reps", "wall", "range", "user", "kernel", "runqueue", "disk", "other",
			"|", "other threads", "io-stall (system)", "regime", "notes"}, got)
		assert.Equal(t, len(g.cols)-1, notes)
	})

	t.Run("medians and the spread between processes", func(t *testing.T) {
		f := fieldsOf(rows[0])
		require.Equal(t, "ingest.BenchmarkIngest", f[0])
		// window n reps wall spread user kernel runqueue disk other | threads io regime…
		assert.Equal(t, []string{"2", "1", "156.2ms", "−2.5%", "+2.5%", "97.88ms", "12.67ms", "1.617ms", dash, "34.01ms", "|", "1.923ms", "6.667ms"}, f[1:14])
		assert.Contains(t, rows[0], "cold×1, cold→partial×1", "each stamp with its processes")
	})

	t.Run("io-stall is set apart from the decomposition", func(t *testing.T) {
		bar := strings.Index(header, " | ")
		require.Positive(t, bar, "header %q has a separator", header)
		assert.Less(t, strings.Index(header, "other "), bar, "the decomposition ends left of the separator")
		assert.Greater(t, strings.Index(header, "io-stall (system)"), bar)
		assert.Greater(t, strings.Index(header, "other threads"), bar, "other threads' CPU is not part of the decomposition")
		col := runeLen(header[:bar]) + 1
		for _, r := range rows {
			assert.Equal(t, "|", string([]rune(r)[col]), "row %q has the separator under the header's", r)
		}
	})

	t.Run("unavailable is an em dash, never 0", func(t *testing.T) {
		// BenchmarkIngest/parse: one process measured it (one of two),
		// no spread; runqueue and disk are nil; other threads and io
		// stall are measured zeros.
		f := fieldsOf(rows[1])
		require.Equal(t, "ingest.BenchmarkIngest/parse", f[0])
		assert.Equal(t, []string{"1", "of", "2", "3", "45.68ms", dash, "40.12ms", "2.346ms", dash, dash, "3.210ms", "|", "0ns", "0ns", "warm"}, f[1:16])
		// BenchmarkCompact#2 has no PSI reading and no note.
		f = fieldsOf(rows[4])
		require.Equal(t, "ingest.BenchmarkCompact#2", f[0])
		assert.Equal(t, dash, f[8], "disk")
		assert.Equal(t, dash, f[12], "io-stall")
		assert.Contains(t, rows[4], "unavailable: disk, io-stall (no reason recorded)", "an em dash never stands without a reason")
	})

	t.Run("a window no process measured", func(t *testing.T) {
		f := fieldsOf(rows[2])
		require.Equal(t, "replay.BenchmarkReplay", f[0])
		assert.Equal(t, "0", f[1])
		assert.Equal(t, []string{"of", "1"}, f[2:4])
		for c := 4; c <= 14; c++ {
			if c == 12 {
				assert.Equal(t, "|", f[c])
				continue
			}
			assert.Equal(t, dash, f[c], "cell %d", c)
		}
		assert.Contains(t, rows[2], "skipped: no replay corpus in testdata/replay")
	})

	t.Run("decimal points line up", func(t *testing.T) {
		g, _ := windowGrid(doc.WindowSummaries, nil, TableOptions{})
		h, cells := g.layout()
		for c, col := range g.cols {
			if col.align != alignDecimal {
				continue
			}
			point := -1
			for i := range cells {
				cell := cells[i][c]
				assert.Equal(t, runeLen(h[c]), runeLen(cell), "column %q: every cell has the column's width", col.header)
				p := runeLen(cell) - runeLen(strings.TrimLeft(cell, " ")) + pointOffset(strings.TrimSpace(cell))
				if point < 0 {
					point = p
				}
				assert.Equal(t, point, p, "column %q: cell %q", col.header, cell)
			}
		}
	})

	t.Run("window notes", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
		out := buf.String()
		assert.Contains(t, out, "\nwindow notes\n  scope: thread ")
		assert.Contains(t, out, "\n  "+summaryText(doc.WindowSummaries)+"\n", "what a summarized number is")
		assert.Contains(t, out, "(with 2 processes, a 50% distribution-free confidence interval of the median process's wall)",
			"the range's confidence is that of the summaries' process count")
		assert.Contains(t, out, "  ingest.BenchmarkIngest/parse: runqueue: /proc/thread-self/schedstat unreadable: permission denied; disk:")
		assert.Contains(t, out, "; proc 1 not summarized (error: benchmark-failure: panic: runtime error: index out of range [3] with length 3)")
		assert.Contains(t, out, "  ingest.BenchmarkIngest (proc 1): regime cold→partial: 412.0KiB of 16.00MiB resident after the prep (16.00MiB before); pages mapped",
			"a regime that missed its request, per process, from the per-process windows")
		assert.NotContains(t, out, "BenchmarkIngest (proc 0): regime", "a regime that met its request needs no note")
	})

	t.Run("order: benchmark table, windows, then error blocks", func(t *testing.T) {
		doc := rundoctest.Summarized(rundoctest.WindowDoc())
		doc.Rows = append(doc.Rows, rundoctest.ErrorDoc().Rows[1])
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
		out := buf.String()
		b, w, f := strings.Index(out, "benchmark "), strings.Index(out, "\nwindows\n"), strings.Index(out, "--- FAIL")
		assert.True(t, b >= 0 && b < w && w < f, "order of %d, %d, %d", b, w, f)
	})

	t.Run("color", func(t *testing.T) {
		doc := rundoctest.Summarized(rundoctest.WindowDoc())
		doc.WindowSummaries[2].Skipped, doc.WindowSummaries[2].Error = nil, rundoctest.Str("exit: status 2")
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{Color: true}))
		assert.Contains(t, buf.String(), "\x1b[1mwindow ")
		assert.Contains(t, buf.String(), "\x1b[31merror: exit: status 2")
	})

	t.Run("notes are capped", func(t *testing.T) {
		g, notes := windowGrid(doc.WindowSummaries, nil, TableOptions{NoteWidth: 20})
		for _, row := range g.cells {
			assert.LessOrEqual(t, runeLen(row[notes]), 20)
		}
	})
}

func TestWindowsOnly(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, rundoctest.Summarized(rundoctest.WindowsOnlyDoc()), TableOptions{}))
	out := buf.String()
	assert.NotContains(t, out, "no benchmark results")
	assert.NotContains(t, out, "benchmark ", "no empty benchmark table")
	assert.True(t, strings.HasPrefix(out, "goos: "))
	assert.Regexp(t, `containment: cgroup\nbuild: [^\n]*\n\nwindows\nwindow `, out)
}

func TestWindowsWithoutSummaries(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, rundoctest.WindowDoc(), TableOptions{}))
	assert.Contains(t, buf.String(), "\nwindows\n(no cross-process summary in this document: its 7 per-process windows are in the JSON document)\n")
}

func TestWindowsOptionalColumns(t *testing.T) {
	plain := rundoc.WindowSummary{Package: "p", Workload: "BenchmarkW", Name: "BenchmarkW", Processes: 1, Reps: 1, Scope: rundoc.ScopeThread,
		WallNs: rundoctest.One(1000), OnCPUUserNs: rundoctest.One(500), OnCPUKernelNs: rundoctest.One(100), OffCPURunqueueNs: rundoctest.One(100), OffCPUDiskNs: rundoctest.One(100),
		OffCPUOtherNs: rundoctest.One(200), IOStallNs: rundoctest.One(7)}
	headers := func(ss ...rundoc.WindowSummary) []string {
		g, _ := windowGrid(ss, nil, TableOptions{})
		var h []string
		for _, c := range g.cols {
			h = append(h, c.header)
		}
		return h
	}
	t.Run("minimal", func(t *testing.T) {
		assert.Equal(t, []string{"window", "n", "reps", "wall", "user", "kernel", "runqueue", "disk", "other", "|", "io-stall (system)"},
			headers(plain))
	})
	t.Run("spread only when some window ran in several processes", func(t *testing.T) {
		several := plain
		several.Name, several.Processes, several.WallNs = "BenchmarkW/b", 3, rundoctest.Stat(1000, 50, 900, 1200)
		h := headers(plain, several)
		assert.Equal(t, "range", h[4])
		g, _ := windowGrid([]rundoc.WindowSummary{plain, several}, nil, TableOptions{})
		assert.Equal(t, dash, g.cells[0][4], "one process: no spread")
		assert.Equal(t, "−10% +20%", g.cells[1][4], "the shortest and longest wall against the median")
		assert.Equal(t, summaryText([]rundoc.WindowSummary{plain, several}), windowNotes(rundoc.Document{WindowSummaries: []rundoc.WindowSummary{plain, several}}, nil, TableOptions{})[1])
		assert.Contains(t, summaryText([]rundoc.WindowSummary{plain, several}), "(with 3 processes, a 75% distribution-free confidence interval of the median process's wall)")
		for _, l := range windowNotes(rundoc.Document{WindowSummaries: []rundoc.WindowSummary{plain}}, nil, TableOptions{}) {
			assert.NotContains(t, l, "each value is the median", "no medians to explain with one process each")
		}
		five := several
		five.Name, five.Processes = "BenchmarkW/c", 5
		assert.Contains(t, summaryText([]rundoc.WindowSummary{plain, five, several, five}),
			"(a distribution-free confidence interval (75% with 3 processes, 93.75% with 5 processes) of the median process's wall)",
			"each process count its own confidence, once")
	})
	t.Run("mixed scopes", func(t *testing.T) {
		proc := plain
		proc.Scope = rundoc.ScopeProcess
		assert.Equal(t, "scope", headers(plain, proc)[2])
		for _, l := range windowNotes(rundoc.Document{WindowSummaries: []rundoc.WindowSummary{plain, proc}}, nil, TableOptions{}) {
			assert.NotContains(t, l, "scope:", "no common scope line when scopes differ")
		}
		assert.Equal(t, "scope: "+scopeText(rundoc.ScopeThread), windowNotes(rundoc.Document{WindowSummaries: []rundoc.WindowSummary{plain}}, nil, TableOptions{})[0])
		assert.Contains(t, scopeText(rundoc.ScopeMixed), "no component is summarized")
	})
	t.Run("other threads", func(t *testing.T) {
		threads := plain
		threads.OtherThreadsCPUNs = rundoctest.One(42)
		h := headers(plain, threads)
		assert.Equal(t, "other threads", h[10])
		g, notes := windowGrid([]rundoc.WindowSummary{plain, threads}, nil, TableOptions{})
		assert.Equal(t, dash, g.cells[0][10])
		assert.Equal(t, "42.00ns", g.cells[1][10])
		assert.Equal(t, "unavailable: other threads (no reason recorded)", g.cells[0][notes])
	})
}

// The range of n processes' walls covers the median process's with the
// coverage of the order statistics x(1) and x(n): the confidence
// stats.MedianInterval gives when it can do no better than the range.
func TestRangeConfidence(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{2, "50%"}, {3, "75%"}, {4, "87.5%"}, {5, "93.75%"}, {6, "96.87%"}, {10, "99.8%"}, {30, "99.99%"},
	} {
		t.Run(strconv.Itoa(tt.n), func(t *testing.T) {
			assert.Equal(t, tt.want, rangeConfidence(tt.n))
			xs := make([]float64, tt.n)
			for i := range xs {
				xs[i] = float64(i)
			}
			iv, ok := stats.MedianInterval(xs, 1)
			require.True(t, ok)
			require.Equal(t, []float64{0, float64(tt.n - 1)}, []float64{iv.Low, iv.High}, "the whole range")
			assert.Equal(t, math.Floor(iv.Confidence*1e4)/100, must(strconv.ParseFloat(strings.TrimSuffix(tt.want, "%"), 64)))
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestWindowName(t *testing.T) {
	tests := []struct {
		workload, name, want string
	}{
		{"BenchmarkIngest", "BenchmarkIngest", "BenchmarkIngest"},
		{"BenchmarkIngest", "#2", "BenchmarkIngest#2"},
		{"BenchmarkIngest", "BenchmarkIngest/parse", "BenchmarkIngest/parse"},
		{"BenchmarkIngest", "", "BenchmarkIngest"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, rundoc.Window{Workload: tt.workload, Name: tt.name}.LocalName())
		assert.Equal(t, tt.want, rundoc.WindowSummary{Workload: tt.workload, Name: tt.name}.LocalName())
	}
	w := rundoc.Window{Package: "a/ingest", Workload: "BenchmarkI", Name: "#3"}
	assert.Equal(t, "BenchmarkI#3", displayWindowName(w, packagePrefixes(tablePackages(nil, []rundoc.Window{w}))),
		"a single-package run needs no prefix")
	assert.Equal(t, "ingest.BenchmarkI#3", displayWindowName(w, packagePrefixes(tablePackages(
		[]rundoc.Row{{Package: "a/codec"}}, []rundoc.Window{w}))), "windows and rows share one set of packages")
}

func TestRegimeCell(t *testing.T) {
	tests := []struct {
		name   string
		regime *rundoc.WindowRegime
		want   string
	}{
		{"no prep", nil, dash},
		{"met", &rundoc.WindowRegime{Requested: "cold", Effective: "cold"}, "cold"},
		{"warm", &rundoc.WindowRegime{Requested: "warm", Effective: "warm"}, "warm"},
		{"steady", &rundoc.WindowRegime{Requested: "steady", Effective: "steady"}, "steady"},
		{"partial", &rundoc.WindowRegime{Requested: "cold", Effective: "partial"}, "cold→partial"},
		{"not evictable", &rundoc.WindowRegime{Requested: "cold", Effective: "not-evictable"}, "cold→not-evictable"},
		{"unverified", &rundoc.WindowRegime{Requested: "warm", Effective: "unverified"}, "warm→unverified"},
		{"no effective", &rundoc.WindowRegime{Requested: "cold"}, "cold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, regimeCell(tt.regime))
		})
	}
	assert.Equal(t, dash, regimesCell(nil))
	assert.Equal(t, "cold→not-evictable", regimesCell([]rundoc.WindowRegimeCount{{Requested: "cold", Effective: "not-evictable", Processes: []int{0, 1}}}))
	assert.Equal(t, "cold×2, cold→partial×1", regimesCell([]rundoc.WindowRegimeCount{
		{Requested: "cold", Effective: "cold", Processes: []int{0, 2}}, {Requested: "cold", Effective: "partial", Processes: []int{1}}}))
}

func TestWindowsBenchfmt(t *testing.T) {
	t.Run("windows only: an empty, valid stream", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteBenchfmt(&buf, rundoctest.Summarized(rundoctest.WindowsOnlyDoc())))
		assert.Empty(t, readBenchfmt(t, buf.Bytes()))
		assert.Zero(t, buf.Len())
	})
	t.Run("windows are not results", func(t *testing.T) {
		doc := rundoctest.Summarized(rundoctest.WindowDoc())
		var with, without bytes.Buffer
		require.NoError(t, WriteBenchfmt(&with, doc))
		doc.Windows, doc.WindowSummaries = nil, nil
		require.NoError(t, WriteBenchfmt(&without, doc))
		assert.Equal(t, without.String(), with.String())
		assert.Equal(t, wantResults(doc), readBenchfmt(t, with.Bytes()))
	})
}

// The table refuses a non-finite window total as the JSON writer does.
func TestWindowsTableRefusesNonFinite(t *testing.T) {
	doc := rundoctest.Summarized(rundoctest.WindowDoc())
	doc.Windows[2].Totals["tier0.syscr"] = math.NaN()
	assert.ErrorIs(t, WriteTable(&bytes.Buffer{}, doc, TableOptions{}), rundoc.ErrNonFinite)
}
