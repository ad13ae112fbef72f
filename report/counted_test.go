package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// tableText renders doc's table as plain text.
func tableText(t *testing.T, doc rundoc.Document) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
	return buf.String()
}

// verboseText renders doc's table as plain text under -v.
func verboseText(t *testing.T, doc rundoc.Document) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{Verbose: true}))
	return buf.String()
}

// tableLines returns the lines of a table's output from the one that starts
// with header up to the next blank line.
func tableLines(t *testing.T, out, header string) []string {
	t.Helper()
	var block []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case !in && strings.HasPrefix(l, header):
			in = true
			block = append(block, l)
		case in && l == "":
			return block
		case in:
			block = append(block, l)
		}
	}
	require.True(t, in, "no line starting with %q in\n%s", header, out)
	return block
}

// runeColumn returns the rune offset in line of the first occurrence of
// sub at or after rune offset from, or -1.
func runeColumn(line, sub string, from int) int {
	runes := []rune(line)
	if from > len(runes) {
		return -1
	}
	i := strings.Index(string(runes[from:]), sub)
	if i < 0 {
		return -1
	}
	return from + runeLen(string(runes[from:])[:i])
}

func TestTableCountedColumns(t *testing.T) {
	doc := rundoctest.CountedDoc()
	g, _ := gridOf(doc, doc.Rows, TableOptions{})
	var headers []string
	for _, c := range g.cols {
		headers = append(headers, c.header)
	}
	assert.Equal(t, []string{"benchmark", "n", "median/iter", "interval", "±within", "B/op", "allocs/op",
		"instr/op", "ipc", "task-clock/op", "minflt/op", "rchar/op"}, headers,
		"quantitative columns follow the metric units in Columns order; diagnostic ones are not headline columns")
}

func TestTableEstimateAlignment(t *testing.T) {
	doc := rundoctest.CountedDoc()
	// Two estimates in a count column, of different magnitudes.
	doc.Rows[0].Summary.EstimatedMetrics = []string{"minflt"}
	doc.Rows[1].Summary.EstimatedMetrics = []string{"task-clock", "minflt"}
	lines := tableLines(t, tableText(t, doc), "benchmark")
	header := lines[0]
	for _, col := range []string{"task-clock/op", "minflt/op"} {
		start := runeColumn(header, col, 0)
		require.GreaterOrEqual(t, start, 0)
		point := -1
		for _, l := range lines[1:] {
			cell := strings.Fields(string([]rune(l)[start-2:]))[0]
			at := runeColumn(l, cell, start-2)
			p := at + pointOffset(cell)
			if point < 0 {
				point = p
			}
			assert.Equal(t, point, p, "%s: cell %q has its point at %d, others at %d", col, cell, p, point)
		}
	}
	assert.Contains(t, lines[2], "≈1.555ms", "each value in the unit that keeps it readable")
	assert.Contains(t, lines[2], "≈1.234k")
	assert.Contains(t, lines[1], "≈0.0025")
	assert.NotContains(t, lines[3], "≈", "an exact value has no prefix")

	// The grid itself puts the points of ≈ cells in line with the others.
	cells, width := alignPoints([]string{"≈1.5", "123.25", "≈12", dash})
	for _, c := range cells {
		assert.Equal(t, width, runeLen(c))
		trimmed := strings.TrimSpace(c)
		p := runeLen(c) - runeLen(strings.TrimLeft(c, " ")) + pointOffset(trimmed)
		assert.Equal(t, 3, p, "cell %q", c)
	}
	assert.Equal(t, 2, pointOffset("≈1.5"))
	assert.Equal(t, 3, pointOffset("≈12k"))
}

func TestTableCountedEmDash(t *testing.T) {
	doc := rundoctest.CountedDoc()
	lines := tableLines(t, tableText(t, doc), "benchmark")
	scan := strings.Fields(lines[3])
	require.Equal(t, "BenchmarkScan", scan[0])
	// task-clock/op (never scheduled) is unavailable in this row;
	// minflt/op and rchar/op are not. instr/op and ipc (no PMU) have no
	// value in any row: no column at all.
	assert.Equal(t, []string{dash, "3", "4.500KiB"}, scan[len(scan)-3:])
	assert.NotContains(t, lines[0], "instr/op")
	assert.NotContains(t, lines[0], "ipc")
	for _, l := range lines {
		assert.NotContains(t, l, " 0ns", "an unavailable duration is never 0")
	}
	// A missing key renders as nil does.
	delete(doc.Rows[0].Summary.Counted, "minflt")
	doc.Rows[0].Absences = append(doc.Rows[0].Absences, rundoc.MetricAbsence{Metric: "minflt", Reason: "snapshot failed"})
	enc := strings.Fields(tableLines(t, tableText(t, doc), "benchmark")[1])
	assert.Equal(t, dash, enc[len(enc)-2])
}

