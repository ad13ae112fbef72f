package integration

import (
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/benchsup/benchsup/rundoc"
)

// cmdVariants: variants FILE checks the --vs comparisons of a run
// document against its rows: every group's members have a row whose
// process k ran in round k, one process per round of the schedule, and
// whose samples measured the N the comparison's iterations say (own: the
// member's calibrated N; shared: the reference's).
func cmdVariants(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: variants FILE")
	}
	doc := readDoc(ts, args[0])
	groups := 0
	for _, c := range doc.Comparisons {
		v := c.Variants
		if v == nil {
			continue
		}
		for _, g := range v.Groups {
			groups++
			var refN int64
			for i, m := range g.Members {
				name := strings.Replace(g.Group, v.Key+"=*", v.Key+"="+m, 1)
				row := findRow(ts, doc, name)
				if row.Outcome != rundoc.OutcomeOK || row.Calibration == nil {
					ts.Fatalf("%s: outcome %s, calibration %v", name, row.Outcome, row.Calibration)
				}
				if len(row.Processes) != len(g.Schedule) {
					ts.Fatalf("%s: %d processes for %d rounds", name, len(row.Processes), len(g.Schedule))
				}
				want := row.Calibration.N
				if i == 0 {
					refN = want
				} else if v.Iterations == "shared" {
					want = refN
				}
				for k, p := range row.Processes {
					if p.Index != k {
						ts.Fatalf("%s: process %d has index %d", name, k, p.Index)
					}
					for _, s := range p.Samples {
						if s.Iterations != want {
							ts.Fatalf("%s (%s iterations): process %d measured N=%d, want %d", name, v.Iterations, k, s.Iterations, want)
						}
					}
				}
			}
		}
	}
	if groups == 0 {
		ts.Fatalf("%s: no --vs comparison", args[0])
	}
}
