package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// CSVOptions selects the CSV form of a run document.
type CSVOptions struct {
	// Samples selects the long form, one row per raw sample, instead of
	// the wide form, one row per identity.
	Samples bool
}

// The fixed columns of each CSV form, in order; dynamic columns follow
// them. They are the documented contract of the CSV output.
var (
	csvWideColumns = []string{
		"package", "name", "kind", "build", "outcome", "error", "skipped",
		"processes", "samples", "iterations",
		"median_ns", "ci_low_ns", "ci_high_ns", "ci_confidence", "within_mad_ns",
		"min_ns", "max_ns", "short_samples", "elapsed_ns",
		"absences", "notes",
		"interference_disturbed", "interference_retakes", "interference_pauses",
		"interference_paused_ns", "interference_max_foreign",
		"mean_of_process_medians_ns", "sd_of_process_medians_ns", "cv_of_process_medians",
	}
	csvSampleColumns = []string{
		"package", "name", "build", "process", "process_outcome", "process_error", "pid",
		"sample", "iterations", "elapsed_ns", "ns_per_op", "alloc_bytes", "allocs", "exact", "short",
		"foreign", "disturbed", "retaken",
	}
	// csvRecordingColumns follow every other column of the wide form
	// when the run has recordings.
	csvRecordingColumns = []string{
		"recording:success", "recording:failure", "recording:timeout", "recording:canceled", "recording:unfinished",
		"recording:observations", "recording:retained", "recording:omitted", "recording:policy", "recording:capacity",
		"recording:percentiles_over", "recording:spans", "recording:median_ns", "recording:p90_ns", "recording:p95_ns",
		"recording:p99_ns", "recording:min_ns", "recording:max_ns", "recording:mean_ns",
		"recording:median_low_ns", "recording:median_high_ns", "recording:median_confidence",
	}
	// csvSweepColumns follow every other column of the wide form when
	// the run has sweeps.
	csvSweepColumns = []string{
		"sweep:parameter", "sweep:status", "sweep:caveat", "sweep:reason", "sweep:selected", "sweep:best", "sweep:candidates",
		"sweep:points", "sweep:range_min", "sweep:range_max", "sweep:observed_exponent", "sweep:exponent_stderr",
		"sweep:omitted",
		"sweep:model", "sweep:model_selected", "sweep:coefficient", "sweep:nominal_exponent", "sweep:r2",
		"sweep:rms_log_residual", "sweep:max_log_residual",
	}
	csvComparisonColumns = []string{
		"package", "name", "metric",
		"old_center", "old_uncertainty", "old_processes", "old_outliers", "old_outcome", "old_error",
		"new_center", "new_uncertainty", "new_processes", "new_outliers", "new_outcome", "new_error",
		"ratio", "low", "high", "confidence", "p", "method", "verdict", "order_effect", "note",
		"wins", "losses", "vs:key", "vs:reference", "vs:contender", "shortfall",
	}
	// csvRunComparisonColumns follow every other column of the wide form
	// when the run compared (--against, --baseline, --vs).
	csvRunComparisonColumns = []string{
		"comparison:old", "comparison:new", "comparison:metric",
		"comparison:old_center", "comparison:new_center", "comparison:ratio", "comparison:delta",
		"comparison:low", "comparison:high", "comparison:confidence", "comparison:p",
		"comparison:verdict", "comparison:reason",
	}
)