func TestTableDiagnosticsBlock(t *testing.T) {
	t.Run("present with diagnostic columns, apart from the table", func(t *testing.T) {
		out := tableText(t, rundoctest.CountedDoc())
		block := tableLines(t, out, diagnosticsTitle)
		require.Len(t, block, 5)
		assert.Equal(t, []string{"benchmark", "ctx-sw/op", "maxrss"}, strings.Fields(block[1]))
		assert.Equal(t, []string{"BenchmarkScan", dash, "12.45MiB"}, strings.Fields(block[4]))
		main := tableLines(t, out, "benchmark ")
		assert.NotContains(t, main[0], "ctx-sw", "a diagnostic column is never a headline column")
		assert.NotContains(t, main[0], "maxrss")
		assert.Less(t, strings.Index(out, main[len(main)-1]), strings.Index(out, diagnosticsTitle), "the block follows the table")
	})
	t.Run("absent without diagnostic columns", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		quantitative, _ := splitColumns(doc.Columns)
		doc.Columns = quantitative
		assert.NotContains(t, tableText(t, doc), "diagnostics")
		assert.NotContains(t, tableText(t, rundoctest.GreenDoc()), "diagnostics")
	})
	t.Run("unknown class is never a headline", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Columns[3].Class = ""
		out := tableText(t, doc)
		assert.NotContains(t, tableLines(t, out, "benchmark ")[0], "minflt")
		assert.Contains(t, tableLines(t, out, diagnosticsTitle)[1], "minflt/op")
	})
	t.Run("only diagnostic columns", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		_, diagnostic := splitColumns(doc.Columns)
		doc.Columns = diagnostic
		doc.Meta.Sources = nil
		out := tableText(t, doc)
		assert.NotContains(t, tableLines(t, out, "benchmark ")[0], "ctx-sw")
		assert.Contains(t, out, diagnosticsTitle)
	})
}

