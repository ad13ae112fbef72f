package analysis

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/rundoc"
)

// benchRow is a benchmark row whose processes each took one sample per
// value of nsPerOp, with bytes B/op.
func benchRow(name string, bytes uint64, nsPerOp ...float64) rundoc.Row {
	row := rundoc.Row{Package: "example.com/p", Name: name, Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK}
	for i, ns := range nsPerOp {
		b := bytes * 1000
		allocs := uint64(3000)
		row.Processes = append(row.Processes, rundoc.ProcessResult{Index: i, Outcome: rundoc.OutcomeOK,
			Samples: []rundoc.Sample{{Iterations: 1000, ElapsedNs: int64(ns * 1000), AllocBytes: &b, Allocs: &allocs}}})
	}
	return row
}

func benchDoc(rows ...rundoc.Row) *rundoc.Document {
	return &rundoc.Document{Schema: rundoc.SchemaVersion, Meta: rundoc.Meta{Mode: rundoc.ModeBench, OS: "linux", Arch: "amd64",
		CPU: "cpu", GOMAXPROCS: 2, GoVersion: "go1.26", Knobs: rundoc.Knobs{SampleTimeNs: 2e8, SampleCount: 1}}, Rows: rows}
}

func TestCompare(t *testing.T) {
	failed := rundoc.Row{Package: "example.com/p", Name: "BenchmarkCrash", Kind: rundoc.KindBenchmark,
		Outcome: "signal", Error: ptr("killed by SIGSEGV")}
	old := benchDoc(
		benchRow("BenchmarkSlower", 64, 100, 101, 99, 100.5, 99.5),
		benchRow("BenchmarkSame", 64, 100, 100.2, 99.8, 100.1, 99.9),
		benchRow("BenchmarkMoreBytes", 64, 50, 50.1, 49.9, 50, 50),
		benchRow("BenchmarkCrash", 8, 10, 10, 10, 10, 10),
		benchRow("BenchmarkGone", 8, 10, 10, 10, 10, 10),
	)
	new := benchDoc(
		benchRow("BenchmarkSlower", 64, 130, 131, 129, 130.5, 129.5),
		benchRow("BenchmarkSame", 64, 100.1, 99.9, 100, 100.2, 99.8),
		benchRow("BenchmarkMoreBytes", 128, 50, 50.1, 49.9, 50, 50),
		failed,
		benchRow("BenchmarkAdded", 8, 10, 10, 10, 10, 10),
	)
	// A run with --against also holds the revision's rows: not compared.
	other := benchRow("BenchmarkSame", 64, 500, 500, 500, 500, 500)
	other.Build = "HEAD~1"
	old.Rows = append(old.Rows, other)
	c, err := Compare(old, new, CompareConfig{Bootstrap: Bootstrap{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[[2]string]rundoc.Verdict{}
	for _, r := range c.Rows {
		verdicts[[2]string{r.Name, r.Metric}] = r.Verdict
	}
	for _, tc := range []struct {
		name, metric string
		want         rundoc.Verdict
	}{
		{"BenchmarkSlower", rundoc.MetricTime, rundoc.VerdictSlower},
		{"BenchmarkSlower", rundoc.MetricBytes, rundoc.VerdictSame},
		{"BenchmarkSame", rundoc.MetricTime, rundoc.VerdictEquivalent},
		{"BenchmarkMoreBytes", rundoc.MetricTime, rundoc.VerdictEquivalent},
		{"BenchmarkMoreBytes", rundoc.MetricBytes, rundoc.VerdictIncreased},
		{"BenchmarkMoreBytes", rundoc.MetricAllocs, rundoc.VerdictSame},
		{"BenchmarkCrash", rundoc.MetricTime, rundoc.VerdictFailed},
		{"BenchmarkGone", rundoc.MetricTime, rundoc.VerdictOnlyOld},
		{"BenchmarkAdded", rundoc.MetricTime, rundoc.VerdictOnlyNew},
	} {
		if got := verdicts[[2]string{tc.name, tc.metric}]; got != tc.want {
			t.Errorf("%s %s: verdict %q, want %q", tc.name, tc.metric, got, tc.want)
		}
	}
	// Identities keep New's order, then Old's leftovers; nothing dropped.
	var names []string
	for _, r := range c.Rows {
		if r.Metric == rundoc.MetricTime {
			names = append(names, r.Name)
		}
	}
	want := []string{"BenchmarkSlower", "BenchmarkSame", "BenchmarkMoreBytes", "BenchmarkCrash", "BenchmarkAdded", "BenchmarkGone"}
	if len(names) != len(want) {
		t.Fatalf("time rows %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("time rows %v, want %v", names, want)
		}
	}
	for _, r := range c.Rows {
		if r.Verdict == rundoc.VerdictFailed && (r.New == nil || r.New.Error == nil || r.New.Center != nil) {
			t.Errorf("%s: a failed side must carry its error and no value: %+v", r.Name, r.New)
		}
	}
	if len(c.Geomeans) == 0 || c.Geomeans[0].Metric != rundoc.MetricTime || c.Geomeans[0].Identities != 3 {
		t.Errorf("geomeans %+v: want sec/op over the 3 identities measured on both sides first", c.Geomeans)
	}
}

func TestCompareFingerprint(t *testing.T) {
	old := benchDoc(benchRow("BenchmarkX", 8, 1, 1, 1))
	new := benchDoc(benchRow("BenchmarkX", 8, 1, 1, 1))
	new.Meta.CPU, new.Meta.GoVersion = "other cpu", "go1.27"
	_, err := Compare(old, new, CompareConfig{})
	var me *MismatchError
	if !errors.As(err, &me) || !errors.Is(err, ErrFingerprintMismatch) {
		t.Fatalf("err = %v, want a *MismatchError", err)
	}
	if len(me.Diffs) != 2 || me.Diffs[0].Field != "cpu" || me.Diffs[1].Field != "goVersion" {
		t.Errorf("diffs %+v, want cpu and goVersion", me.Diffs)
	}
	c, err := Compare(old, new, CompareConfig{AllowMismatch: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.AllowMismatch || len(c.Mismatches) != 2 {
		t.Errorf("allowed comparison records allowMismatch=%v mismatches=%+v", c.AllowMismatch, c.Mismatches)
	}
}

func TestCompareConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   CompareConfig
		field string
	}{
		{"defaults", CompareConfig{}, ""},
		{"negative threshold", CompareConfig{Threshold: -0.01}, "Threshold"},
		{"threshold over 100%", CompareConfig{Threshold: 1.5}, "Threshold"},
		{"confidence too low", CompareConfig{Bootstrap: Bootstrap{Confidence: 0.3}}, "Confidence"},
		{"too many resamples", CompareConfig{Bootstrap: Bootstrap{Resamples: 1e7}}, "Resamples"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			var ce *ConfigError
			switch {
			case tc.field == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field):
				t.Errorf("Validate() = %v, want a ConfigError on %s", err, tc.field)
			}
		})
	}
}

func TestComparePairedConfidence(t *testing.T) {
	// pairsOf is a side of n processes, each taking ns with a spread
	// that keeps every pair's ratio near factor; bytes vary by process
	// so that B/op is compared by interval, not exactly.
	side := func(n int, ns float64, bytes uint64) rundoc.Row {
		var vs []float64
		for i := range n {
			vs = append(vs, ns*(1+0.001*float64(i)))
		}
		r := benchRow("BenchmarkX", bytes, vs...)
		for i := range r.Processes {
			b := (bytes + uint64(i)) * 1000
			r.Processes[i].Samples[0].AllocBytes = &b
		}
		return r
	}
	tests := []struct {
		name      string
		pairs     int
		asked     float64
		newNs     float64
		newBytes  uint64
		time      rundoc.Verdict
		bytes     rundoc.Verdict
		note      string
		reachedAt float64
	}{
		{"3 pairs at 95%: slower held back", 3, 0.95, 130, 64, rundoc.VerdictInconclusive, rundoc.VerdictSame, "3 pairs reach 75%; 95% needs 6", 0.75},
		{"3 pairs at 95%: equivalent held back", 3, 0.95, 100, 128, rundoc.VerdictInconclusive, rundoc.VerdictInconclusive, "3 pairs reach 75%; 95% needs 6", 0.75},
		{"5 pairs at 95%: still short", 5, 0.95, 130, 64, rundoc.VerdictInconclusive, rundoc.VerdictSame, "5 pairs reach 93.75%; 95% needs 6", 0.9375},
		{"6 pairs at 95%: a verdict", 6, 0.95, 130, 128, rundoc.VerdictSlower, rundoc.VerdictIncreased, "", 0.96875},
		{"6 pairs at 95%: equivalent", 6, 0.95, 100, 64, rundoc.VerdictEquivalent, rundoc.VerdictSame, "", 0.96875},
		{"3 pairs at 75% asked: a verdict", 3, 0.75, 130, 128, rundoc.VerdictSlower, rundoc.VerdictIncreased, "", 0.75},
		{"7 pairs at 99%: short", 7, 0.99, 70, 128, rundoc.VerdictInconclusive, rundoc.VerdictInconclusive, "7 pairs reach 98.44%; 99% needs 8", 1 - 2.0/128},
		{"8 pairs at 99%: faster", 8, 0.99, 70, 64, rundoc.VerdictFaster, rundoc.VerdictSame, "", 1 - 2.0/256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := side(tt.pairs, 100, 64), side(tt.pairs, tt.newNs, tt.newBytes)
			c, err := ComparePaired([]rundoc.Row{old}, []rundoc.Row{new}, CompareConfig{Bootstrap: Bootstrap{Confidence: tt.asked}},
				func(k int) bool { return k%2 == 0 })
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]rundoc.ComparisonRow{}
			for _, r := range c.Rows {
				got[r.Metric] = r
			}
			tr, br := got[rundoc.MetricTime], got[rundoc.MetricBytes]
			if tr.Verdict != tt.time || br.Verdict != tt.bytes {
				t.Fatalf("verdicts %s %s, want %s %s", tr.Verdict, br.Verdict, tt.time, tt.bytes)
			}
			// B/op the same within go test's resolution needs no interval
			// and so no note.
			if bnote := map[bool]string{true: "", false: tt.note}[br.Verdict == rundoc.VerdictSame]; tr.Shortfall != tt.note || br.Shortfall != bnote {
				t.Errorf("shortfalls %q, %q; want %q, %q", tr.Shortfall, br.Shortfall, tt.note, bnote)
			}
			if tr.Confidence == nil || math.Abs(*tr.Confidence-tt.reachedAt) > 1e-12 {
				t.Errorf("confidence %v, want %v", tr.Confidence, tt.reachedAt)
			}
			// The interval is kept: inconclusive is about the verdict.
			if tr.Low == nil || tr.High == nil {
				t.Errorf("no interval: %+v", tr)
			}
		})
	}
}

