package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// The documented fixed columns, written out here so that a change to the
// output's contract fails a test.
var (
	wantWideFixed = []string{"package", "name", "kind", "build", "outcome", "error", "skipped",
		"processes", "samples", "iterations", "median_ns", "ci_low_ns", "ci_high_ns", "ci_confidence",
		"within_mad_ns", "min_ns", "max_ns", "short_samples", "elapsed_ns", "absences", "notes",
		"interference_disturbed", "interference_retakes", "interference_pauses", "interference_paused_ns", "interference_max_foreign",
		"mean_of_process_medians_ns", "sd_of_process_medians_ns", "cv_of_process_medians"}
	wantSampleFixed = []string{"package", "name", "build", "process", "process_outcome", "process_error", "pid",
		"sample", "iterations", "elapsed_ns", "ns_per_op", "alloc_bytes", "allocs", "exact", "short",
		"foreign", "disturbed", "retaken"}
	wantComparisonHeader = []string{"package", "name", "metric",
		"old_center", "old_uncertainty", "old_processes", "old_outliers", "old_outcome", "old_error",
		"new_center", "new_uncertainty", "new_processes", "new_outliers", "new_outcome", "new_error",
		"ratio", "low", "high", "confidence", "p", "method", "verdict", "order_effect", "note",
		"wins", "losses", "vs:key", "vs:reference", "vs:contender", "shortfall"}
	wantRunComparison = []string{"comparison:old", "comparison:new", "comparison:metric",
		"comparison:old_center", "comparison:new_center", "comparison:ratio", "comparison:delta",
		"comparison:low", "comparison:high", "comparison:confidence", "comparison:p",
		"comparison:verdict", "comparison:reason"}
)

// trickyName holds every character RFC 4180 must quote.
const trickyName = "BenchmarkParse/in=\"a,b\"\nline2"

// trickyDoc has a name and an error that need quoting, floats with long
// shortest forms, a process without samples and a sample without
// allocation counts.
func trickyDoc() rundoc.Document {
	r := rundoctest.BenchRow("example.com/p", trickyName,
		rundoctest.SamplesOf(3, nil, nil, map[string]float64{"x,y/op": 0.1 + 0.2}, 1.0/3, 2.0/3, 1e-300),
		rundoctest.SamplesOf(7, rundoctest.U64(1), nil, nil, 123456789.125, 1, 2))
	r.Outcome = "execution-timeout"
	r.Error = rundoctest.Str("said \"no\", then\nexited")
	r.Notes = []string{"a note, with a comma", "another"}
	r.Processes = append(r.Processes, rundoc.ProcessResult{Index: 2, PID: 9, Outcome: "execution-timeout", Error: rundoctest.Str("hung, \"badly\"")})
	return rundoc.Document{Schema: rundoc.SchemaVersion, Meta: rundoctest.MetaOf(rundoc.ModeBench, 3), Rows: []rundoc.Row{r}}
}

// countedCSVDoc is CountedDoc with the uncertainties the supervisor
// reports for some counted values.
func countedCSVDoc() rundoc.Document {
	doc := rundoctest.CountedDoc()
	doc.Rows[1].Summary.Uncertainty = map[string]float64{"task-clock": 37000, "minflt": 4.5}
	return doc
}

func readCSV(t *testing.T, b []byte) (header []string, rows []map[string]string) {
	t.Helper()
	s := string(b)
	assert.NotContains(t, s, "\r\n", "line ends are \\n")
	assert.True(t, strings.HasSuffix(s, "\n"), "the last record ends with \\n")
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = 0 // every record has the header's width
	recs, err := r.ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs, "a header row is always written")
	header = recs[0]
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range header {
			m[h] = rec[i]
		}
		rows = append(rows, m)
	}
	return header, rows
}

// assertFloat checks that field is empty exactly when want is nil, and
// otherwise parses back to the exact float64.
func assertFloat(t *testing.T, want *float64, field, what string) {
	t.Helper()
	if want == nil {
		assert.Equal(t, "", field, "%s: an unavailable value is empty, never 0", what)
		return
	}
	got, err := strconv.ParseFloat(field, 64)
	if assert.NoError(t, err, what) {
		assert.Equal(t, *want, got, "%s round-trips exactly", what)
	}
}