func TestTableSourceHeaderLines(t *testing.T) {
	headerOf := func(doc rundoc.Document, verbose bool) []string {
		out := tableText(t, doc)
		if verbose {
			out = verboseText(t, doc)
		}
		head, _, _ := strings.Cut(out, "\n\n")
		var lines []string
		for _, l := range strings.Split(head, "\n")[2:] { // after host and containment
			if !strings.HasPrefix(l, "build: ") && !strings.HasPrefix(l, "warning: the measured build") && !strings.HasPrefix(l, "interval: ") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	header := func(doc rundoc.Document) []string { return headerOf(doc, true) }
	t.Run("quiet: one short line names what has no column", func(t *testing.T) {
		assert.Equal(t, []string{
			"no column: instructions, ipc (perf-hw unavailable); -v says why",
			"perf-sw: user-mode counting only (kernel excluded: perf_event_paranoid=2)",
		}, headerOf(rundoctest.CountedDoc(), false), "no counting line, the source's reason behind -v")
	})
	t.Run("quiet: the gist of a per-row reason when no source explains it", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Meta.Sources = doc.Meta.Sources[1:] // perf-hw's report gone: the rows' absences say why
		for i := range doc.Rows {
			doc.Rows[i].Absences = slices.DeleteFunc(doc.Rows[i].Absences, func(a rundoc.MetricAbsence) bool {
				return a.Metric == "instructions" || a.Metric == "ipc"
			})
			doc.Rows[i].Absences = append(doc.Rows[i].Absences,
				rundoc.MetricAbsence{Metric: "instructions", Reason: "not counted by default: 2 pairs of runs would take more than 25% of the 23.2ms this process timed"},
				rundoc.MetricAbsence{Metric: "ipc", Reason: "not counted by default: 2 pairs of runs would take more than 25% of the 23.2ms this process timed"})
		}
		got := headerOf(doc, false)
		require.NotEmpty(t, got)
		assert.Equal(t, "no column: instructions, ipc (not counted by default); -v says why", got[0])
		assert.NotContains(t, tableText(t, doc), "23.2ms", "the full reason is behind -v")
		assert.Contains(t, verboseText(t, doc), "instructions, ipc: not counted by default: 2 pairs of runs")
	})
	t.Run("quiet: a source's metrics that never were columns are named too", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		// The default set less what this host cannot count: perf-hw's
		// report is there, its metrics are not columns.
		doc.Columns = withoutColumns(doc.Columns, []string{"instructions", "ipc"})
		doc.Meta.Sources[0].Absences[0].Metrics = []string{"instructions", "cycles", "ipc", "branches", "branch-misses"}
		for i := range doc.Rows {
			doc.Rows[i].Absences = slices.DeleteFunc(doc.Rows[i].Absences, func(a rundoc.MetricAbsence) bool {
				return a.Metric == "instructions" || a.Metric == "ipc"
			})
		}
		assert.Equal(t, "no column: instructions, cycles, ipc, 2 more (perf-hw unavailable); -v says why", headerOf(doc, false)[0])
		assert.Equal(t, "perf-hw: unavailable: no hardware PMU: /sys/bus/event_source/devices has no cpu; not measured: instructions, cycles, ipc, branches, branch-misses",
			headerOf(doc, true)[0])
	})
	t.Run("golden sources", func(t *testing.T) {
		assert.Equal(t, []string{
			"perf-hw: unavailable: no hardware PMU: /sys/bus/event_source/devices has no cpu; not measured: instructions, ipc",
			"perf-sw: user-mode counting only (kernel excluded: perf_event_paranoid=2)",
			"counting: 1000 iterations, difference of runs at 1000 and 2000 iterations",
		}, header(rundoctest.CountedDoc()))
	})
	t.Run("prefixed states are not prefixed twice, and print once", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Meta.Sources[1].Degraded = []string{"perf-sw: user-mode counting only", "group trimmed", "perf-sw: user-mode counting only"}
		doc.Meta.Sources[0].Status = "no PMU"
		got := header(doc)
		assert.Equal(t, "perf-hw: unavailable: no PMU; not measured: instructions, ipc", got[0])
		assert.Equal(t, []string{"perf-sw: user-mode counting only", "perf-sw: group trimmed"}, got[1:3])
	})
	t.Run("unavailable source without absences names its columns", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Meta.Sources[0].Absences = nil
		doc.Meta.Sources[0].Status = ""
		assert.Equal(t, "perf-hw: unavailable; not measured: instructions, ipc", header(doc)[0])
	})
	t.Run("absent capability of an available source", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Meta.Sources[2].Absences = []rundoc.SourceAbsence{{Capability: "io-accounting", Metrics: []string{"rchar"},
			Reason: "/proc/self/io: permission denied"}}
		assert.Contains(t, header(doc), "tier0: io-accounting unavailable: /proc/self/io: permission denied; not measured: rchar")
	})
	t.Run("no sources, no lines", func(t *testing.T) {
		assert.Empty(t, header(rundoctest.GreenDoc()), "only the build lines")
	})
	t.Run("colored as warnings", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, rundoctest.CountedDoc(), TableOptions{Color: true}))
		assert.Contains(t, buf.String(), "\x1b[33mno column: instructions")
		buf.Reset()
		require.NoError(t, WriteTable(&buf, rundoctest.CountedDoc(), TableOptions{Color: true, Verbose: true}))
		assert.Contains(t, buf.String(), "\x1b[33mperf-hw: unavailable")
	})
}

