package analysis

import (
	"errors"
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