func TestWriteCSVWide(t *testing.T) {
	tests := []struct {
		name    string
		doc     rundoc.Document
		dynamic []string
		golden  string
	}{
		{"green", rundoctest.GreenDoc(), []string{"metric:B/op", "metric:allocs/op", "metric:MB/s", "metric:hit-ratio", "metric:rows/op"}, "csv/green-wide.golden"},
		{"errors", rundoctest.ErrorDoc(), []string{"metric:B/op", "metric:allocs/op"}, ""},
		{"tests", rundoctest.TestsDoc(), nil, ""},
		{"counted", countedCSVDoc(), []string{"metric:B/op", "metric:allocs/op",
			"counted:instructions", "counted:instructions:uncertainty", "counted:instructions:estimated",
			"counted:ipc", "counted:ipc:uncertainty", "counted:ipc:estimated",
			"counted:task-clock", "counted:task-clock:uncertainty", "counted:task-clock:estimated",
			"counted:minflt", "counted:minflt:uncertainty", "counted:minflt:estimated",
			"counted:rchar", "counted:rchar:uncertainty", "counted:rchar:estimated",
			"counted:context-switches", "counted:context-switches:uncertainty", "counted:context-switches:estimated",
			"counted:maxrss", "counted:maxrss:uncertainty", "counted:maxrss:estimated",
		}, "csv/counted-wide.golden"},
		{"tricky", trickyDoc(), []string{"metric:B/op", "metric:allocs/op", "metric:x,y/op"}, ""},
		{"empty", rundoc.Document{Schema: rundoc.SchemaVersion}, nil, ""},
		{"hygiene", *hygieneDoc(), []string{"metric:B/op", "metric:allocs/op", "metric:MB/s", "metric:hit-ratio", "metric:rows/op"}, "csv/hygiene-wide.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteCSV(&buf, tt.doc, CSVOptions{}))
			header, rows := readCSV(t, buf.Bytes())
			assert.Equal(t, append(slices.Clone(wantWideFixed), tt.dynamic...), header)
			require.Len(t, rows, len(tt.doc.Rows), "one row per identity")
			for i, r := range tt.doc.Rows {
				got := rows[i]
				assert.Equal(t, r.Package, got["package"])
				assert.Equal(t, r.Name, got["name"], "names survive quoting")
				assert.Equal(t, string(r.Outcome), got["outcome"])
				assert.Equal(t, csvString(r.Error), got["error"])
				assert.Equal(t, csvString(r.Skipped), got["skipped"])
				if r.ElapsedNs == nil {
					assert.Equal(t, "", got["elapsed_ns"])
				} else {
					assert.Equal(t, strconv.FormatInt(*r.ElapsedNs, 10), got["elapsed_ns"])
				}
				s := r.Summary
				if s == nil {
					for _, c := range []string{"processes", "samples", "iterations", "median_ns", "ci_low_ns", "min_ns", "max_ns", "short_samples"} {
						assert.Equal(t, "", got[c], "%s of a row without a summary", c)
					}
				} else {
					assertFloat(t, &s.MedianNs, got["median_ns"], "median_ns")
					assertFloat(t, &s.MinNs, got["min_ns"], "min_ns")
					assertFloat(t, &s.MaxNs, got["max_ns"], "max_ns")
					assertFloat(t, s.WithinMADNs, got["within_mad_ns"], "within_mad_ns")
					var low *float64
					if s.Interval != nil {
						low = &s.Interval.LowNs
					}
					assertFloat(t, low, got["ci_low_ns"], "ci_low_ns")
					assert.Equal(t, strconv.Itoa(s.Samples), got["samples"])
					assertFloat(t, s.MeanOfProcessMediansNs, got["mean_of_process_medians_ns"], "mean_of_process_medians_ns")
					assertFloat(t, s.SDOfProcessMediansNs, got["sd_of_process_medians_ns"], "sd_of_process_medians_ns")
					assertFloat(t, s.CVOfProcessMedians, got["cv_of_process_medians"], "cv_of_process_medians")
					if s.Processes == 1 {
						assert.Equal(t, "", got["sd_of_process_medians_ns"], "one process has no deviation: empty, never 0")
					}
				}
				if in := r.Interference; in == nil {
					for _, c := range wantWideFixed[21:26] {
						assert.Equal(t, "", got[c], "%s of a row no watch ran for is empty, never 0", c)
					}
				} else {
					assert.Equal(t, strconv.Itoa(in.Disturbed), got["interference_disturbed"])
					assert.Equal(t, strconv.Itoa(in.Retakes), got["interference_retakes"])
					assert.Equal(t, strconv.Itoa(in.Pauses), got["interference_pauses"])
					assert.Equal(t, strconv.FormatInt(in.PausedNs, 10), got["interference_paused_ns"])
					assertFloat(t, in.MaxForeign, got["interference_max_foreign"], "interference_max_foreign")
				}
				for _, h := range tt.dynamic {
					var want *float64
					switch {
					case strings.HasPrefix(h, "metric:") && s != nil:
						want = s.Metrics[strings.TrimPrefix(h, "metric:")]
					case strings.HasSuffix(h, ":estimated"):
						name := strings.TrimSuffix(strings.TrimPrefix(h, "counted:"), ":estimated")
						switch {
						case s == nil || s.Counted[name] == nil:
							assert.Equal(t, "", got[h], "%s of a missing value", h)
						default:
							assert.Equal(t, strconv.FormatBool(slices.Contains(s.EstimatedMetrics, name)), got[h], h)
						}
						continue
					case strings.HasSuffix(h, ":uncertainty"):
						name := strings.TrimSuffix(strings.TrimPrefix(h, "counted:"), ":uncertainty")
						if u, ok := s.Uncertainty[name]; ok && s.Counted[name] != nil {
							want = &u
						}
					case strings.HasPrefix(h, "counted:") && s != nil:
						want = s.Counted[strings.TrimPrefix(h, "counted:")]
					}
					assertFloat(t, want, got[h], h)
				}
			}
			if tt.golden != "" {
				rundoctest.Golden(t, tt.golden, buf.Bytes())
			}
		})
	}
}