// WriteCSV writes doc as CSV (RFC 4180 quoting by encoding/csv, "\n" line
// ends, a header row first). Every form keeps the rules of the document: an
// unavailable value is an empty field, never 0; a float is written with
// strconv.FormatFloat(v, 'g', -1, 64), so strconv.ParseFloat reads back the
// exact float64 (a non-finite value as NaN, +Inf or -Inf); a boolean is
// true or false; a row's build is empty for the working tree.
//
// The wide form (the default) has one row per Row of the document, in
// document order: benchmarks, tests, package rows and workload rows (then
// the sweep rows, below). Its
// columns are package, name, kind, build, outcome, error, skipped;
// processes (processes with samples), samples, iterations (N per sample of
// the first process), median_ns, ci_low_ns, ci_high_ns, ci_confidence,
// within_mad_ns, min_ns, max_ns, short_samples, all from Summary and empty
// when the row has none (tests, failed or skipped rows, workloads);
// elapsed_ns (a test's or package's duration); absences (each distinct
// reason once after the metrics it takes away, "metric, metric: reason",
// joined by "; ") and notes (joined by "; "); interference_disturbed,
// interference_retakes, interference_pauses, interference_paused_ns and
// interference_max_foreign (a fraction of the host's CPU capacity), the
// interference watch summed over the row's processes (Row.Interference),
// all empty when no watch ran, interference_max_foreign also when no
// sample's window was long enough to tell; mean_of_process_medians_ns,
// sd_of_process_medians_ns and cv_of_process_medians (Summary's moments
// of the process medians, the deviation and coefficient empty for one
// process). Then, in a stable order, one
// column "metric:<unit>" per Summary.Metrics unit any row has (B/op,
// allocs/op, MB/s first, the rest sorted, as the table orders them), and for
// each Document.Columns metric, in its order, "counted:<name>",
// "counted:<name>:uncertainty" and "counted:<name>:estimated" (empty when
// the value is).
//
// A run with sweep families (Document.Sweeps) has, after its rows, one
// row per family and model, kind "sweep": package, name (the family,
// BenchmarkHash/n=*) and build set, every other fixed, metric and counted
// column empty. Their fields are the columns csvSweepColumns appends to
// the header (only when the run has sweeps, so a run without keeps its
// columns): the family's sweep:parameter, sweep:status, sweep:caveat
// (rundoc.ScalingCaveat), sweep:reason,
// sweep:selected (the selected model, empty unless fitted), sweep:best,
// sweep:candidates (space-separated), sweep:points (how many),
// sweep:range_min and sweep:range_max (exact decimal integers, even past
// 2^53), sweep:observed_exponent and sweep:exponent_stderr, sweep:omitted
// ("name: reason" joined by "; "), repeated on each of its rows; then the
// model's sweep:model, sweep:model_selected, sweep:coefficient (ns per
// unit of g(n)), sweep:nominal_exponent, sweep:r2, sweep:rms_log_residual
// and sweep:max_log_residual (natural-log units). A family without fits
// (unavailable) has one row, its model fields empty. A sweep row's
// columns are empty on every other row.
//
// A run that recorded spans (Document.Recordings) has, after those, one
// row per recorded identity, kind "recording": package (the recording's
// source, empty when unknown) and name (the identity) set, every other
// column before its own empty. Their fields are the columns
// csvRecordingColumns appends last (only when the run has recordings):
// the outcome counts, observations, retained, omitted, the retention
// policy and capacity, then the summary's percentiles_over, spans,
// median_ns, p90_ns, p95_ns, p99_ns (of individual spans), min_ns, max_ns,
// mean_ns and the median's interval, all prefixed "recording:"; the
// summary's fields are empty when no span finished.
//
// The long form (opt.Samples) has one row per raw sample of every process
// of every row, with columns package, name, build, process (the process
// index), process_outcome, process_error, pid, sample (0-based within the
// process), iterations, elapsed_ns (the sample's total), ns_per_op,
// alloc_bytes and allocs (totals over the sample), exact, short, foreign
// (the foreign share of the host's CPU over the sample, empty when not
// watched or too short to tell), disturbed (empty when the process had no
// watch), retaken, then one column "extra:<unit>" per b.ReportMetric unit
// any sample reported, as reported. A process's kept samples come first
// (retaken false; sample is the index in ProcessResult.Samples), then the
// samples the interference watch discarded and took again (retaken true;
// sample is the index in ProcessResult.Retaken): those are in no
// statistic, and a reader filtering on retaken=false gets exactly the
// samples the summary used. A process with neither still has one row, its
// sample fields empty; a row without processes (a test, a package that
// did not build) has none: it is in the wide form.
//
// A run that compared (Document.Comparisons: --against, --baseline, --vs)
// has, last, one row per comparison row, kind "comparison": package and
// name set, every other column before its own empty. Their fields are the
// columns csvRunComparisonColumns appends last (only when the run
// compared): comparison:old and comparison:new (the sides' labels: a
// revision, "working tree", "impl=fnv"), comparison:metric, the sides'
// centers (comparison:old_center, comparison:new_center), comparison:ratio
// (new/old) and comparison:delta (new − old), the ratio's interval
// (comparison:low, comparison:high) and the confidence it achieved,
// comparison:p, comparison:verdict and comparison:reason (the row's
// shortfall and note, joined by "; ").
//
// Neither form holds workload windows, the run's metadata, a row's output
// tail or calibration: those are in the JSON document only.
func WriteCSV(w io.Writer, doc rundoc.Document, opt CSVOptions) error {
	doc = escapedData(doc)
	var records [][]string
	if opt.Samples {
		records = csvSampleRecords(doc)
	} else {
		records = csvWideRecords(doc)
	}
	return csvWriteRecords(w, records)
}

