package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWindowsGolden(t *testing.T) {
	tests := []struct {
		name string
		doc  Document
	}{
		{"windows", windowDoc()},
		{"windows-only", windowsOnlyDoc()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var table bytes.Buffer
			require.NoError(t, WriteTable(&table, tt.doc, TableOptions{}))
			golden(t, tt.name+".table", table.Bytes())
			assert.NotContains(t, table.String(), "\x1b", "the zero TableOptions writes plain text")

			var first, second bytes.Buffer
			require.NoError(t, WriteJSON(&first, tt.doc))
			require.NoError(t, WriteJSON(&second, tt.doc))
			assert.Equal(t, first.String(), second.String(), "output is deterministic")
			golden(t, tt.name+".json", first.Bytes())

			var back Document
			require.NoError(t, json.Unmarshal(first.Bytes(), &back))
			assert.Equal(t, normalize(tt.doc).Windows, back.Windows, "every window round-trips, nil durations staying nil")
		})
	}
}

// windowLines returns the windows table's header and rows from the table
// WriteTable writes for doc.
func windowLines(t *testing.T, doc Document) (header string, rows []string) {
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
	doc := windowDoc()
	header, rows := windowLines(t, doc)
	require.Len(t, rows, len(doc.Windows), "one line per window, none dropped")

	t.Run("columns", func(t *testing.T) {
		g, notes := windowGrid(doc.Windows, nil, TableOptions{})
		var got []string
		for _, c := range g.cols {
			got = append(got, c.header)
		}
		assert.Equal(t, []string{"window", "proc", "reps", "wall", "user", "kernel", "runqueue", "disk", "other",
			"|", "other threads", "io-stall (system)", "regime", "notes"}, got)
		assert.Equal(t, len(g.cols)-1, notes)
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
		// BenchmarkIngest/parse process 0: runqueue and disk are nil;
		// its other threads and io stall are measured zeros.
		f := fieldsOf(rows[1])
		require.Equal(t, "ingest.BenchmarkIngest/parse", f[0])
		// window proc reps wall user kernel runqueue disk other | threads io regime notes…
		assert.Equal(t, []string{"0", "3", "45.68ms", "40.12ms", "2.346ms", dash, dash, "3.210ms", "|", "0ns", "0ns", dash}, f[1:13])
		// BenchmarkCompact#2 has no PSI reading and no note.
		f = fieldsOf(rows[6])
		require.Equal(t, "ingest.BenchmarkCompact#2", f[0])
		assert.Equal(t, dash, f[7], "disk")
		assert.Equal(t, dash, f[11], "io-stall")
		assert.Contains(t, rows[6], "unavailable: disk, io-stall (no reason recorded)", "an em dash never stands without a reason")
	})

	t.Run("error and skip windows", func(t *testing.T) {
		for _, i := range []int{3, 4} {
			f := fieldsOf(rows[i])
			for c := 2; c <= 11; c++ {
				if c == 9 {
					assert.Equal(t, "|", f[c])
					continue
				}
				assert.Equal(t, dash, f[c], "%s: cell %d", f[0], c)
			}
		}
		assert.Contains(t, rows[3], "warm  ", "the regime stamp predates the window and is kept")
		assert.Contains(t, rows[3], "error: benchmark-failure: panic")
		assert.Contains(t, rows[4], "skipped: no replay corpus in testdata/replay")
	})

	t.Run("regime", func(t *testing.T) {
		assert.Contains(t, rows[2], " cold→partial ")
		assert.Equal(t, "cold", fieldsOf(rows[0])[12])
	})

	t.Run("decimal points line up", func(t *testing.T) {
		g, _ := windowGrid(doc.Windows, nil, TableOptions{})
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

	t.Run("window notes give what the cells cut", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
		out := buf.String()
		assert.Contains(t, out, "\nwindow notes\n  scope: thread ")
		assert.Contains(t, out, "  ingest.BenchmarkIngest/parse (proc 0): runqueue: /proc/thread-self/schedstat unreadable: permission denied; disk:")
		assert.Contains(t, out, "  ingest.BenchmarkIngest (proc 1): regime cold→partial: 412.0KiB of 16.00MiB resident after the prep (16.00MiB before); pages mapped")
		assert.Contains(t, out, "index out of range [3] with length 3\n      goroutine 9 [running]:\n")
		assert.NotContains(t, out, "BenchmarkIngest (proc 0): regime", "a regime that met its request needs no note")
	})

	t.Run("order: benchmark table, windows, then error blocks", func(t *testing.T) {
		doc := windowDoc()
		doc.Rows = append(doc.Rows, errorDoc().Rows[1])
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
		out := buf.String()
		b, w, f := strings.Index(out, "benchmark "), strings.Index(out, "\nwindows\n"), strings.Index(out, "--- FAIL")
		assert.True(t, b >= 0 && b < w && w < f, "order of %d, %d, %d", b, w, f)
	})

	t.Run("color", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{Color: true}))
		assert.Contains(t, buf.String(), "\x1b[1mwindow ")
		assert.Contains(t, buf.String(), "\x1b[31merror: ")
		assert.NotContains(t, buf.String(), "\x1b[31mskipped")
	})

	t.Run("notes are capped", func(t *testing.T) {
		g, notes := windowGrid(doc.Windows, nil, TableOptions{NoteWidth: 20})
		for _, row := range g.cells {
			assert.LessOrEqual(t, runeLen(row[notes]), 20)
		}
	})
}