// TestWriteCSVWideShapes pins what the generic checks above cannot see:
// that the fixtures' nil values, estimates and reasons reach the CSV.
func TestWriteCSVWideShapes(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, countedCSVDoc(), CSVOptions{}))
	_, rows := readCSV(t, buf.Bytes())
	require.Len(t, rows, 3)
	decode, scan := rows[1], rows[2]
	assert.Equal(t, "true", decode["counted:task-clock:estimated"], "an estimate is marked")
	assert.Equal(t, "false", decode["counted:minflt:estimated"])
	assert.Equal(t, "37000", decode["counted:task-clock:uncertainty"])
	assert.Equal(t, "", decode["counted:rchar:uncertainty"], "no reported uncertainty: empty")
	assert.Equal(t, "", scan["counted:task-clock"], "a value never counted is empty")
	assert.Equal(t, "", scan["counted:instructions"])
	assert.Contains(t, scan["absences"], "task-clock: not counted", "every empty counted value has its reason")
	assert.Contains(t, scan["absences"], "instructions, ipc: perf-hw unavailable: no hardware PMU",
		"the metrics one reason takes away are listed before it")
	assert.Equal(t, 1, strings.Count(scan["absences"], "perf-hw unavailable"), "each distinct reason once per cell")
	assert.Equal(t, 2, strings.Count(scan["absences"], "the counter group never got the PMU"),
		"two different reasons (one names its process) stay two")

	buf.Reset()
	require.NoError(t, WriteCSV(&buf, rundoctest.GreenDoc(), CSVOptions{}))
	_, rows = readCSV(t, buf.Bytes())
	var sawNilMetric bool
	for i, r := range rundoctest.GreenDoc().Rows {
		if v, ok := r.Summary.Metrics["hit-ratio"]; ok && v == nil {
			sawNilMetric = true
			assert.Equal(t, "", rows[i]["metric:hit-ratio"], "a unit some process lacks is empty")
		}
	}
	assert.True(t, sawNilMetric, "GreenDoc has a metric some process lacks")

	buf.Reset()
	require.NoError(t, WriteCSV(&buf, trickyDoc(), CSVOptions{}))
	_, rows = readCSV(t, buf.Bytes())
	assert.Equal(t, trickyName, rows[0]["name"])
	assert.Equal(t, "said \"no\", then\nexited", rows[0]["error"])
	assert.Equal(t, "a note, with a comma; another", rows[0]["notes"])
}