func TestConfidenceShortfall(t *testing.T) {
	tests := []struct {
		pairs          int
		reached, asked float64
		want           string
	}{
		{3, 0.75, 0.95, "3 pairs reach 75%; 95% needs 6"},
		{5, 0.9375, 0.99, "5 pairs reach 93.75%; 99% needs 8"},
		{2, 0.5, 0.999, "2 pairs reach 50%; 99.9% needs 11"},
		{0, 0.9, 0.95, "the interval reaches 90%, less than the 95% asked"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := ConfidenceShortfall(tt.pairs, tt.reached, tt.asked); got != tt.want {
				t.Errorf("got %q", got)
			}
		})
	}
}

// TestCompareProcessesConfidence: independent runs (compare, --baseline)
// are held back below stats.ProcessesFor processes a side, whatever the
// bootstrap's interval says.
func TestCompareProcessesConfidence(t *testing.T) {
	spread := func(n int, ns float64) []float64 {
		var vs []float64
		for i := range n {
			vs = append(vs, ns*(1+0.002*float64(i)))
		}
		return vs
	}
	tests := []struct {
		name      string
		old, new  int
		asked     float64
		want      rundoc.Verdict
		shortfall string
	}{
		{"3 a side at 95%", 3, 3, 0.95, rundoc.VerdictInconclusive, "3 processes a side; 95% needs 5"},
		{"4 and 6 at 95%: the fewer decides", 6, 4, 0.95, rundoc.VerdictInconclusive, "4 processes a side; 95% needs 5"},
		{"5 a side at 95%", 5, 5, 0.95, rundoc.VerdictSlower, ""},
		{"5 a side at 99%", 5, 5, 0.99, rundoc.VerdictInconclusive, "5 processes a side; 99% needs 7"},
		{"3 a side at 75%", 3, 3, 0.75, rundoc.VerdictSlower, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := benchDoc(benchRow("BenchmarkX", 64, spread(tt.old, 100)...))
			new := benchDoc(benchRow("BenchmarkX", 64, spread(tt.new, 150)...))
			c, err := Compare(old, new, CompareConfig{Bootstrap: Bootstrap{Confidence: tt.asked, Seed: 1}})
			if err != nil {
				t.Fatal(err)
			}
			r := c.Rows[0]
			if r.Metric != rundoc.MetricTime || r.Verdict != tt.want || r.Shortfall != tt.shortfall {
				t.Errorf("%s: verdict %s, shortfall %q; want %s, %q", r.Metric, r.Verdict, r.Shortfall, tt.want, tt.shortfall)
			}
			if r.Low == nil || !(*r.Low > 1.4) {
				t.Errorf("the interval %v..%v should clear the threshold: the verdict is held back, not the interval", r.Low, r.High)
			}
		})
	}
}

