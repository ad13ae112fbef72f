package rundoc

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ComparisonSchemaVersion is the version of the comparison document; it
// changes whenever a field is removed, renamed or retyped.
const ComparisonSchemaVersion = 1

// Comparison is how one run (New) compares with another (Old), identity by
// identity and metric by metric. It is the output of `benchsup compare`,
// of a run against a baseline and of a run against another revision.
type Comparison struct {
	Schema int          `json:"schema"`
	Old    ComparedRun  `json:"old"`
	New    ComparedRun  `json:"new"`
	Knobs  CompareKnobs `json:"knobs"`
	// Mismatches are the fingerprint fields that differ between the runs;
	// a comparison with any is made only when AllowMismatch was given.
	Mismatches    []FieldDiff `json:"mismatches"`
	AllowMismatch bool        `json:"allowMismatch"`
	// Rows holds one row per identity and metric, identities in the New
	// run's order and then those only Old has; time first within an
	// identity.
	Rows []ComparisonRow `json:"rows"`
	// Geomeans holds, per metric, the geometric mean of the ratios of the
	// identities compared on both sides (as benchstat's geomean line): a
	// summary, with no interval and no verdict.
	Geomeans []Geomean `json:"geomeans"`
	// Sweeps holds a line per sweep family whose scaling differs between
	// the sides beyond what their fits can tell apart (each point keeps
	// its own row and verdict above); absent when none does.
	Sweeps []SweepChange `json:"sweeps,omitempty"`
	// Variants is set when the two sides are variants of one benchmark
	// measured inside one run (--vs=KEY): Old is the reference variant,
	// New the contender, and each row's Name is a group's identity (the
	// key's element written "KEY=*"). Absent for comparisons of builds.
	Variants *VariantComparison `json:"variants,omitempty"`
}

// VariantComparison says which variants a comparison holds and how their
// processes were scheduled (--vs=KEY).
type VariantComparison struct {
	// Key is the name element the variants differ in ("impl"); Reference
	// and Contender its values on the Old and New sides ("fnv", "xxh").
	Key       string `json:"key"`
	Reference string `json:"reference"`
	Contender string `json:"contender"`
	// Iterations is how each variant's N was chosen: "own" (each variant
	// calibrated to the same timed slice) or "shared" (the reference's).
	Iterations string `json:"iterations"`
	// Groups are the groups the contender was compared in, one per
	// combination of the other elements (BenchmarkHash/impl=*/n=8 and
	// BenchmarkHash/impl=*/n=64 are two groups), in the run's order.
	Groups []VariantGroup `json:"groups"`
}

// VariantGroup is one group of variants and the order they ran in.
type VariantGroup struct {
	// Group is the members' shared name with the key's element written
	// "KEY=*"; Members are the key's values in the group, the reference
	// first, then source order.
	Group   string   `json:"group"`
	Members []string `json:"members"`
	// Schedule holds one round per process of each member: the indices
	// into Members in the order their processes ran. Process k of a
	// member's row ran in round k.
	Schedule [][]int `json:"schedule"`
}

// ComparedRun names one side of a comparison.
type ComparedRun struct {
	// Label is what the user named the side: a file, "baseline FILE", a
	// git revision, "working tree".
	Label       string      `json:"label"`
	Date        string      `json:"date"`
	Fingerprint Fingerprint `json:"fingerprint"`
}

// CompareKnobs are the settings of the statistics, retained so that a
// comparison can be reproduced exactly.
type CompareKnobs struct {
	// Threshold is the practical threshold as a fraction (0.02 is 2%): a
	// difference is called only when its whole interval lies beyond it.
	Threshold  float64 `json:"threshold"`
	Confidence float64 `json:"confidence"` // asked for; each row reports what it achieved
	Resamples  int     `json:"resamples"`
	Seed       uint64  `json:"seed"`
	// Paired says processes ran in interleaved pairs of the two builds
	// (a run with --against): each row's time interval then comes from the
	// pairs, not from each side alone.
	Paired bool `json:"paired"`
}

// Metric names of comparison rows besides b.ReportMetric units and
// catalog metric names.
const (
	MetricTime   = "sec/op"
	MetricBytes  = "B/op"
	MetricAllocs = "allocs/op"
	// A recording's rows: the median, p95 and p99 of its individual
	// spans' durations (ns).
	MetricSpanMedian = "span-median"
	MetricSpanP95    = "span-p95"
	MetricSpanP99    = "span-p99"
)