// TestWriteCSVWideComparison: a run that compared (--against) carries its
// comparison in the wide form, a row per comparison row after the builds'
// rows, so that a spreadsheet has the answer beside the numbers.
func TestWriteCSVWideComparison(t *testing.T) {
	doc := rundoctest.GreenDoc()
	cmp := rundoctest.ComparisonFixture()
	cmp.Rows[1].Verdict, cmp.Rows[1].Shortfall = rundoc.VerdictInconclusive, "3 pairs reach 75%; 95% needs 6"
	doc.Comparisons = []rundoc.Comparison{cmp}
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, doc, CSVOptions{}))
	header, rows := readCSV(t, buf.Bytes())
	require.GreaterOrEqual(t, len(header), len(wantRunComparison))
	assert.Equal(t, wantRunComparison, header[len(header)-len(wantRunComparison):], "the comparison's columns come last")
	require.Len(t, rows, len(doc.Rows)+len(cmp.Rows), "the builds' rows, then one per comparison row")
	for i := range doc.Rows {
		assert.NotEqual(t, "comparison", rows[i]["kind"])
		for _, c := range wantRunComparison {
			assert.Equal(t, "", rows[i][c], "a build's row has no comparison fields")
		}
	}
	for i, r := range cmp.Rows {
		got := rows[len(doc.Rows)+i]
		assert.Equal(t, "comparison", got["kind"])
		assert.Equal(t, r.Package, got["package"])
		assert.Equal(t, r.Name, got["name"])
		assert.Equal(t, "", got["median_ns"], "a comparison's row leaves the builds' columns empty")
		assert.Equal(t, cmp.Old.Label, got["comparison:old"])
		assert.Equal(t, cmp.New.Label, got["comparison:new"])
		assert.Equal(t, r.Metric, got["comparison:metric"])
		assert.Equal(t, string(r.Verdict), got["comparison:verdict"])
		assertFloat(t, r.Ratio, got["comparison:ratio"], "ratio")
		assertFloat(t, r.Low, got["comparison:low"], "low")
		assertFloat(t, r.High, got["comparison:high"], "high")
		assertFloat(t, r.Confidence, got["comparison:confidence"], "confidence")
		if r.Old == nil || r.New == nil || r.Old.Center == nil || r.New.Center == nil {
			assert.Equal(t, "", got["comparison:delta"], "no delta without both sides")
		} else {
			assertFloat(t, rundoctest.Fptr(*r.New.Center-*r.Old.Center), got["comparison:delta"], "delta")
		}
		for _, part := range []string{r.Shortfall, r.Note} {
			assert.Contains(t, got["comparison:reason"], part)
		}
	}
	assert.Equal(t, "3 pairs reach 75%; 95% needs 6", rows[len(doc.Rows)+1]["comparison:reason"][:len("3 pairs reach 75%; 95% needs 6")])
	rundoctest.Golden(t, "csv/comparison-wide.golden", buf.Bytes())

	// A run without comparisons keeps its columns.
	buf.Reset()
	require.NoError(t, WriteCSV(&buf, rundoctest.GreenDoc(), CSVOptions{}))
	header, _ = readCSV(t, buf.Bytes())
	assert.NotContains(t, header, "comparison:verdict")
}