// WriteComparisonCSV writes c as CSV, in the conventions of WriteCSV: one
// row per ComparisonRow, in the comparison's order, with columns package,
// name, metric; for each side (old_, new_) center, uncertainty (counted
// metrics), processes, outliers (process indexes, space-separated), outcome
// and error, all empty when the side is missing; then ratio, low, high,
// confidence, p, method, verdict, order_effect and note; then wins and
// losses (paired runs' time rows, empty otherwise), for variants (--vs),
// vs:key, vs:reference and vs:contender, and the row's shortfall (why it is
// inconclusive for want of pairs or processes, empty otherwise). The
// geomeans, the
// fingerprints and the knobs are not in the CSV: they are in the JSON
// comparison document.
func WriteComparisonCSV(w io.Writer, c rundoc.Comparison) error {
	return WriteComparisonsCSV(w, []rundoc.Comparison{c})
}

// WriteComparisonsCSV writes the rows of every comparison of cs under one
// header, as WriteComparisonCSV writes one: a run's comparisons (one per
// revision of --against, one per contender of --vs), told apart by the
// vs: columns and, for builds, by the order of cs.
func WriteComparisonsCSV(w io.Writer, cs []rundoc.Comparison) error {
	cs = escapedData(cs)
	records := [][]string{csvComparisonColumns}
	for _, c := range cs {
		records = append(records, csvComparisonRecords(c)...)
	}
	return csvWriteRecords(w, records)
}

func csvComparisonRecords(c rundoc.Comparison) [][]string {
	var records [][]string
	var vs [3]string
	if v := c.Variants; v != nil {
		vs = [3]string{v.Key, v.Reference, v.Contender}
	}
	for _, r := range c.Rows {
		rec := []string{csvText(r.Package), csvText(r.Name), csvText(r.Metric)}
		for _, v := range []*rundoc.ComparedValue{r.Old, r.New} {
			if v == nil {
				rec = append(rec, "", "", "", "", "", "")
				continue
			}
			outliers := make([]string, len(v.Outliers))
			for i, o := range v.Outliers {
				outliers[i] = strconv.Itoa(o)
			}
			rec = append(rec, csvFloatPtr(v.Center), csvFloatPtr(v.Uncertainty), strconv.Itoa(v.Processes),
				strings.Join(outliers, " "), csvText(string(v.Outcome)), csvText(csvString(v.Error)))
		}
		rec = append(rec, csvFloatPtr(r.Ratio), csvFloatPtr(r.Low), csvFloatPtr(r.High), csvFloatPtr(r.Confidence),
			csvFloatPtr(r.P), csvText(r.Method), csvText(string(r.Verdict)), csvFloatPtr(r.OrderEffect), csvText(r.Note),
			csvIntPtr(r.Wins), csvIntPtr(r.Losses), csvText(vs[0]), csvText(vs[1]), csvText(vs[2]), csvText(r.Shortfall))
		records = append(records, rec)
	}
	return records
}