func TestTableNotesBlock(t *testing.T) {
	notesIn := func(out string) []string {
		if !strings.Contains(out, "\nnotes\n") {
			return nil
		}
		return tableLines(t, out, "notes")[1:]
	}
	notes := func(doc rundoc.Document) []string { return notesIn(tableText(t, doc)) }
	verboseNotes := func(doc rundoc.Document) []string { return notesIn(verboseText(t, doc)) }
	t.Run("per-row absences not explained by a source", func(t *testing.T) {
		assert.Equal(t, []string{
			"  BenchmarkScan: task-clock: not counted: the counter group never got the PMU (time_running was 0)",
			"  BenchmarkScan: context-switches: not counted in process 1: the counter group never got the PMU (time_running was 0)",
		}, notes(rundoctest.CountedDoc()), "instructions and ipc are explained by the perf-hw line")
	})
	t.Run("no notes when every dash is explained", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Rows = doc.Rows[:2]
		assert.Nil(t, notes(doc))
		assert.Nil(t, notes(rundoctest.GreenDoc()))
	})
	t.Run("a dash without any reason says so", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Rows[2].Absences = doc.Rows[2].Absences[:2]
		assert.Equal(t, []string{
			"  BenchmarkScan: task-clock: unavailable (no reason recorded)",
			"  BenchmarkScan: context-switches: unavailable (no reason recorded)",
		}, notes(doc))
	})
	t.Run("absences of an unmeasured row are left to its notes cell", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Rows[2].Outcome = "exit"
		doc.Rows[2].Error = rundoctest.Str("exit status 2")
		assert.Nil(t, notes(doc))
	})
	t.Run("counting passes that differ are noted per row", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Rows[1].CountIterations = rundoctest.I64(20)
		doc.Rows[1].CountMethod = "one run"
		doc.Rows = doc.Rows[:2]
		out := verboseText(t, doc)
		assert.NotContains(t, out, "\ncounting:")
		assert.Equal(t, []string{
			"  BenchmarkEncode/size=1K: counting: 1000 iterations, difference of runs at 1000 and 2000 iterations",
			"  BenchmarkDecode: counting: 20 iterations, one run",
		}, verboseNotes(doc))
		assert.Nil(t, notes(doc), "counting passes are described only under -v")
	})
	t.Run("rows without a pass do not break agreement", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Rows[2].CountIterations, doc.Rows[2].CountMethod = nil, ""
		assert.Contains(t, verboseText(t, doc), "\ncounting: 1000 iterations, difference of runs")
		assert.NotContains(t, tableText(t, doc), "counting:")
	})
}

func TestFormatCounted(t *testing.T) {
	tests := []struct {
		v      float64
		format string
		want   string
	}{
		{0, rundoc.FormatCount, "0"},
		{233, rundoc.FormatCount, "233"},
		{233.37, rundoc.FormatCount, "233.4"},
		{0.0025, rundoc.FormatCount, "0.0025"},
		{999.96, rundoc.FormatCount, "1.000k"},
		{3520, rundoc.FormatCount, "3.520k"},
		{12_345_678, rundoc.FormatCount, "12.35M"},
		{2.5e9, rundoc.FormatCount, "2.500G"},
		{-4200, rundoc.FormatCount, "-4.200k"},
		{2.4137, rundoc.FormatRatio, "2.41"},
		{0.875, rundoc.FormatRatio, "0.875"},
		{0, rundoc.FormatBytes, "0B"},
		{512, rundoc.FormatBytes, "512B"},
		{12.5, rundoc.FormatBytes, "12.5B"},
		{65536, rundoc.FormatBytes, "64.00KiB"},
		{1.5 * (1 << 20), rundoc.FormatBytes, "1.500MiB"},
		{3 << 30, rundoc.FormatBytes, "3.000GiB"},
		{1234, rundoc.FormatDuration, "1.234µs"},
		{1.5e6, rundoc.FormatDuration, "1.500ms"},
		{42.5, "unknown", "42.5"},
	}
	for _, tt := range tests {
		t.Run(tt.format+"/"+tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, formatCounted(tt.v, tt.format))
		})
	}
}

