package supervisor

import (
	"slices"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

// finishWindows completes the document's workload windows: it marks the
// windows of processes that failed or skipped after measuring them,
// summarizes every window across its processes (Document.WindowSummaries)
// and records the window metrics the run read.
func (s *supervisor) finishWindows(doc *rundoc.Document, rows []rundoc.Row) {
	if len(doc.Windows) == 0 {
		return
	}
	doc.Meta.Knobs.WindowMetrics = slices.Clone(s.cfg.WindowMetrics)
	doc.Windows, doc.WindowSummaries = analysis.SummarizeWindows(doc.Windows, rows)
}