func csvIntPtr(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func csvWideRecords(doc rundoc.Document) [][]string {
	var units []string
	for _, r := range doc.Rows {
		if r.Summary == nil {
			continue
		}
		for u := range r.Summary.Metrics {
			units = appendNew(units, u)
		}
	}
	units = orderUnits(units)

	header := slices.Clone(csvWideColumns)
	for _, u := range units {
		header = append(header, "metric:"+u)
	}
	for _, c := range doc.Columns {
		header = append(header, "counted:"+c.Name, "counted:"+c.Name+":uncertainty", "counted:"+c.Name+":estimated")
	}
	rowWidth := len(header)
	if len(doc.Sweeps) > 0 {
		header = append(header, csvSweepColumns...)
	}
	recordingLead := len(header)
	if len(doc.Recordings) > 0 {
		header = append(header, csvRecordingColumns...)
	}
	comparisonLead := len(header)
	if len(doc.Comparisons) > 0 {
		header = append(header, csvRunComparisonColumns...)
	}
	records := [][]string{header}

	for _, r := range doc.Rows {
		rec := []string{csvText(r.Package), csvText(r.Name), csvText(string(r.Kind)), csvText(r.Build), csvText(string(r.Outcome)),
			csvText(csvString(r.Error)), csvText(csvString(r.Skipped))}
		s := r.Summary
		if s == nil {
			rec = append(rec, make([]string, 11)...)
		} else {
			low, high, conf := "", "", ""
			if s.Interval != nil {
				low, high, conf = csvFloat(s.Interval.LowNs), csvFloat(s.Interval.HighNs), csvFloat(s.Interval.Confidence)
			}
			rec = append(rec, strconv.Itoa(s.Processes), strconv.Itoa(s.Samples), strconv.FormatInt(s.Iterations, 10),
				csvFloat(s.MedianNs), low, high, conf, csvFloatPtr(s.WithinMADNs),
				csvFloat(s.MinNs), csvFloat(s.MaxNs), strconv.Itoa(s.ShortSamples))
		}
		elapsed := ""
		if r.ElapsedNs != nil {
			elapsed = strconv.FormatInt(*r.ElapsedNs, 10)
		}
		rec = append(rec, elapsed, csvText(csvAbsences(r.Absences)), csvText(strings.Join(r.Notes, "; ")))
		if in := r.Interference; in == nil {
			rec = append(rec, "", "", "", "", "")
		} else {
			rec = append(rec, strconv.Itoa(in.Disturbed), strconv.Itoa(in.Retakes), strconv.Itoa(in.Pauses),
				strconv.FormatInt(in.PausedNs, 10), csvFloatPtr(in.MaxForeign))
		}
		if s == nil {
			rec = append(rec, "", "", "")
		} else {
			rec = append(rec, csvFloatPtr(s.MeanOfProcessMediansNs), csvFloatPtr(s.SDOfProcessMediansNs), csvFloatPtr(s.CVOfProcessMedians))
		}

		for _, u := range units {
			var v *float64
			if s != nil {
				v = s.Metrics[u]
			}
			rec = append(rec, csvFloatPtr(v))
		}
		for _, c := range doc.Columns {
			var v *float64
			if s != nil {
				v = s.Counted[c.Name]
			}
			if v == nil {
				rec = append(rec, "", "", "")
				continue
			}
			unc := ""
			if u, ok := s.Uncertainty[c.Name]; ok {
				unc = csvFloat(u)
			}
			rec = append(rec, csvFloat(*v), unc, strconv.FormatBool(slices.Contains(s.EstimatedMetrics, c.Name)))
		}
		records = append(records, append(rec, make([]string, len(header)-len(rec))...))
	}
	for _, sw := range doc.Sweeps {
		for _, rec := range csvSweepRecords(sw, rowWidth) {
			records = append(records, append(rec, make([]string, len(header)-len(rec))...))
		}
	}
	for _, r := range doc.Recordings {
		rec := csvRecordingRecord(r, recordingLead)
		records = append(records, append(rec, make([]string, len(header)-len(rec))...))
	}
	for _, c := range doc.Comparisons {
		for _, r := range c.Rows {
			records = append(records, csvRunComparisonRecord(c, r, comparisonLead))
		}
	}
	return records
}

// csvAbsences is a row's absences field: each distinct reason once, after
// the metrics it takes away ("task-clock, minflt: not counted by default:
// …; instructions: perf-hw unavailable"), in the order reasons first
// appear, rather than one sentence repeated per metric.
func csvAbsences(as []rundoc.MetricAbsence) string {
	var reasons []string
	metrics := map[string][]string{}
	for _, a := range as {
		if _, ok := metrics[a.Reason]; !ok {
			reasons = append(reasons, a.Reason)
		}
		metrics[a.Reason] = append(metrics[a.Reason], a.Metric)
	}
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = strings.Join(metrics[r], ", ") + ": " + r
	}
	return strings.Join(parts, "; ")
}