func TestWindowsOnly(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, windowsOnlyDoc(), TableOptions{}))
	out := buf.String()
	assert.NotContains(t, out, "no benchmark results")
	assert.NotContains(t, out, "benchmark ", "no empty benchmark table")
	assert.True(t, strings.HasPrefix(out, "goos: "))
	assert.Regexp(t, `containment: cgroup\nbuild: [^\n]*\n\nwindows\nwindow `, out)
}

func TestWindowsOptionalColumns(t *testing.T) {
	plain := Window{Package: "p", Workload: "BenchmarkW", Name: "BenchmarkW", Reps: 1, WallNs: 1000, Scope: ScopeThread,
		OnCPUUserNs: i64(500), OnCPUKernelNs: i64(100), OffCPURunqueueNs: i64(100), OffCPUDiskNs: i64(100), OffCPUOtherNs: i64(200),
		PSI: &WindowPSI{Scope: "system", IOSomeNs: 7}}
	headers := func(ws ...Window) []string {
		g, _ := windowGrid(ws, nil, TableOptions{})
		var h []string
		for _, c := range g.cols {
			h = append(h, c.header)
		}
		return h
	}
	t.Run("minimal", func(t *testing.T) {
		assert.Equal(t, []string{"window", "reps", "wall", "user", "kernel", "runqueue", "disk", "other", "|", "io-stall (system)"},
			headers(plain))
	})
	t.Run("one process per workload has no proc column", func(t *testing.T) {
		other := plain
		other.Workload, other.Name, other.Process = "BenchmarkV", "BenchmarkV", 1
		assert.NotContains(t, headers(plain, other), "proc")
		again := plain
		again.Process = 1
		assert.Contains(t, headers(plain, again), "proc")
	})
	t.Run("mixed scopes", func(t *testing.T) {
		proc := plain
		proc.Scope = ScopeProcess
		assert.Equal(t, "scope", headers(plain, proc)[1])
		for _, l := range windowNotes([]Window{plain, proc}, nil, TableOptions{}) {
			assert.NotContains(t, l, "scope:", "no common scope line when scopes differ")
		}
		assert.Equal(t, "scope: "+scopeText(ScopeThread), windowNotes([]Window{plain}, nil, TableOptions{})[0])
	})
	t.Run("other threads", func(t *testing.T) {
		threads := plain
		threads.OtherThreadsCPUNs = i64(42)
		h := headers(plain, threads)
		assert.Equal(t, "other threads", h[9])
		g, notes := windowGrid([]Window{plain, threads}, nil, TableOptions{})
		assert.Equal(t, dash, g.cells[0][9])
		assert.Equal(t, "42.00ns", g.cells[1][9])
		assert.Equal(t, "unavailable: other threads (no reason recorded)", g.cells[0][notes])
	})
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
		assert.Equal(t, tt.want, windowName(Window{Workload: tt.workload, Name: tt.name}))
	}
	w := Window{Package: "a/ingest", Workload: "BenchmarkI", Name: "#3"}
	assert.Equal(t, "BenchmarkI#3", displayWindowName(w, packagePrefixes(tablePackages(nil, []Window{w}))),
		"a single-package run needs no prefix")
	assert.Equal(t, "ingest.BenchmarkI#3", displayWindowName(w, packagePrefixes(tablePackages(
		[]Row{{Package: "a/codec"}}, []Window{w}))), "windows and rows share one set of packages")
}

