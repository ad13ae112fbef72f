package rundoc_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// fixtureDocs are the documents of the golden tests, each consistent with
// itself as a run writes it.
func fixtureDocs() map[string]rundoc.Document {
	withComparison := rundoctest.GreenDoc()
	withComparison.Comparisons = []rundoc.Comparison{rundoctest.ComparisonFixture()}
	withSweeps := rundoctest.GreenDoc()
	withSweeps.Sweeps = rundoctest.SweepsFixture()
	sweepComparison := rundoctest.ComparisonFixture()
	sweepComparison.Sweeps = rundoctest.SweepChangesFixture()
	withSweeps.Comparisons = []rundoc.Comparison{sweepComparison}
	withRecordings := rundoctest.GreenDoc()
	withRecordings.Recordings = rundoctest.RecordingsFixture()
	return map[string]rundoc.Document{
		"interrupted": interruptedDoc(),
		"green":       rundoctest.GreenDoc(), "errors": rundoctest.ErrorDoc(), "tests": rundoctest.TestsDoc(), "counted": rundoctest.CountedDoc(),
		"windows": rundoctest.Summarized(rundoctest.WindowDoc()), "windows-only": rundoctest.Summarized(rundoctest.WindowsOnlyDoc()),
		"with comparison": withComparison, "with sweeps": withSweeps,
		"with recordings": withRecordings,
	}
}

// interruptedDoc is a run a SIGINT ended before its last benchmark
// started.
func interruptedDoc() rundoc.Document {
	doc := rundoctest.GreenDoc()
	why := "the run was interrupted before it started"
	doc.Rows = append(doc.Rows, rundoc.Row{Package: doc.Rows[0].Package, Name: "BenchmarkLater", Kind: rundoc.KindBenchmark,
		Outcome: rundoc.OutcomeNotRun, Error: &why})
	doc.Interrupted = &rundoc.Interruption{Signal: "SIGINT", NotRun: 1}
	return doc
}

func TestValidFixturesRead(t *testing.T) {
	for name, doc := range fixtureDocs() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, rundoc.WriteJSON(&buf, doc))
			_, integrity, err := rundoc.ReadDocument(&buf)
			require.NoError(t, err)
			assert.NotEmpty(t, integrity.Checksum)
		})
	}
	t.Run("a real run of the demo", func(t *testing.T) {
		// Written by benchsup before checksums, and trimmed with jq.
		f, err := os.Open(filepath.Join("testdata", "demo-run.json"))
		require.NoError(t, err)
		defer f.Close()
		doc, integrity, err := rundoc.ReadDocument(f)
		require.NoError(t, err)
		assert.NotEmpty(t, doc.Rows)
		assert.Empty(t, integrity.Checksum)
		assert.Contains(t, integrity.Note(), "read without an integrity check")
	})
}

// TestAfterSiblingsRoundTrip: how many leaves ran before a leaf, in its
// calibration and in each process, survives writing and reading, under
// the checksum.
func TestAfterSiblingsRoundTrip(t *testing.T) {
	doc := rundoctest.GreenDoc()
	doc.Rows[0].Calibration = &rundoc.Calibration{N: 1000, TargetNs: 2e8, AfterSiblings: 2, Runs: []rundoc.Sample{}}
	doc.Rows[0].Processes[1].AfterSiblings = 2
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, doc))
	assert.Contains(t, buf.String(), `"afterSiblings": 2`)
	back, integrity, err := rundoc.ReadDocument(&buf)
	require.NoError(t, err)
	assert.NotEmpty(t, integrity.Checksum)
	assert.Equal(t, int64(2), back.Rows[0].Calibration.AfterSiblings)
	assert.Equal(t, int64(2), back.Rows[0].Processes[1].AfterSiblings)
	assert.Zero(t, back.Rows[0].Processes[0].AfterSiblings, "absent: it ran alone")
}

func TestReadRefusesValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  func() rundoc.Document
		edit func(*rundoc.Document)
		want string
	}{
		{"interrupted by no signal", interruptedDoc, func(d *rundoc.Document) { d.Interrupted.Signal = "" },
			`interrupted.signal: "" is not a signal that ends a run (SIGINT, SIGTERM)`},
		{"interrupted, miscounted", interruptedDoc, func(d *rundoc.Document) { d.Interrupted.NotRun = 3 },
			"interrupted.notRun: records 3, but the document has 1 not-run rows"},
		{"negative sample time", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[3].Processes[1].Samples[0].ElapsedNs = -12 },
			"rows[3].processes[1].samples[0].ns: negative time -12"},
		{"negative iterations", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Processes[0].Samples[2].Iterations = -1 },
			"rows[0].processes[0].samples[2].n: negative count -1"},
		{"negative median", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[1].Summary.MedianNs = -0.5 },
			"rows[1].summary.medianNs: negative time -0.5"},
		{"negative process stats", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[1].Processes[2].NsPerOp.MAD = -3 },
			"rows[1].processes[2].nsPerOp.mad: negative time -3"},
		{"negative wall", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Processes[2].WallNs = -1 },
			"rows[0].processes[2].wallNs: negative time -1"},
		{"negative elapsed test", rundoctest.TestsDoc, func(d *rundoc.Document) { d.Rows[1].ElapsedNs = rundoctest.Ns(-5) },
			"rows[1].elapsedNs: negative time -5"},
		{"negative peak memory", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Processes[1].PeakMemoryBytes = rundoctest.Ns(-4096) },
			"rows[0].processes[1].peakMemoryBytes: negative size -4096"},
		{"negative package peak memory", rundoctest.TestsDoc, func(d *rundoc.Document) { d.Rows[1].PeakMemoryBytes = rundoctest.Ns(-1) },
			"rows[1].peakMemoryBytes: negative size -1"},
		{"more covered than statements", rundoctest.TestsDoc, func(d *rundoc.Document) { d.Rows[1].Coverage = &rundoc.Coverage{Statements: 2, Covered: 3} },
			"rows[1].coverage: 3 statements covered of 2"},
		{"paused test outside the row's tree", rundoctest.TestsDoc, func(d *rundoc.Document) { d.Rows[0].Paused = []string{"TestRoundTrip", "TestRoundTripper"} },
			`rows[0].paused[1]: "TestRoundTripper" is not TestRoundTrip or one of its subtests`},
		{"paused on a benchmark", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Paused = []string{d.Rows[0].Name} },
			"rows[0].paused[0]: "},
		{"negative statements", rundoctest.TestsDoc, func(d *rundoc.Document) { d.Rows[1].Coverage = &rundoc.Coverage{Statements: -1} },
			"rows[1].coverage.statements: negative count -1"},
		{"negative siblings run before", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[1].Processes[0].AfterSiblings = -2 },
			"rows[1].processes[0].afterSiblings: negative count -2"},
		{"negative siblings run before calibration", rundoctest.GreenDoc, func(d *rundoc.Document) {
			d.Rows[0].Calibration = &rundoc.Calibration{N: 10, TargetNs: 1e6, AfterSiblings: -1}
		}, "rows[0].calibration.afterSiblings: negative count -1"},
		{"negative knob", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Meta.Knobs.TimeoutNs = -1 },
			"meta.knobs.timeoutNs: negative time -1"},
		{"unknown mode", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Meta.Mode = "fuzz" },
			`meta.mode: "fuzz" is not "bench", "test" or "record"`},
		{"interval upside down", rundoctest.GreenDoc, func(d *rundoc.Document) {
			iv := d.Rows[2].Summary.Interval
			iv.LowNs, iv.HighNs = iv.HighNs, iv.LowNs
		}, "rows[2].summary.interval: lowNs 0.3128 is above highNs 0.3122"},
		{"min above max", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Summary.MinNs = 1e9 },
			"rows[0].summary: minNs 1e+09 is above maxNs 1262"},
		{"confidence above 1", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Summary.Interval.Confidence = 93.75 },
			"rows[0].summary.interval.confidence: 93.75 is outside [0, 1]"},
		{"duplicate identity", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[3].Package, d.Rows[3].Name = d.Rows[1].Package, d.Rows[1].Name },
			"rows[3]: identity github.com/acme/shop/codec BenchmarkDecode (benchmark) repeats rows[1]"},
		{"duplicate process index", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[2].Processes[2].Index = 0 },
			"rows[2].processes[2].index: process index 0 repeats processes[0]"},
		{"duplicate column", rundoctest.CountedDoc, func(d *rundoc.Document) { d.Columns = append(d.Columns, d.Columns[0]) },
			"repeats columns[0]"},
		{"summary samples", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Summary.Samples = 8 },
			"rows[0].summary.samples: records 8, but those processes have 9 samples"},
		{"summary processes", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Processes[1].NsPerOp = nil },
			"rows[0].summary.processes: records 3, but the row has 2 processes with ns/op"},
		{"short samples", rundoctest.GreenDoc, func(d *rundoc.Document) { d.Rows[0].Processes[1].Samples[1].Short = true },
			"rows[0].summary.shortSamples: records 0, but those processes have 1 short samples"},
		{"a sample dropped", rundoctest.GreenDoc, func(d *rundoc.Document) {
			p := &d.Rows[1].Processes[0]
			p.Samples = p.Samples[:2]
		}, "rows[1].processes[0].nsPerOp.n: records 3, but the process has 2 samples"},
		{"negative window", func() rundoc.Document { return rundoctest.Summarized(rundoctest.WindowDoc()) }, func(d *rundoc.Document) { d.Windows[1].WallNs = -7 },
			"windows[1].wallNs: negative time -7"},
		{"window summary count", func() rundoc.Document { return rundoctest.Summarized(rundoctest.WindowDoc()) }, func(d *rundoc.Document) { d.WindowSummaries[0].Processes++ },
			"windowSummaries[0].processes: records 3, but the document has 2 measured windows of it"},
		{"unknown sweep status", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Status = "maybe" },
			`sweeps[0].status: "maybe" is not a sweep status`},
		{"unknown model", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Models[2].Model = "exponential" },
			`sweeps[0].models[2].model: "exponential" is not a model`},
		{"selected model not fitted", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Models = d.Sweeps[0].Models[:2] },
			"sweeps[0]: model linear is not among the sweep's models"},
		{"fitted without a selection", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Selected = nil; d.Sweeps[0].Models[2].Selected = false },
			"sweeps[0].selected: a fitted sweep selects exactly one model (selected null, 0 marked)"},
		{"fitted other than the best", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Best = ptrModel(rundoc.ModelNLogN) },
			`sweeps[0].best: "nlogn", but a fitted sweep selects its best model, "linear"`},
		{"two models marked", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Models[3].Selected = true },
			`sweeps[0].models[3].selected: true, but the sweep's selected model is "linear"`},
		{"ambiguous with a selection", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Status = rundoc.SweepAmbiguous },
			"sweeps[0].selected: a sweep ambiguous selects no model"},
		{"poor fit without models", sweepDoc, func(d *rundoc.Document) { d.Sweeps[1].Status = rundoc.SweepPoorFit },
			"sweeps[1].models: a sweep poor-fit has its models' fits"},
		{"inexact value", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Points[1].ValueExact = "4097" },
			"sweeps[0].points[1].valueExact: 4097 does not round to 4096"},
		{"exact value not decimal", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Range.MaxExact = "64Ki" },
			`sweeps[0].range.maxExact: "64Ki" is not a positive decimal integer`},
		{"points out of order", sweepDoc, func(d *rundoc.Document) {
			p := d.Sweeps[0].Points
			p[0], p[1] = p[1], p[0]
		}, "sweeps[0].points[1].value: 1024 is below the previous point's 4096"},
		{"negative residual", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Models[0].RMSLogResidual = -1 },
			"sweeps[0].models[0].rmsLogResidual: negative value -1"},
		{"r2 above 1", sweepDoc, func(d *rundoc.Document) { d.Sweeps[0].Models[0].R2 = rundoctest.Fptr(1.5) },
			"sweeps[0].models[0].r2: 1.5 is above 1"},
		{"duplicate family", sweepDoc, func(d *rundoc.Document) { d.Sweeps[1].Family = d.Sweeps[0].Family },
			"sweeps[1]: family example.com/p BenchmarkCount/size=* repeats sweeps[0]"},
		{"sweep change model", func() rundoc.Document {
			d := rundoctest.GreenDoc()
			c := rundoctest.ComparisonFixture()
			c.Sweeps = rundoctest.SweepChangesFixture()
			d.Comparisons = []rundoc.Comparison{c}
			return d
		}, func(d *rundoc.Document) { d.Comparisons[0].Sweeps[0].StdError = -0.1 },
			"comparisons[0].sweeps[0].stdError: negative value -0.1"},
		{"embedded comparison", func() rundoc.Document {
			d := rundoctest.GreenDoc()
			d.Comparisons = []rundoc.Comparison{rundoctest.ComparisonFixture()}
			return d
		}, func(d *rundoc.Document) { d.Comparisons[0].Rows[1].Low = rundoctest.Fptr(1.01) },
			"comparisons[0].rows[1]: low 1.01 is above high 1.006"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc()
			tc.edit(&doc)
			var buf bytes.Buffer
			require.NoError(t, rundoc.WriteJSON(&buf, doc), "the writer checks finiteness only")
			_, _, err := rundoc.ReadDocument(&buf)
			var ve *rundoc.ValueError
			require.True(t, errors.As(err, &ve), "err = %v, want a *ValueError", err)
			assert.ErrorIs(t, err, rundoc.ErrInvalidValue)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func ptrModel(m rundoc.Model) *rundoc.Model { return &m }

func sweepDoc() rundoc.Document {
	d := rundoctest.GreenDoc()
	d.Sweeps = rundoctest.SweepsFixture()
	return d
}

// withVariants makes the fixture a variant comparison (--vs) whose first
// row won 4 of its 5 pairs.
func withVariants(c *rundoc.Comparison) {
	c.Variants = &rundoc.VariantComparison{Key: "impl", Reference: "fnv", Contender: "xxh", Iterations: "own",
		Groups: []rundoc.VariantGroup{
			{Group: "BenchmarkHash/impl=*/n=8", Members: []string{"fnv", "xxh", "crc"}, Schedule: [][]int{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}}},
			{Group: "BenchmarkHash/impl=*/n=64", Members: []string{"fnv", "xxh"}, Schedule: [][]int{{1, 0}, {0, 1}}},
		}}
	c.Rows[0].Wins, c.Rows[0].Losses = ptrInt(4), ptrInt(1)
}