// csvKindComparison is the kind of a comparison's row in the wide form.
const csvKindComparison = "comparison"

// csvRunComparisonRecord is a comparison row of the wide form: package,
// name and kind set, the comparison's columns last; lead is the width of
// the columns before them.
func csvRunComparisonRecord(c rundoc.Comparison, r rundoc.ComparisonRow, lead int) []string {
	rec := make([]string, lead, lead+len(csvRunComparisonColumns))
	rec[0], rec[1], rec[2] = csvText(r.Package), csvText(r.Name), csvKindComparison
	center := func(v *rundoc.ComparedValue) *float64 {
		if v == nil {
			return nil
		}
		return v.Center
	}
	o, n := center(r.Old), center(r.New)
	delta := ""
	if o != nil && n != nil {
		delta = csvFloat(*n - *o)
	}
	reason := r.Shortfall
	if r.Note != "" {
		reason = strings.TrimPrefix(reason+"; "+r.Note, "; ")
	}
	return append(rec, csvText(c.Old.Label), csvText(c.New.Label), csvText(r.Metric), csvFloatPtr(o), csvFloatPtr(n), csvFloatPtr(r.Ratio), delta,
		csvFloatPtr(r.Low), csvFloatPtr(r.High), csvFloatPtr(r.Confidence), csvFloatPtr(r.P), csvText(string(r.Verdict)), csvText(reason))
}

// csvSweepRecords are a sweep's rows of the wide form: one per model
// fitted, or one with empty model fields when none was; lead is the
// width of the columns before the sweep columns.
func csvSweepRecords(sw rundoc.Sweep, lead int) [][]string {
	rec := make([]string, lead, lead+len(csvSweepColumns))
	rec[0], rec[1], rec[2], rec[3] = csvText(sw.Package), csvText(sw.Family), csvKindSweep, csvText(sw.Build)
	model := func(m *rundoc.Model) string {
		if m == nil {
			return ""
		}
		return csvText(string(*m))
	}
	candidates := make([]string, len(sw.Candidates))
	for i, m := range sw.Candidates {
		candidates[i] = string(m)
	}
	omitted := make([]string, len(sw.Omitted))
	for i, o := range sw.Omitted {
		omitted[i] = o.Name + ": " + o.Reason
	}
	lo, hi := "", ""
	if sw.Range != nil {
		lo, hi = sw.Range.MinExact, sw.Range.MaxExact
	}
	rec = append(rec, csvText(sw.Parameter), csvText(string(sw.Status)), csvText(sw.Caveat), csvText(sw.Reason), model(sw.Selected), model(sw.Best),
		csvText(strings.Join(candidates, " ")), strconv.Itoa(len(sw.Points)), csvDecimal(lo), csvDecimal(hi),
		csvFloatPtr(sw.ObservedExponent), csvFloatPtr(sw.ExponentStdError), csvText(strings.Join(omitted, "; ")))
	if len(sw.Models) == 0 {
		return [][]string{append(rec, "", "", "", "", "", "", "")}
	}
	var out [][]string
	for _, f := range sw.Models {
		out = append(out, append(slices.Clone(rec), csvText(string(f.Model)), strconv.FormatBool(f.Selected), csvFloat(f.Coefficient),
			csvFloat(f.NominalExponent), csvFloatPtr(f.R2), csvFloat(f.RMSLogResidual), csvFloat(f.MaxLogResidual)))
	}
	return out
}

// csvKindSweep is the kind column of a sweep's rows in the wide form.
const csvKindSweep = "sweep"