func TestRegimeCell(t *testing.T) {
	tests := []struct {
		name   string
		regime *WindowRegime
		want   string
	}{
		{"no prep", nil, dash},
		{"met", &WindowRegime{Requested: "cold", Effective: "cold"}, "cold"},
		{"warm", &WindowRegime{Requested: "warm", Effective: "warm"}, "warm"},
		{"steady", &WindowRegime{Requested: "steady", Effective: "steady"}, "steady"},
		{"partial", &WindowRegime{Requested: "cold", Effective: "partial"}, "cold→partial"},
		{"unverified", &WindowRegime{Requested: "warm", Effective: "unverified"}, "warm→unverified"},
		{"no effective", &WindowRegime{Requested: "cold"}, "cold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, regimeCell(tt.regime))
		})
	}
}

func TestWindowsJSON(t *testing.T) {
	t.Run("windowless documents keep their bytes", func(t *testing.T) {
		for _, doc := range []Document{greenDoc(), errorDoc(), countedDoc(), {}} {
			var nilWindows, emptyWindows bytes.Buffer
			require.NoError(t, WriteJSON(&nilWindows, doc))
			doc.Windows = []Window{}
			require.NoError(t, WriteJSON(&emptyWindows, doc))
			assert.Equal(t, nilWindows.String(), emptyWindows.String())
			assert.NotContains(t, nilWindows.String(), `"windows"`)
		}
	})
	t.Run("nulls and objects", func(t *testing.T) {
		doc := windowDoc()
		doc.Windows[6].Totals = nil
		var buf bytes.Buffer
		require.NoError(t, WriteJSON(&buf, doc))
		var got struct {
			Windows []map[string]any `json:"windows"`
		}
		require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
		require.Len(t, got.Windows, len(doc.Windows))
		parse := got.Windows[1]
		for _, k := range []string{"offCpuRunqueueNs", "offCpuDiskNs"} {
			v, ok := parse[k]
			assert.True(t, ok, "%s keeps its key", k)
			assert.Nil(t, v, "%s is null, never 0", k)
		}
		assert.Equal(t, 0.0, parse["otherThreadsCpuNs"], "a measured zero stays 0")
		assert.Equal(t, map[string]any{}, got.Windows[6]["totals"], "totals are always an object")
		assert.Equal(t, "system", got.Windows[0]["psi"].(map[string]any)["scope"])
		assert.NotContains(t, got.Windows[6], "psi", "psi is absent without a reading")
		assert.NotContains(t, got.Windows[6], "regime", "regime is absent without a prep")
		assert.Equal(t, "partial", got.Windows[2]["regime"].(map[string]any)["effective"])
		assert.Contains(t, got.Windows[3], "regime", "an error window keeps its regime stamp")
		assert.Nil(t, doc.Windows[6].Totals, "the caller's document is untouched")
	})
	t.Run("non-finite totals are refused", func(t *testing.T) {
		doc := windowDoc()
		doc.Windows[2].Totals["tier0.syscr"] = math.NaN()
		var buf bytes.Buffer
		err := WriteJSON(&buf, doc)
		assert.ErrorIs(t, err, ErrNonFinite)
		assert.ErrorContains(t, err, `windows[2].totals["tier0.syscr"] is NaN`)
		assert.Zero(t, buf.Len(), "no partial document")
		assert.ErrorIs(t, WriteTable(&bytes.Buffer{}, doc, TableOptions{}), ErrNonFinite)
	})
}

func TestWindowsBenchfmt(t *testing.T) {
	t.Run("windows only: an empty, valid stream", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteBenchfmt(&buf, windowsOnlyDoc()))
		assert.Empty(t, readBenchfmt(t, buf.Bytes()))
		assert.Zero(t, buf.Len())
	})
	t.Run("windows are not results", func(t *testing.T) {
		doc := windowDoc()
		var with, without bytes.Buffer
		require.NoError(t, WriteBenchfmt(&with, doc))
		doc.Windows = nil
		require.NoError(t, WriteBenchfmt(&without, doc))
		assert.Equal(t, without.String(), with.String())
		assert.Equal(t, wantResults(doc), readBenchfmt(t, with.Bytes()))
	})
}
