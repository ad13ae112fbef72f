package record

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// Document is what Stop writes as JSON: the run's length and one
// recording per identity, the shape of a run document's recordings.
type Document struct {
	ElapsedNs  int64    `json:"elapsedNs"`
	Recordings []Result `json:"recordings"`
}

// CSVHeader is the header of the CSV Stop writes. A row's kind is
// "identity" (one per identity, the Result) or "span" (a retained span,
// with Config.Spans); a field that does not apply to the row's kind, or is
// unavailable (a summary with no spans), is empty, never 0.
var CSVHeader = []string{
	"kind", "identity",
	"success", "failure", "timeout", "canceled", "unfinished",
	"observations", "retained", "omitted", "policy", "capacity",
	"percentilesOver", "spans", "medianNs", "p90Ns", "p95Ns", "p99Ns", "minNs", "maxNs", "meanNs",
	"medianLowNs", "medianHighNs", "medianConfidence", "sampleSemantics",
	"observation", "startNs", "durationNs", "outcome",
}

func write(w io.Writer, format string, elapsedNs int64, results []Result) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(Document{ElapsedNs: elapsedNs, Recordings: results}); err != nil {
			return fmt.Errorf("record: writing JSON results: %w", err)
		}
		return nil
	case "csv":
		if err := writeCSV(w, results); err != nil {
			return fmt.Errorf("record: writing CSV results: %w", err)
		}
		return nil
	}
	return fmt.Errorf("record: unknown output format %q", format)
}

func writeCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	f64 := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range results {
		row := make([]string, len(CSVHeader))
		row[0], row[1] = "identity", r.Identity
		o := r.Outcomes
		copy(row[2:], []string{i64(o.Success), i64(o.Failure), i64(o.Timeout), i64(o.Canceled), i64(o.Unfinished),
			i64(r.Observations), i64(r.Retained), i64(r.Omitted), string(r.Retention.Policy), strconv.Itoa(r.Retention.Capacity)})
		if s := r.Summary; s != nil {
			copy(row[12:], []string{s.PercentilesOver, i64(s.Spans)})
			if s.Spans > 0 {
				copy(row[14:], []string{f64(s.MedianNs), f64(s.P90Ns), f64(s.P95Ns), f64(s.P99Ns)})
			}
			copy(row[18:], []string{i64(s.MinNs), i64(s.MaxNs), f64(s.MeanNs)})
			if iv := s.Interval; iv != nil {
				copy(row[21:], []string{f64(iv.LowNs), f64(iv.HighNs), f64(iv.Confidence)})
			}
		}
		row[24] = r.SampleSemantics
		if err := cw.Write(row); err != nil {
			return err
		}
		for _, sp := range r.Spans {
			row := make([]string, len(CSVHeader))
			row[0], row[1] = "span", r.Identity
			copy(row[25:], []string{i64(sp.Observation), i64(sp.StartNs), i64(sp.DurationNs), sp.Outcome.String()})
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