func TestWriteJSONCounted(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, rundoctest.CountedDoc()))
	var doc struct {
		Columns []map[string]any `json:"columns"`
		Meta    struct {
			Sources []map[string]any `json:"sources"`
		} `json:"meta"`
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Len(t, doc.Columns, 7)
	assert.Equal(t, "diagnostic", doc.Columns[5]["class"])
	assert.Equal(t, []any{}, doc.Meta.Sources[2]["absences"], "a source's collections are arrays")

	scan := doc.Rows[2]
	counted := scan["summary"].(map[string]any)["counted"].(map[string]any)
	v, ok := counted["task-clock"]
	assert.True(t, ok, "an unavailable counted metric keeps its key")
	assert.Nil(t, v, "and is null, never 0")
	assert.Equal(t, 3.0, counted["minflt"])
	assert.Len(t, scan["absences"], 4)
	assert.Equal(t, 1000.0, scan["countIterations"])
	decode := doc.Rows[1]["summary"].(map[string]any)
	assert.Equal(t, []any{"task-clock"}, decode["estimatedMetrics"])
	assert.NotContains(t, doc.Rows[0]["summary"], "estimatedMetrics", "absent when every value is exact")

	t.Run("a counted object has a key for every column", func(t *testing.T) {
		in := rundoctest.CountedDoc()
		in.Rows[0].Summary.Counted = nil
		buf.Reset()
		require.NoError(t, rundoc.WriteJSON(&buf, in))
		require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
		counted := doc.Rows[0]["summary"].(map[string]any)["counted"].(map[string]any)
		assert.Len(t, counted, 7)
		assert.Nil(t, in.Rows[0].Summary.Counted, "the input is not modified")
	})
	t.Run("empty collections are arrays and objects", func(t *testing.T) {
		buf.Reset()
		require.NoError(t, rundoc.WriteJSON(&buf, rundoc.Document{Meta: rundoc.Meta{Sources: []rundoc.SourceReport{{Source: "x"}}},
			Rows: []rundoc.Row{{Summary: &rundoc.Summary{}}}}))
		out := buf.String()
		assert.Contains(t, out, `"columns": []`)
		assert.Contains(t, out, `"degraded": []`)
		assert.Contains(t, out, `"counted": {}`)
	})
	t.Run("non-finite counted values are refused", func(t *testing.T) {
		in := rundoctest.CountedDoc()
		in.Rows[1].Summary.Counted["minflt"] = new(math.Inf(1))
		err := rundoc.WriteJSON(&bytes.Buffer{}, in)
		assert.ErrorIs(t, err, rundoc.ErrNonFinite)
		assert.ErrorContains(t, err, `rows[1].summary.counted["minflt"] is +Inf`)
		in = rundoctest.CountedDoc()
		in.Rows[0].Processes[1].Counted["rchar"] = math.NaN()
		assert.ErrorContains(t, rundoc.WriteJSON(&bytes.Buffer{}, in), `rows[0].processes[1].counted["rchar"] is NaN`)
	})
}

func TestWriteBenchfmtCounted(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteBenchfmt(&buf, rundoctest.CountedDoc()))
	got := readBenchfmt(t, buf.Bytes())
	require.Len(t, got, 18)
	enc, dec0, dec1, scan1 := got[0], got[6], got[9], got[15]

	assert.Equal(t, 1236.4, enc.values["task-clock/op"], "a per-iteration metric's unit is <name>/op")
	assert.Equal(t, 12_345_678.0, enc.values["maxrss"], "a level's unit is its name")
	assert.Equal(t, 0.0, enc.values["rchar/op"], "a measured 0 is written")
	assert.NotContains(t, enc.values, "instructions/op", "an unavailable metric is not written")
	assert.NotContains(t, enc.config, ConfigEstimated)
	assert.Equal(t, "context-switches,maxrss", enc.config[ConfigDiagnostic])

	assert.NotContains(t, dec0.config, ConfigEstimated)
	assert.Equal(t, "task-clock", dec1.config[ConfigEstimated], "an estimate is named, its unit unchanged")
	assert.Equal(t, 1.592e6, dec1.values["task-clock/op"])

	assert.NotContains(t, scan1.config, ConfigEstimated, "the key is deleted for the next process")
	assert.NotContains(t, scan1.values, "context-switches/op", "a metric this process lacks is skipped")
	assert.Equal(t, 3.0, scan1.values["minflt/op"])

	t.Run("a counted metric without a column is an error", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Rows[0].Processes[0].Counted["cycles"] = 1
		assert.ErrorContains(t, WriteBenchfmt(&bytes.Buffer{}, doc), `counted metric "cycles" is not among the document's columns`)
	})
	t.Run("a counted unit clashing with a reported unit is an error", func(t *testing.T) {
		doc := rundoctest.CountedDoc()
		doc.Rows[0].Processes[0].Samples[0].Extra = map[string]float64{"minflt/op": 7}
		assert.ErrorContains(t, WriteBenchfmt(&bytes.Buffer{}, doc), `"minflt/op" is also a reported unit`)
	})
}

// notesOf returns a table's notes block, without its indentation.
func notesOf(t *testing.T, doc rundoc.Document) []string {
	t.Helper()
	out := tableText(t, doc)
	if !strings.Contains(out, "\nnotes\n") {
		return nil
	}
	var notes []string
	for _, l := range tableLines(t, out, "notes")[1:] {
		notes = append(notes, strings.TrimPrefix(l, "  "))
	}
	return notes
}

