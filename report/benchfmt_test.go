package report

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// readResult is one result as benchfmt.Reader returns it, with values keyed
// by the unit as written.
type readResult struct {
	name   string
	iters  int
	values map[string]float64
	config map[string]string
}

func readBenchfmt(t *testing.T, data []byte) []readResult {
	t.Helper()
	var out []readResult
	r := benchfmt.NewReader(bytes.NewReader(data), "golden")
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		case *benchfmt.Result:
			got := readResult{name: rec.Name.String(), iters: rec.Iters,
				values: map[string]float64{}, config: map[string]string{}}
			for _, v := range rec.Values {
				if v.OrigUnit != "" {
					got.values[v.OrigUnit] = v.OrigValue
				} else {
					got.values[v.Unit] = v.Value
				}
			}
			for _, c := range rec.Config {
				got.config[c.Key] = string(c.Value)
			}
			out = append(out, got)
		}
	}
	require.NoError(t, r.Err())
	return out
}

// wantResults lists what WriteBenchfmt must write for doc: every sample of
// every successful process of every ok benchmark row, in order.
func wantResults(doc rundoc.Document) []readResult {
	var want []readResult
	for _, row := range doc.Rows {
		if row.Kind != rundoc.KindBenchmark || row.Outcome != rundoc.OutcomeOK {
			continue
		}
		for _, p := range row.Processes {
			if p.Outcome != rundoc.OutcomeOK {
				continue
			}
			for j, s := range p.Samples {
				r := readResult{
					name:   strings.TrimPrefix(row.Name, "Benchmark") + "-2",
					iters:  int(s.Iterations),
					values: map[string]float64{},
					config: map[string]string{
						"goos": "linux", "goarch": "amd64", "cpu": doc.Meta.CPU, "pkg": row.Package,
						ConfigRepetitions: strconv.Itoa(doc.Meta.Knobs.Repetitions),
						ConfigProcess:     strconv.Itoa(p.Index),
					},
				}
				r.values["ns/op"], _ = s.NsPerOp()
				if v, ok := s.BytesPerOp(); ok {
					r.values["B/op"] = v
				}
				if v, ok := s.AllocsPerOp(); ok {
					r.values["allocs/op"] = v
				}
				for u, v := range s.Extra {
					r.values[u] = v
				}
				var est, diag []string
				for _, c := range doc.Columns {
					if c.Class != rundoc.ClassQuantitative {
						diag = append(diag, c.Name)
					}
					if v, ok := p.Counted[c.Name]; ok {
						if j == 0 { // counted values once per process
							r.values[c.Name+c.Unit] = v
						}
						if slices.Contains(p.Estimated, c.Name) {
							est = append(est, c.Name)
						}
					}
				}
				if len(est) > 0 {
					r.config[ConfigEstimated] = strings.Join(est, ",")
				}
				if len(diag) > 0 {
					r.config[ConfigDiagnostic] = strings.Join(diag, ",")
				}
				want = append(want, r)
			}
		}
	}
	return want
}

func TestWriteBenchfmtRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		doc  rundoc.Document
		n    int // results expected
	}{
		{"green", rundoctest.GreenDoc(), 4 * 3 * 3},
		{"errors", rundoctest.ErrorDoc(), 2 * 3}, // only BenchmarkEncode is ok
		{"counted", rundoctest.CountedDoc(), 3 * 2 * 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteBenchfmt(&buf, tt.doc))
			rundoctest.Golden(t, tt.name+".benchfmt", buf.Bytes())

			got := readBenchfmt(t, buf.Bytes())
			assert.Len(t, got, tt.n)
			assert.Equal(t, wantResults(tt.doc), got)
			for _, name := range []string{"Stream", "Legacy", "GPU"} {
				assert.NotContains(t, buf.String(), "Benchmark"+name, "error and skip rows are not results")
			}
		})
	}
}

func TestWriteBenchfmtUnrounded(t *testing.T) {
	doc := rundoc.Document{Meta: rundoctest.MetaOf(rundoc.ModeBench, 1), Rows: []rundoc.Row{
		rundoctest.BenchRow("p", "BenchmarkThird", []rundoc.Sample{{Iterations: 3, ElapsedNs: 1000}}),
	}}
	doc.Meta.GOMAXPROCS = 1
	var buf bytes.Buffer
	require.NoError(t, WriteBenchfmt(&buf, doc))
	got := readBenchfmt(t, buf.Bytes())
	require.Len(t, got, 1)
	assert.Equal(t, "Third", got[0].name, "no -P suffix when GOMAXPROCS is 1, as go test")
	assert.Equal(t, 1000.0/3, got[0].values["ns/op"])
}

func TestWriteBenchfmtReportedUnitsReplaceComputed(t *testing.T) {
	s := rundoc.Sample{Iterations: 10, ElapsedNs: 1000, AllocBytes: rundoctest.U64(80),
		Extra: map[string]float64{"ns/op": 42, "MB/s": 7.5, "zz/op": 1}}
	doc := rundoc.Document{Meta: rundoctest.MetaOf(rundoc.ModeBench, 1), Rows: []rundoc.Row{rundoctest.BenchRow("p", "BenchmarkX", []rundoc.Sample{s})}}
	var buf bytes.Buffer
	require.NoError(t, WriteBenchfmt(&buf, doc))
	assert.Contains(t, buf.String(), "BenchmarkX-2 10 42 ns/op 7.5 MB/s 8 B/op 1 zz/op\n",
		"go test's unit order, reported ns/op in place of the computed 100")
}

func TestWriteBenchfmtErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*rundoc.Document)
		want string
	}{
		{"test mode", func(d *rundoc.Document) { d.Meta.Mode = rundoc.ModeTest }, `mode "test"`},
		{"zero iterations", func(d *rundoc.Document) { d.Rows[0].Processes[0].Samples[1].Iterations = 0 },
			"rows[0] (BenchmarkEncode/size=1K) process 0 sample 1: iteration count 0"},
		{"name with a space", func(d *rundoc.Document) { d.Rows[0].Name = "BenchmarkA B" }, "not a name"},
		{"cpu spanning lines", func(d *rundoc.Document) { d.Meta.CPU = "a\nb" }, "spans lines"},
		{"infinite extra", func(d *rundoc.Document) {
			d.Rows[0].Processes[0].Samples[0].Extra = map[string]float64{"MB/s": math.Inf(1)}
		},
			`rows[0].processes[0].samples[0].extra["MB/s"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := rundoctest.GreenDoc()
			tt.edit(&doc)
			assert.ErrorContains(t, WriteBenchfmt(&bytes.Buffer{}, doc), tt.want)
		})
	}
	assert.ErrorIs(t, WriteBenchfmt(rundoctest.FailWriter{}, rundoctest.GreenDoc()), rundoctest.ErrWrite)
}