func TestWriteCSVSamples(t *testing.T) {
	tests := []struct {
		name   string
		doc    rundoc.Document
		extra  []string
		golden string
	}{
		{"green", rundoctest.GreenDoc(), []string{"extra:MB/s", "extra:hit-ratio", "extra:rows/op"}, ""},
		{"errors", rundoctest.ErrorDoc(), nil, "csv/errors-samples.golden"},
		{"tests", rundoctest.TestsDoc(), nil, ""},
		{"tricky", trickyDoc(), []string{"extra:x,y/op"}, ""},
		{"hygiene", *hygieneDoc(), []string{"extra:MB/s", "extra:hit-ratio", "extra:rows/op"}, "csv/hygiene-samples.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteCSV(&buf, tt.doc, CSVOptions{Samples: true}))
			header, rows := readCSV(t, buf.Bytes())
			assert.Equal(t, append(slices.Clone(wantSampleFixed), tt.extra...), header)
			i := 0
			for _, r := range tt.doc.Rows {
				for _, p := range r.Processes {
					all := slices.Concat(p.Samples, p.Retaken)
					n := max(len(all), 1)
					require.GreaterOrEqual(t, len(rows), i+n, "every sample, kept or retaken, and every sample-less process has a row")
					for j := range n {
						got := rows[i+j]
						assert.Equal(t, r.Name, got["name"])
						assert.Equal(t, strconv.Itoa(p.Index), got["process"])
						assert.Equal(t, string(p.Outcome), got["process_outcome"])
						assert.Equal(t, csvString(p.Error), got["process_error"])
						if len(all) == 0 {
							for _, c := range wantSampleFixed[7:] {
								assert.Equal(t, "", got[c], "%s of a process without samples", c)
							}
							continue
						}
						s, idx, retaken := all[j], j, j >= len(p.Samples)
						if retaken {
							idx -= len(p.Samples)
						}
						assert.Equal(t, strconv.Itoa(idx), got["sample"], "the index in Samples, or in Retaken for a retaken sample")
						assert.Equal(t, strconv.FormatBool(retaken), got["retaken"])
						assertFloat(t, s.Foreign, got["foreign"], "foreign")
						if p.Interference == nil {
							assert.Equal(t, "", got["disturbed"], "disturbed of an unwatched process is empty")
						} else {
							assert.Equal(t, strconv.FormatBool(s.Disturbed), got["disturbed"])
						}
						assert.Equal(t, strconv.FormatInt(s.Iterations, 10), got["iterations"])
						assert.Equal(t, strconv.FormatInt(s.ElapsedNs, 10), got["elapsed_ns"])
						perOp, _ := s.NsPerOp()
						assertFloat(t, &perOp, got["ns_per_op"], "ns_per_op")
						for _, c := range []struct {
							name string
							v    *uint64
						}{{"alloc_bytes", s.AllocBytes}, {"allocs", s.Allocs}} {
							if c.v == nil {
								assert.Equal(t, "", got[c.name], "unmeasured %s is empty, never 0", c.name)
							} else {
								assert.Equal(t, strconv.FormatUint(*c.v, 10), got[c.name])
							}
						}
						for _, h := range tt.extra {
							var want *float64
							if v, ok := s.Extra[strings.TrimPrefix(h, "extra:")]; ok {
								want = &v
							}
							assertFloat(t, want, got[h], h)
						}
					}
					i += n
				}
			}
			assert.Len(t, rows, i, "rows = kept and retaken samples + sample-less processes")
			if tt.golden != "" {
				rundoctest.Golden(t, tt.golden, buf.Bytes())
			}
		})
	}
}