func TestTableCountedUncertainty(t *testing.T) {
	tests := []struct {
		name        string
		row         int
		uncertainty map[string]float64
		wantNotes   []string // besides the fixture's own
		wantCells   map[string]string
	}{
		{name: "small uncertainties stay in the JSON", row: 1,
			uncertainty: map[string]float64{"task-clock": 0.1e6, "minflt": 10, "maxrss": 1 << 20},
			wantCells:   map[string]string{"task-clock/op": "≈1.555ms", "minflt/op": "1.234k"}},
		{name: "a large one is noted, with its share", row: 1,
			uncertainty: map[string]float64{"task-clock": 0.3e6},
			wantNotes:   []string{"BenchmarkDecode: task-clock/op 1.555ms ± 300.0µs (±19%)"},
			wantCells:   map[string]string{"task-clock/op": "≈1.555ms"}},
		{name: "a value its uncertainty reaches is below the noise: a dash, never a number", row: 0,
			uncertainty: map[string]float64{"minflt": 0.004, "task-clock": 1},
			wantNotes:   []string{"BenchmarkEncode/size=1K: minflt: below the noise: 0.0025 ± 0.004 per iteration, which includes 0"},
			wantCells:   map[string]string{"minflt/op": dash, "task-clock/op": "1.244µs"}},
		{name: "a level is never below the noise", row: 2,
			uncertainty: map[string]float64{"maxrss": 20 << 20},
			wantNotes:   []string{"BenchmarkScan: maxrss 12.45MiB ± 20.00MiB (±161%)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := rundoctest.CountedDoc()
			base := notesOf(t, doc)
			doc.Rows[tt.row].Summary.Uncertainty = tt.uncertainty
			notes := notesOf(t, doc)
			var added []string
			for _, n := range notes {
				if !slices.Contains(base, n) {
					added = append(added, n)
				}
			}
			assert.Equal(t, tt.wantNotes, added)
			out := tableText(t, doc)
			if len(tt.wantNotes) > 0 {
				assert.Contains(t, out, "\ncounted ±: half the range of a counting pass's repeated measurements, or of the processes' values where wider; noted below where over 10% of the value\n")
			} else {
				assert.NotContains(t, out, "counted ±")
			}
			lines := tableLines(t, out, "benchmark ")
			header := lines[0]
			for col, want := range tt.wantCells {
				start := runeColumn(header, col, 0)
				require.GreaterOrEqual(t, start, 0, col)
				// The cell that ends under the header's end (decimal
				// alignment may start it earlier).
				cells := strings.Fields(string([]rune(lines[1+tt.row])[start-2:]))
				assert.Equal(t, want, cells[0], "%s of row %d", col, tt.row)
			}
		})
	}
}

func TestSameEventNote(t *testing.T) {
	cols := []rundoc.Column{
		{Name: "page-faults", Header: "faults", Unit: "/op", Format: rundoc.FormatCount},
		{Name: "minflt", Header: "minflt", Unit: "/op", Format: rundoc.FormatCount},
		{Name: "majflt", Header: "majflt", Unit: "/op", Format: rundoc.FormatCount},
	}
	explain := ": one kernel event counted by perf-sw and by getrusage over the same brackets; they differ by what only one counts:"
	tests := []struct {
		name    string
		counted map[string]float64
		unc     map[string]float64
		cols    []rundoc.Column
		want    string
	}{
		{name: "equal", counted: map[string]float64{"page-faults": 20.3, "minflt": 20.3, "majflt": 0}},
		{name: "within their uncertainties", counted: map[string]float64{"page-faults": 4.444, "minflt": 4.1, "majflt": 0},
			unc: map[string]float64{"page-faults": 0.2, "minflt": 0.2}},
		{name: "beyond them (issue #9: 4.444 vs 2.667)", counted: map[string]float64{"page-faults": 4.444, "minflt": 2.667, "majflt": 0},
			unc:  map[string]float64{"page-faults": 0.5, "minflt": 0.5},
			want: "faults/op 4.444 vs minflt/op 2.667 + majflt/op 0" + explain},
		{name: "majflt makes up the difference", counted: map[string]float64{"page-faults": 10, "minflt": 7, "majflt": 3}},
		{name: "majflt not selected", counted: map[string]float64{"page-faults": 10, "minflt": 7}, cols: cols[:2],
			want: "faults/op 10 vs minflt/op 7 (majflt not selected)" + explain},
		{name: "one below the noise: nothing to compare", counted: map[string]float64{"page-faults": 0.1, "minflt": 7},
			unc: map[string]float64{"page-faults": 0.5}},
		{name: "one missing", counted: map[string]float64{"minflt": 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &rundoc.Summary{Counted: map[string]*float64{}, Uncertainty: tt.unc}
			for m, v := range tt.counted {
				s.Counted[m] = new(v)
			}
			c := tt.cols
			if c == nil {
				c = cols
			}
			got := sameEventNote(s, c)
			if tt.want == "" {
				assert.Empty(t, got)
			} else {
				assert.True(t, strings.HasPrefix(got, tt.want), "%q", got)
			}
		})
	}
}