func ptrInt(i int) *int { return &i }

func TestReadComparisonVariants(t *testing.T) {
	c := rundoctest.ComparisonFixture()
	withVariants(&c)
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteComparisonJSON(&buf, c))
	got, _, err := rundoc.ReadComparison(&buf)
	require.NoError(t, err)
	assert.Equal(t, c.Variants, got.Variants)
	assert.Equal(t, 4, *got.Rows[0].Wins)
	assert.Equal(t, 1, *got.Rows[0].Losses)
}

func TestReadComparisonRefusesValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*rundoc.Comparison)
		want string
	}{
		{"interval upside down", func(c *rundoc.Comparison) { c.Rows[0].Low, c.Rows[0].High = rundoctest.Fptr(1.4), rundoctest.Fptr(1.2) },
			"rows[0]: low 1.4 is above high 1.2"},
		{"negative time ratio", func(c *rundoc.Comparison) { c.Rows[1].Ratio = rundoctest.Fptr(-1) }, "rows[1].ratio: negative value -1"},
		{"negative center", func(c *rundoc.Comparison) { c.Rows[3].Old.Center = rundoctest.Fptr(-10) }, "rows[3].old.center: negative value -10"},
		{"p above 1", func(c *rundoc.Comparison) { c.Rows[0].P = rundoctest.Fptr(2) }, "rows[0].p: 2 is outside [0, 1]"},
		{"duplicate row", func(c *rundoc.Comparison) { c.Rows[1].Name = "BenchmarkSlower" },
			"rows[1]: identity example.com/p BenchmarkSlower sec/op repeats rows[0]"},
		{"duplicate outlier", func(c *rundoc.Comparison) { c.Rows[0].New.Outliers = []int{3, 3} },
			"rows[0].new.outliers[1]: process index 3 repeats outliers[0]"},
		{"too many outliers", func(c *rundoc.Comparison) { c.Rows[0].New.Outliers = []int{0, 1, 2, 3, 4, 5} },
			"rows[0].new.outliers: 6 outliers among 5 processes"},
		{"geomean over more identities than rows", func(c *rundoc.Comparison) { c.Geomeans[0].Identities = 9 },
			"geomeans[0].identities: 9, but the comparison has 4 rows of sec/op"},
		{"negative resamples", func(c *rundoc.Comparison) { c.Knobs.Resamples = -1 }, "knobs.resamples: negative count -1"},
		{"a verdict short of the confidence asked", func(c *rundoc.Comparison) { c.Rows[0].Shortfall = "3 pairs reach 75%; 95% needs 6" },
			`rows[0].shortfall: a row short of the confidence asked is inconclusive, not "slower"`},
		{"more pairs won and lost than pairs", func(c *rundoc.Comparison) { withVariants(c); c.Rows[0].Wins = ptrInt(5) },
			"rows[0]: 5 pairs won and 1 lost, but the sides have 5 pairs"},
		{"wins without a side", func(c *rundoc.Comparison) { c.Rows[3].Wins = ptrInt(1) },
			"rows[3]: 1 pairs won and 0 lost, but the sides have 0 pairs"},
		{"negative losses", func(c *rundoc.Comparison) { withVariants(c); c.Rows[0].Losses = ptrInt(-1) }, "rows[0].losses: negative count -1"},
		{"variants without a key", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Key = "" }, "variants.key: empty"},
		{"variants without a reference", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Reference = "" }, "variants.reference: empty"},
		{"contender is the reference", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Contender = "fnv" },
			`variants.contender: "fnv" is not a value besides the reference "fnv"`},
		{"unknown iterations", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Iterations = "fixed" },
			`variants.iterations: "fixed" is neither "own" nor "shared"`},
		{"no groups", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Groups = nil }, "variants.groups: none"},
		{"one member", func(c *rundoc.Comparison) {
			withVariants(c)
			c.Variants.Groups[1].Members, c.Variants.Groups[1].Schedule = []string{"fnv"}, nil
		}, "variants.groups[1].members: 1 member(s), not two or more"},
		{"empty member", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Groups[0].Members[2] = "" },
			"variants.groups[0].members[2]: empty"},
		{"member twice", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Groups[0].Members[2] = "xxh" },
			`variants.groups[0].members[2]: "xxh" repeats members[1]`},
		{"reference not first", func(c *rundoc.Comparison) {
			withVariants(c)
			c.Variants.Groups[1].Members = []string{"xxh", "fnv"}
		}, `variants.groups[1].members[0]: "xxh", not the reference "fnv"`},
		{"contender not a member", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Groups[1].Members[1] = "crc" },
			`variants.groups[1].members: no member "xxh" (the contender)`},
		{"round repeats a member", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Groups[0].Schedule[1] = []int{2, 2, 1} },
			"variants.groups[0].schedule[1]: [2 2 1] is not an order of the members 0..2"},
		{"round out of range", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Groups[1].Schedule[0] = []int{0, 2} },
			"variants.groups[1].schedule[0]: [0 2] is not an order of the members 0..1"},
		{"round too short", func(c *rundoc.Comparison) { withVariants(c); c.Variants.Groups[0].Schedule[2] = []int{1, 0} },
			"variants.groups[0].schedule[2]: 2 places for 3 members"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rundoctest.ComparisonFixture()
			tc.edit(&c)
			var buf bytes.Buffer
			require.NoError(t, rundoc.WriteComparisonJSON(&buf, c))
			_, _, err := rundoc.ReadComparison(&buf)
			var ve *rundoc.ValueError
			require.True(t, errors.As(err, &ve), "err = %v, want a *ValueError", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