// Verdicts of comparison rows. Time rows say faster or slower; every other
// metric increased or decreased, since whether more is better depends on
// the metric. Exact values (B/op and allocs/op that no process varied)
// compare without an interval: same, increased or decreased.
const (
	VerdictFaster       Verdict = "faster"
	VerdictSlower       Verdict = "slower"
	VerdictIncreased    Verdict = "increased"
	VerdictDecreased    Verdict = "decreased"
	VerdictEquivalent   Verdict = "equivalent"
	VerdictInconclusive Verdict = "inconclusive"
	VerdictSame         Verdict = "same"
	VerdictWithinNoise  Verdict = "within-noise" // counted metrics: the difference is inside their uncertainty
	VerdictOnlyOld      Verdict = "only-old"     // the identity ran only in Old
	VerdictOnlyNew      Verdict = "only-new"
	VerdictFailed       Verdict = "failed"      // a side has no value because the identity failed there
	VerdictUnavailable  Verdict = "unavailable" // cannot be compared; Note says why
)

// Verdict is what a comparison row found; its JSON is the string.
type Verdict string

// Regressed reports whether the verdict is a regression the gate fails
// on: slower beyond the threshold (a time row's verdict).
func (v Verdict) Regressed() bool { return v == VerdictSlower }

// Undecided reports whether the comparison could not tell: inconclusive,
// or unavailable (no value to compare).
func (v Verdict) Undecided() bool { return v == VerdictInconclusive || v == VerdictUnavailable }

// Incomplete reports whether a side lacks the identity's value because it
// failed there or ran only in the old run: what a gate treats as worse
// than a regression.
func (v Verdict) Incomplete() bool { return v == VerdictFailed || v == VerdictOnlyOld }

// ShortOfConfidence reports whether the row's interval reaches less
// confidence than asked (3 pairs reach 75% of an asked 95%), or came from
// too few processes for it (Shortfall): such a row has no verdict but
// inconclusive, and a gate counts it as undecided.
func (r ComparisonRow) ShortOfConfidence(asked float64) bool {
	return r.Shortfall != "" || (r.Confidence != nil && asked > 0 && *r.Confidence < asked-1e-9)
}

