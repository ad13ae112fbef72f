package report

import (
	"fmt"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// maxNotRunNames bounds the names a not-run line lists: an interrupted
// run of hundreds of benchmarks says how many, and the first few.
const maxNotRunNames = 8

// splitNotRun separates the rows that never started (outcome not-run: an
// interrupted run, --fail-fast) from the rest: they are no failures and
// have no numbers, so they are listed once (notRunLines), not as table
// rows and --- FAIL blocks.
func splitNotRun(rows []rundoc.Row) (ran, notRun []rundoc.Row) {
	for _, r := range rows {
		if r.Outcome == rundoc.OutcomeNotRun {
			notRun = append(notRun, r)
		} else {
			ran = append(ran, r)
		}
	}
	return ran, notRun
}

// notRunLines says, once per reason, how many identities never started
// and names the first maxNotRunNames of them:
//
//	interrupted (SIGINT): 15 benchmarks not run: BenchmarkA, BenchmarkB, … (7 more)
//	not run: 2 benchmarks (--fail-fast stopped the run after an earlier failure): BenchmarkC, BenchmarkD
func notRunLines(doc rundoc.Document, notRun []rundoc.Row, name func(rundoc.Row) string) []string {
	var reasons []string
	byReason := map[string][]rundoc.Row{}
	for _, r := range notRun {
		why := ""
		if r.Error != nil {
			why = *r.Error
		}
		if _, ok := byReason[why]; !ok {
			reasons = append(reasons, why)
		}
		byReason[why] = append(byReason[why], r)
	}
	var out []string
	for _, why := range reasons {
		rows := byReason[why]
		what := countOf(rows)
		var names []string
		for i, r := range rows {
			if i == maxNotRunNames {
				names = append(names, fmt.Sprintf("… (%d more)", len(rows)-i))
				break
			}
			names = append(names, name(r))
		}
		list := strings.Join(names, ", ")
		switch {
		case doc.Interrupted != nil && strings.Contains(why, "interrupted"):
			out = append(out, fmt.Sprintf("interrupted (%s): %s not run: %s", doc.Interrupted.Signal, what, list))
		case why != "":
			out = append(out, fmt.Sprintf("not run: %s (%s): %s", what, oneLine(why), list))
		default:
			out = append(out, fmt.Sprintf("not run: %s: %s", what, list))
		}
	}
	return out
}

// countOf is "15 benchmarks", "1 test", or "3 identities" for a mix.
func countOf(rows []rundoc.Row) string {
	kind := rows[0].Kind
	for _, r := range rows {
		if r.Kind != kind {
			return fmt.Sprintf("%d %s", len(rows), plural(len(rows), "identity", "identities"))
		}
	}
	noun := string(kind)
	return fmt.Sprintf("%d %s", len(rows), plural(len(rows), noun, noun+"s"))
}

// withoutCanceled is rows without those an interruption canceled while they
// ran: their notes cell says so, and a --- FAIL block would call them
// failures. A run that was not interrupted keeps them all.
func withoutCanceled(doc rundoc.Document, rows []rundoc.Row) []rundoc.Row {
	if doc.Interrupted == nil {
		return rows
	}
	var out []rundoc.Row
	for _, r := range rows {
		if r.Outcome != "canceled" {
			out = append(out, r)
		}
	}
	return out
}