func csvSampleRecords(doc rundoc.Document) [][]string {
	var units []string
	for _, r := range doc.Rows {
		for _, p := range r.Processes {
			for _, s := range slices.Concat(p.Samples, p.Retaken) {
				for u := range s.Extra {
					units = appendNew(units, u)
				}
			}
		}
	}
	units = orderUnits(units)

	header := slices.Clone(csvSampleColumns)
	for _, u := range units {
		header = append(header, "extra:"+u)
	}
	records := [][]string{header}
	for _, r := range doc.Rows {
		for _, p := range r.Processes {
			proc := []string{csvText(r.Package), csvText(r.Name), csvText(r.Build), strconv.Itoa(p.Index), csvText(string(p.Outcome)),
				csvText(csvString(p.Error)), strconv.Itoa(p.PID)}
			if len(p.Samples) == 0 && len(p.Retaken) == 0 {
				// The process is a row of its own, so that no process is
				// silently missing from the long form.
				records = append(records, append(proc, make([]string, len(header)-len(proc))...))
				continue
			}
			watched := p.Interference != nil
			for _, set := range []struct {
				samples []rundoc.Sample
				retaken bool
			}{{p.Samples, false}, {p.Retaken, true}} {
				for i, s := range set.samples {
					rec := append(slices.Clone(proc), csvSampleFields(i, s)...)
					disturbed := ""
					if watched || s.Disturbed {
						disturbed = strconv.FormatBool(s.Disturbed)
					}
					rec = append(rec, csvFloatPtr(s.Foreign), disturbed, strconv.FormatBool(set.retaken))
					for _, u := range units {
						v, ok := s.Extra[u]
						if !ok {
							rec = append(rec, "")
							continue
						}
						rec = append(rec, csvFloat(v))
					}
					records = append(records, rec)
				}
			}
		}
	}
	return records
}

// csvSampleFields are the fixed sample columns from sample to short.
func csvSampleFields(i int, s rundoc.Sample) []string {
	perOp := ""
	if v, ok := s.NsPerOp(); ok {
		perOp = csvFloat(v)
	}
	return []string{strconv.Itoa(i), strconv.FormatInt(s.Iterations, 10), strconv.FormatInt(s.ElapsedNs, 10), perOp,
		csvUint(s.AllocBytes), csvUint(s.Allocs), strconv.FormatBool(s.Exact), strconv.FormatBool(s.Short)}
}

func csvWriteRecords(w io.Writer, records [][]string) error {
	cw := csv.NewWriter(w) // UseCRLF false: "\n" line ends
	if err := cw.WriteAll(records); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

// csvFloat writes the shortest form that parses back to v exactly.
func csvFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func csvFloatPtr(v *float64) string {
	if v == nil {
		return ""
	}
	return csvFloat(*v)
}

func csvUint(v *uint64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatUint(*v, 10)
}

// csvText is a text cell (a name, an error, a note, a label): one a
// spreadsheet would evaluate as a formula, as it begins with =, +, -, @,
// a tab or a carriage return, is prefixed with a single quote, which a
// spreadsheet shows as text (OWASP's rule against CSV injection). Numbers
// are not text cells: a negative delta stays a number.
func csvText(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// csvDecimal is a cell that holds an exact decimal integer (a sweep's
// range), neutralised as text when it is not one.
func csvDecimal(s string) string {
	digits := strings.TrimPrefix(s, "-")
	if digits != "" && strings.Trim(digits, "0123456789") == "" {
		return s
	}
	return csvText(s)
}

func csvString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// csvKindRecording is the kind of a recording's row in the wide form.
const csvKindRecording = "recording"

// csvRecordingRecord is a recording's row of the wide form; lead is the
// width of the columns before the recording columns.
func csvRecordingRecord(r rundoc.Recording, lead int) []string {
	rec := make([]string, lead, lead+len(csvRecordingColumns))
	rec[0], rec[1], rec[2] = csvText(r.Source), csvText(r.Identity), csvKindRecording
	i64 := func(n int64) string { return strconv.FormatInt(n, 10) }
	o := r.Outcomes
	rec = append(rec, i64(o.Success), i64(o.Failure), i64(o.Timeout), i64(o.Canceled), i64(o.Unfinished),
		i64(r.Observations), i64(r.Retained), i64(r.Omitted), csvText(r.Retention.Policy), strconv.Itoa(r.Retention.Capacity))
	s := r.Summary
	if s == nil {
		return append(rec, make([]string, 12)...)
	}
	rec = append(rec, csvText(s.PercentilesOver), i64(s.Spans), csvFloat(s.MedianNs), csvFloat(s.P90Ns), csvFloat(s.P95Ns),
		csvFloat(s.P99Ns), i64(s.MinNs), i64(s.MaxNs), csvFloat(s.MeanNs))
	if in := s.Interval; in != nil {
		return append(rec, csvFloat(in.LowNs), csvFloat(in.HighNs), csvFloat(in.Confidence))
	}
	return append(rec, "", "", "")
}