// A dry run's document has no numbers: no comparison (and so no gate)
// takes it, on either side, whatever else is allowed.
func TestCompareRefusesDryRun(t *testing.T) {
	for _, side := range []string{"old", "new"} {
		t.Run(side, func(t *testing.T) {
			old := benchDoc(benchRow("BenchmarkX", 8, 1, 1, 1))
			new := benchDoc(benchRow("BenchmarkX", 8, 1, 1, 1))
			dry := old
			if side == "new" {
				dry = new
			}
			rundoc.MarkDryRun(dry)
			_, err := Compare(old, new, CompareConfig{OldLabel: "old.json", NewLabel: "new.json", AllowMismatch: true})
			if !errors.Is(err, rundoc.ErrDryRun) {
				t.Fatalf("err = %v, want ErrDryRun", err)
			}
			if want := side + ".json is a dry run"; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %q, want it to start %q", err, want)
			}
		})
	}
}

// A counted metric compares only when both sides counted it; a side that
// did keeps its value in the row (shown, not hidden), the verdict says
// unavailable and the note names the side that did not.
func TestCountedOneSide(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	row := func(counted map[string]*float64) rundoc.Row {
		return rundoc.Row{Outcome: rundoc.OutcomeOK, Summary: &rundoc.Summary{Processes: 3, Counted: counted,
			Uncertainty: map[string]float64{"minflt": 0.01}}}
	}
	for _, tc := range []struct {
		name             string
		old, new         *float64
		wantOld, wantNew *float64
		verdict          rundoc.Verdict
		note             string
	}{
		{"both", v(0.20), v(0.30), v(0.20), v(0.30), rundoc.VerdictIncreased, ""},
		{"old missing", nil, v(0.30), nil, v(0.30), rundoc.VerdictUnavailable, "not counted on the old side"},
		{"new missing", v(0.20), nil, v(0.20), nil, rundoc.VerdictUnavailable, "not counted on the new side"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := counted(rundoc.ComparisonRow{Name: "BenchmarkX"},
				row(map[string]*float64{"minflt": tc.old}), row(map[string]*float64{"minflt": tc.new}))
			if len(got) != 1 {
				t.Fatalf("%d rows, want 1", len(got))
			}
			r := got[0]
			if r.Verdict != tc.verdict || !strings.HasPrefix(r.Note, tc.note) {
				t.Errorf("verdict %q note %q, want %q and a note starting %q", r.Verdict, r.Note, tc.verdict, tc.note)
			}
			for _, side := range []struct {
				label string
				got   *rundoc.ComparedValue
				want  *float64
			}{{"old", r.Old, tc.wantOld}, {"new", r.New, tc.wantNew}} {
				switch {
				case side.want == nil && side.got != nil:
					t.Errorf("%s side %+v, want none", side.label, side.got)
				case side.want != nil && (side.got == nil || side.got.Center == nil || *side.got.Center != *side.want ||
					side.got.Uncertainty == nil || *side.got.Uncertainty != 0.01 || side.got.Processes != 3):
					t.Errorf("%s side %+v, want center %v ±0.01 over 3 processes", side.label, side.got, *side.want)
				}
			}
			if tc.verdict == rundoc.VerdictUnavailable && r.Ratio != nil {
				t.Errorf("ratio %v for a side that was not counted", *r.Ratio)
			}
		})
	}
}
