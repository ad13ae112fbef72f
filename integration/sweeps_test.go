package integration

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/benchsup/benchsup/rundoc"
)

// cmdSweep: sweep FILE FAMILY STATUS [MODEL] checks the sweep of FILE's
// run document named FAMILY: its status matches STATUS (a regexp,
// anchored) and, when MODEL is given, MODEL is the selected model or, for
// an ambiguous fit, one of the candidates. Points are in ascending value,
// each with a positive median, and a fitted sweep has all six models.
func cmdSweep(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 || len(args) > 4 || neg {
		ts.Fatalf("usage: sweep FILE FAMILY STATUS [MODEL]")
	}
	doc := readDoc(ts, args[0])
	var sw *rundoc.Sweep
	var families []string
	for i := range doc.Sweeps {
		families = append(families, doc.Sweeps[i].Family)
		if doc.Sweeps[i].Family == args[1] {
			sw = &doc.Sweeps[i]
		}
	}
	if sw == nil {
		ts.Fatalf("%s: no sweep %s (sweeps: %s)", args[0], args[1], strings.Join(families, ", "))
	}
	desc := describeSweep(*sw)
	re := regexp.MustCompile("^(" + args[2] + ")$")
	if !re.MatchString(string(sw.Status)) {
		ts.Fatalf("%s: status %s, want %s (%s)", args[1], sw.Status, args[2], desc)
	}
	for i, p := range sw.Points {
		if !(p.MedianNs > 0) || (i > 0 && !(p.Value > sw.Points[i-1].Value)) {
			ts.Fatalf("%s: point %d (%s) out of order or without a time (%s)", args[1], i, p.Name, desc)
		}
	}
	if sw.Status == rundoc.SweepFitted && len(sw.Models) != len(rundoc.AllModels) {
		ts.Fatalf("%s: fitted with %d models, want %d", args[1], len(sw.Models), len(rundoc.AllModels))
	}
	if len(args) == 4 {
		want := rundoc.Model(args[3])
		switch {
		case sw.Status == rundoc.SweepFitted && (sw.Selected == nil || *sw.Selected != want):
			ts.Fatalf("%s: selected %s, want %s (%s)", args[1], modelName(sw.Selected), want, desc)
		case sw.Status == rundoc.SweepAmbiguous && !slices.Contains(sw.Candidates, want):
			ts.Fatalf("%s: ambiguous between %v, which leaves out %s (%s)", args[1], sw.Candidates, want, desc)
		}
	}
	ts.Logf("%s", desc)
}

func describeSweep(sw rundoc.Sweep) string {
	exp := "none"
	if sw.ObservedExponent != nil {
		exp = fmt.Sprintf("%.3f", *sw.ObservedExponent)
	}
	return fmt.Sprintf("%s: %s, selected %s, best %s, candidates %v, %d points, observed exponent %s, reason %q",
		sw.Family, sw.Status, modelName(sw.Selected), modelName(sw.Best), sw.Candidates, len(sw.Points), exp, sw.Reason)
}

func modelName(m *rundoc.Model) string {
	if m == nil {
		return "none"
	}
	return string(*m)
}