func TestTableAbsencesOfOneReasonNotedOnce(t *testing.T) {
	doc := rundoctest.CountedDoc()
	why := "not counted: the counter group never got the PMU (time_running was 0)"
	for _, m := range []string{"task-clock", "minflt", "rchar"} {
		doc.Rows[1].Summary.Counted[m] = nil
		doc.Rows[1].Absences = append(doc.Rows[1].Absences, rundoc.MetricAbsence{Metric: m, Reason: why})
	}
	assert.Contains(t, notesOf(t, doc), "BenchmarkDecode: task-clock, minflt, rchar: "+why)
}

// TestTableBudgetSkipsNotedOncePerRun: the default counting budget's
// skips, whose sentence each row words with its own numbers, are said
// once for the run, with how many rows they touch; -v keeps each row's.
func TestTableBudgetSkipsNotedOncePerRun(t *testing.T) {
	doc := rundoctest.CountedDoc()
	whys := []string{
		"not counted by default: a run of this benchmark costs 6.39ms beyond its iterations (1.2µs), so 3 pairs of runs would take more than 25% of the 180ms this process timed; pin --perf-iters to count it",
		"not counted by default: 3 pairs of runs at 2 and 4 iterations would add 27% to the 90 iterations this process timed (the cap is 25%); --perf-iters=2 counts it",
	}
	for i, why := range whys {
		for _, m := range []string{"minflt", "rchar"} {
			doc.Rows[i].Summary.Counted[m] = nil
			doc.Rows[i].Absences = append(doc.Rows[i].Absences, rundoc.MetricAbsence{Metric: m, Reason: why})
		}
	}
	notes := notesOf(t, doc)
	once := "minflt, rchar: not counted by default in 2 of 3 rows: counting would take more than its share of the time each process measured (pin --perf-iters to count it; -v gives each row's reason)"
	assert.Contains(t, notes, once)
	for _, n := range notes {
		assert.NotContains(t, n, "6.39ms", "a row's own budget sentence is for -v")
		assert.NotContains(t, n, "27%")
	}
	verbose := verboseText(t, doc)
	assert.NotContains(t, verbose, once, "-v gives each row's reason instead")
	assert.Contains(t, verbose, "BenchmarkEncode/size=1K: minflt, rchar: "+whys[0])
	assert.Contains(t, verbose, "BenchmarkDecode: minflt, rchar: "+whys[1])
}

func TestWriteJSONCountedUncertainty(t *testing.T) {
	doc := rundoctest.CountedDoc()
	doc.Rows[1].Summary.Uncertainty = map[string]float64{"task-clock": 1234.5}
	doc.Rows[1].Processes[0].Uncertainty = map[string]float64{"task-clock": 1000}
	doc.Rows[1].Processes[0].CountedNotes = map[string]string{"task-clock": "the median empty bracket was subtracted"}
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, doc))
	var got struct {
		Rows []struct {
			Summary struct {
				Uncertainty map[string]float64 `json:"uncertainty"`
			} `json:"summary"`
			Processes []map[string]any `json:"processes"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	assert.Equal(t, map[string]float64{"task-clock": 1234.5}, got.Rows[1].Summary.Uncertainty, "next to the value, in its unit")
	assert.Equal(t, map[string]any{"task-clock": 1000.0}, got.Rows[1].Processes[0]["uncertainty"])
	assert.Equal(t, map[string]any{"task-clock": "the median empty bracket was subtracted"}, got.Rows[1].Processes[0]["countedNotes"])
	assert.Nil(t, got.Rows[0].Summary.Uncertainty, "absent where no process reported one")
	assert.NotContains(t, got.Rows[1].Processes[1], "uncertainty")
}