func TestWriteComparisonCSV(t *testing.T) {
	tricky := rundoctest.ComparisonFixture()
	tricky.Rows[0].Name = trickyName
	tricky.Rows[0].Note = "kept, \"flagged\"\nsecond line"
	tricky.Rows[0].Ratio = rundoctest.Fptr(0.1 + 0.2)
	tests := []struct {
		name   string
		c      rundoc.Comparison
		golden string
	}{
		{"fixture", rundoctest.ComparisonFixture(), "csv/comparison.golden"},
		{"tricky", tricky, ""},
		{"empty", rundoc.Comparison{Schema: rundoc.ComparisonSchemaVersion}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteComparisonCSV(&buf, tt.c))
			header, rows := readCSV(t, buf.Bytes())
			assert.Equal(t, wantComparisonHeader, header)
			require.Len(t, rows, len(tt.c.Rows), "one row per comparison row")
			for i, r := range tt.c.Rows {
				got := rows[i]
				assert.Equal(t, r.Name, got["name"])
				assert.Equal(t, r.Metric, got["metric"])
				assert.Equal(t, string(r.Verdict), got["verdict"])
				assert.Equal(t, r.Note, got["note"])
				assertFloat(t, r.Ratio, got["ratio"], "ratio")
				assertFloat(t, r.Low, got["low"], "low")
				assertFloat(t, r.P, got["p"], "p")
				assertFloat(t, r.OrderEffect, got["order_effect"], "order_effect")
				for _, side := range []struct {
					prefix string
					v      *rundoc.ComparedValue
				}{{"old_", r.Old}, {"new_", r.New}} {
					if side.v == nil {
						for _, c := range []string{"center", "uncertainty", "processes", "outliers", "outcome", "error"} {
							assert.Equal(t, "", got[side.prefix+c], "a missing side is empty")
						}
						continue
					}
					assertFloat(t, side.v.Center, got[side.prefix+"center"], side.prefix+"center")
					assert.Equal(t, string(side.v.Outcome), got[side.prefix+"outcome"])
					assert.Equal(t, csvString(side.v.Error), got[side.prefix+"error"])
				}
			}
			if tt.golden != "" {
				rundoctest.Golden(t, tt.golden, buf.Bytes())
			}
		})
	}

	// Variant comparisons: every contender's rows under one header, with
	// the key, the reference and the contender, and the pairs won and
	// lost.
	t.Run("variants", func(t *testing.T) {
		_, cs := variantRun(t)
		var buf bytes.Buffer
		require.NoError(t, WriteComparisonsCSV(&buf, cs))
		header, rows := readCSV(t, buf.Bytes())
		assert.Equal(t, wantComparisonHeader, header)
		i := 0
		for _, c := range cs {
			for _, r := range c.Rows {
				got := rows[i]
				i++
				assert.Equal(t, r.Name, got["name"])
				assert.Equal(t, []string{"impl", "fnv", c.Variants.Contender}, []string{got["vs:key"], got["vs:reference"], got["vs:contender"]})
				if r.Metric == rundoc.MetricTime {
					assert.Equal(t, strconv.Itoa(*r.Wins), got["wins"])
					assert.Equal(t, strconv.Itoa(*r.Losses), got["losses"])
				} else {
					assert.Equal(t, "", got["wins"], "only time rows count pairs")
				}
			}
		}
		assert.Len(t, rows, i, "one record per row of every comparison")
		assert.Equal(t, 3+1, i, "xxh in two groups, crc and copy in one")
		rundoctest.Golden(t, "csv/variants.golden", buf.Bytes())
	})

	// The fixture's failed and only-old rows, by hand.
	var buf bytes.Buffer
	require.NoError(t, WriteComparisonCSV(&buf, rundoctest.ComparisonFixture()))
	_, rows := readCSV(t, buf.Bytes())
	crash, gone := rows[2], rows[3]
	assert.Equal(t, "failed", crash["verdict"])
	assert.Equal(t, "", crash["new_center"], "a failed side has no center, not 0")
	assert.Equal(t, "signal", crash["new_outcome"])
	assert.Equal(t, "killed by SIGSEGV", crash["new_error"])
	assert.Equal(t, "", crash["ratio"])
	assert.Equal(t, "only-old", gone["verdict"])
	assert.Equal(t, "10", gone["old_center"])
	assert.Equal(t, "", gone["new_processes"], "a missing side has no process count, not 0")
	assert.Equal(t, "3", rows[0]["new_outliers"])
}
