package integration

import (
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/benchsup/benchsup/rundoc"
)

// cmdRecording: recording FILE IDENTITY CONDITION... checks the recording
// of IDENTITY in the run document FILE (its first, when several sources
// recorded it). A condition is FIELD OP VALUE with OP one of = >= <=;
// FIELD is observations, retained, omitted, success, failure, timeout,
// canceled, unfinished, medianNs, p95Ns, or source (= only); VALUE is a
// number or the name of another numeric field. With !, no recording of
// IDENTITY may exist.
func cmdRecording(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: recording FILE IDENTITY [FIELD(=|>=|<=)VALUE...]")
	}
	doc := readDoc(ts, args[0])
	var rec *rundoc.Recording
	for i := range doc.Recordings {
		if doc.Recordings[i].Identity == args[1] {
			rec = &doc.Recordings[i]
			break
		}
	}
	if neg {
		if rec != nil {
			ts.Fatalf("%s: a recording of %q exists", args[0], args[1])
		}
		return
	}
	if rec == nil {
		ts.Fatalf("%s: no recording of %q", args[0], args[1])
	}
	num := func(name string) (float64, bool) {
		o := rec.Outcomes
		switch name {
		case "observations":
			return float64(rec.Observations), true
		case "retained":
			return float64(rec.Retained), true
		case "omitted":
			return float64(rec.Omitted), true
		case "success":
			return float64(o.Success), true
		case "failure":
			return float64(o.Failure), true
		case "timeout":
			return float64(o.Timeout), true
		case "canceled":
			return float64(o.Canceled), true
		case "unfinished":
			return float64(o.Unfinished), true
		case "medianNs", "p95Ns":
			if rec.Summary == nil {
				ts.Fatalf("%s: %s has no summary", args[0], args[1])
			}
			if name == "medianNs" {
				return rec.Summary.MedianNs, true
			}
			return rec.Summary.P95Ns, true
		}
		if v, err := strconv.ParseFloat(name, 64); err == nil {
			return v, true
		}
		return 0, false
	}
	for _, c := range args[2:] {
		var field, op, value string
		for _, o := range []string{">=", "<=", "="} {
			if f, v, ok := strings.Cut(c, o); ok {
				field, op, value = f, o, v
				break
			}
		}
		if field == "source" && op == "=" {
			if rec.Source != value {
				ts.Fatalf("%s: %s: source %q, want %q", args[0], args[1], rec.Source, value)
			}
			continue
		}
		got, ok1 := num(field)
		want, ok2 := num(value)
		if op == "" || !ok1 || !ok2 {
			ts.Fatalf("recording: bad condition %q", c)
		}
		if (op == "=" && got != want) || (op == ">=" && got < want) || (op == "<=" && got > want) {
			ts.Fatalf("%s: %s: %s is %v, want %s %v", args[0], args[1], field, got, op, want)
		}
	}
}