// ComparisonRow is one metric of one identity on both sides.
type ComparisonRow struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	Metric  string `json:"metric"`
	// Old and New are the sides' values; nil when the side has none (the
	// identity is missing there, failed, or lacks the metric).
	Old *ComparedValue `json:"old"`
	New *ComparedValue `json:"new"`
	// Ratio is New/Old with its interval (Low, High) at Confidence, P the
	// p-value of "no difference" and Method how the interval was drawn;
	// nil when not computed. An exact comparison has a Ratio and no
	// interval.
	Ratio      *float64 `json:"ratio"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence *float64 `json:"confidence"`
	P          *float64 `json:"p"`
	Method     string   `json:"method,omitempty"`
	Verdict    Verdict  `json:"verdict"`
	// Shortfall says why a row whose interval may clear the threshold
	// has no verdict but inconclusive: too few pairs or processes for the
	// confidence asked ("3 pairs reach 75%; 95% needs 6", "3 processes a
	// side; 95% needs 5"). Empty when there were enough.
	Shortfall string `json:"shortfall,omitempty"`
	// OrderEffect (paired runs, time rows) is the ratio measured when the
	// old build ran first in its pair over that measured when the new one
	// did (1: none); a diagnostic of drift within pairs, which balanced
	// order cancels from Ratio.
	OrderEffect *float64 `json:"orderEffect,omitempty"`
	// Wins and Losses (paired runs, time rows) count the pairs in which
	// New measured less time than Old, and more; equal pairs are in
	// neither.
	Wins   *int `json:"wins,omitempty"`
	Losses *int `json:"losses,omitempty"`
	// ComparisonDesign is "independent" for a recording's rows: each
	// side's individual spans resampled on their own (a recording has no
	// processes to resample, nor pairs); absent for benchmark rows.
	ComparisonDesign string `json:"comparisonDesign,omitempty"`
	Note             string `json:"note,omitempty"`
}

// DesignIndependent is the ComparisonDesign of a recording's rows.
const DesignIndependent = "independent"

// ComparedValue is one side of a comparison row.
type ComparedValue struct {
	// Center is the median over processes of per-process medians (time in
	// nanoseconds per iteration); nil when the side has no value.
	Center *float64 `json:"center"`
	// Processes counts the processes with a value; Outliers lists the
	// indexes of those whose median is far from the others' (flagged and
	// counted, never dropped). A recording's rows have no processes (their
	// unit is the span: Spans), and omit it rather than write a 0.
	Processes int   `json:"processes,omitempty"`
	Outliers  []int `json:"outliers"`
	// Spans counts the retained spans a recording's row compares; nil
	// for a benchmark's rows.
	Spans *int64 `json:"spans,omitempty"`
	// Uncertainty is a counted metric's uncertainty; nil otherwise.
	Uncertainty *float64 `json:"uncertainty,omitempty"`
	// Outcome and Error are the identity's on this side when it failed.
	Outcome Outcome `json:"outcome"`
	Error   *string `json:"error,omitempty"`
}

// Geomean is the geometric mean of one metric's ratios.
type Geomean struct {
	Metric     string  `json:"metric"`
	Ratio      float64 `json:"ratio"`
	Identities int     `json:"identities"`
}

// Fingerprint is what must match for two runs' numbers to be comparable:
// the host, the toolchain, the environment and the sampling. A repetition
// count is not part of it: more processes narrow an interval without
// moving the number.
type Fingerprint struct {
	OS              string `json:"os"`
	Arch            string `json:"arch"`
	CPU             string `json:"cpu"`
	GOMAXPROCS      int    `json:"gomaxprocs"`
	GoVersion       string `json:"goVersion"`
	BenchsupVersion string `json:"benchsupVersion"`
	Environment     string `json:"environment"` // policy and the hash of the children's variable names
	SampleTimeNs    int64  `json:"sampleTimeNs"`
	SampleCount     int    `json:"sampleCount"`
	Containment     string `json:"containment"`
	// Placement is the CPUs the children were pinned to (--cpus, as
	// Meta.Placement.CPUs); "none" when they were not: a pinned and an
	// unpinned run are not the same environment.
	Placement string `json:"placement"`
	// BuildFlags are the go build flags of the build, space-separated
	// (-race or -gcflags=-N make other code); "" when none.
	BuildFlags string `json:"buildFlags,omitempty"`
}

// FieldDiff is one fingerprint field that differs.
type FieldDiff struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Fingerprint returns the run's fingerprint.
func (m Meta) Fingerprint() Fingerprint {
	return Fingerprint{
		OS: m.OS, Arch: m.Arch, CPU: m.CPU, GOMAXPROCS: m.GOMAXPROCS, GoVersion: m.GoVersion,
		BenchsupVersion: m.BenchsupVersion,
		Environment:     m.Environment.Policy + " " + m.Environment.NamesHash,
		SampleTimeNs:    m.Knobs.SampleTimeNs, SampleCount: m.Knobs.SampleCount,
		Containment: m.Containment, Placement: m.Placement.fingerprint(),
		BuildFlags: strings.Join(m.BuildFlags, " "),
	}
}

// Diff returns the fields of f and g that differ, in declaration order.
func (f Fingerprint) Diff(g Fingerprint) []FieldDiff {
	var out []FieldDiff
	add := func(field, a, b string) {
		if a != b {
			out = append(out, FieldDiff{field, a, b})
		}
	}
	add("os", f.OS, g.OS)
	add("arch", f.Arch, g.Arch)
	add("cpu", f.CPU, g.CPU)
	add("gomaxprocs", strconv.Itoa(f.GOMAXPROCS), strconv.Itoa(g.GOMAXPROCS))
	add("goVersion", f.GoVersion, g.GoVersion)
	add("benchsupVersion", f.BenchsupVersion, g.BenchsupVersion)
	add("environment", f.Environment, g.Environment)
	add("sampleTimeNs", strconv.FormatInt(f.SampleTimeNs, 10), strconv.FormatInt(g.SampleTimeNs, 10))
	add("sampleCount", strconv.Itoa(f.SampleCount), strconv.Itoa(g.SampleCount))
	add("containment", f.Containment, g.Containment)
	add("placement", f.Placement, g.Placement)
	add("buildFlags", f.BuildFlags, g.BuildFlags)
	return out
}

// WriteComparisonJSON writes c as indented JSON, with empty lists as []
// rather than null, and refuses a non-finite number (JSON has none) before
// writing anything. Its last member is "checksum", as WriteJSON's, which
// ReadComparison verifies; the rows stream out one by one, as WriteJSON's
// do, with the same caveat for a failure of w.
func WriteComparisonJSON(w io.Writer, c Comparison) error {
	if err := CheckFinite(c); err != nil {
		return fmt.Errorf("encoding the comparison: %w", err)
	}
	c.Mismatches = orEmpty(c.Mismatches)
	c.Rows = orEmpty(c.Rows)
	c.Geomeans = orEmpty(c.Geomeans)
	hw := newHashingWriter(w)
	s := &jsonStream{w: hw}
	writeComparison(s, 0, c, func(r ComparisonRow) ComparisonRow {
		// Copies: the caller's values keep their nil lists.
		for _, v := range []**ComparedValue{&r.Old, &r.New} {
			if *v != nil {
				cv := **v
				cv.Outliers = orEmpty(cv.Outliers)
				*v = &cv
			}
		}
		return r
	})
	if s.err == nil {
		s.err = hw.finish()
	}
	if s.err != nil {
		return fmt.Errorf("encoding the comparison: %w", s.err)
	}
	return nil
}

// writeComparison streams c, whose opening brace sits at depth, each row
// passed through norm (nil: as it is); a top-level comparison is left
// open for its checksum member.
func writeComparison(s *jsonStream, depth int, c Comparison, norm func(ComparisonRow) ComparisonRow) {
	o := s.object(depth)
	o.member("schema", c.Schema)
	o.member("old", c.Old)
	o.member("new", c.New)
	o.member("knobs", c.Knobs)
	o.member("mismatches", c.Mismatches)
	o.member("allowMismatch", c.AllowMismatch)
	o.key("rows")
	if c.Rows == nil {
		s.raw("null")
	} else {
		streamArray(s, depth+1, c.Rows, func(r ComparisonRow) {
			if norm != nil {
				r = norm(r)
			}
			s.value(depth+2, r)
		})
	}
	o.member("geomeans", c.Geomeans)
	if len(c.Sweeps) > 0 {
		o.member("sweeps", c.Sweeps)
	}
	if c.Variants != nil {
		o.member("variants", c.Variants)
	}
	if depth > 0 {
		o.close()
	}
}

// ErrNotComparison says the input is not a benchsup comparison document.
var ErrNotComparison = errors.New("not a benchsup comparison document")

// ReadComparison decodes a comparison document (at most MaxDocumentSize
// bytes), refusing another schema, another shape (a run document),
// trailing data, a checksum that does not verify or is out of place, and
// a value outside its domain (see validateComparison), strictly as
// ReadDocument decodes a run document (mismatches, rows and geomeans are
// arrays, never null). A document with no checksum is read, and Integrity
// says so.
func ReadComparison(r io.Reader) (*Comparison, Integrity, error) {
	c := new(Comparison)
	var checksum checksumMember
	integrity, err := readJSON(r, MaxDocumentSize, comparisonMembers(c, &checksum), &checksum)
	if err != nil {
		return nil, Integrity{}, wrapRead(ErrNotComparison, err)
	}
	switch {
	case c.Schema == 0:
		return nil, Integrity{}, fmt.Errorf("%w: comparison schema 0, this benchsup reads %d", ErrNotComparison, ComparisonSchemaVersion)
	case c.Old.Label == "" && c.New.Label == "":
		return nil, Integrity{}, fmt.Errorf("%w: %s", ErrNotComparison, notComparison)
	}
	if err := validateComparison(c); err != nil {
		return nil, Integrity{}, err
	}
	return c, integrity, nil
}

// notComparison says that a run document was given for a comparison.
const notComparison = "no old and new sides (a run document, from run --json?)"

// comparisonMembers are the top-level members of a comparison document, in
// the order WriteComparisonJSON writes them, decoded into c.
func comparisonMembers(c *Comparison, checksum *checksumMember) []topMember {
	return []topMember{
		schemaMember(&c.Schema, ComparisonSchemaVersion, ErrNotComparison, "comparison schema %d, this benchsup reads %d"),
		valueMember("old", &c.Old),
		valueMember("new", &c.New),
		valueMember("knobs", &c.Knobs),
		arrayMember("mismatches", &c.Mismatches),
		valueMember("allowMismatch", &c.AllowMismatch),
		arrayMember("rows", &c.Rows),
		arrayMember("geomeans", &c.Geomeans),
		arrayMember("sweeps", &c.Sweeps),
		valueMember("variants", &c.Variants),
		checksumOf(checksum),
		// A run document's members: said as what it is.
		otherKind("meta", ErrNotComparison, notComparison),
	}
}
