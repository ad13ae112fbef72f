package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/benchsup/benchsup/rundoc"
)

// WriteRecordRun writes a document of benchsup record (mode "record") as
// text: one line per recorded program (its outcome, how long it ran, and
// its pid), its notes (how it ended, a program that sent no spans, spans
// the shared ring lost), the recordings block as a run's table has it,
// and the tail of a failed program's output.
func WriteRecordRun(w io.Writer, doc rundoc.Document, opt TableOptions) error {
	doc = escaped(doc)
	if doc.Meta.Mode != rundoc.ModeRecord {
		return fmt.Errorf("report: WriteRecordRun renders a %q document, not mode %q", rundoc.ModeRecord, doc.Meta.Mode)
	}
	if err := rundoc.CheckFinite(doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	p := painter(opt.Color)
	bw := bufio.NewWriter(w)
	for _, r := range doc.Rows {
		line := fmt.Sprintf("%s  %s", r.Package, r.Outcome)
		if r.ElapsedNs != nil {
			line += fmt.Sprintf("  %v", time.Duration(*r.ElapsedNs).Round(time.Millisecond))
		}
		if len(r.Processes) > 0 && r.Processes[0].PID != 0 {
			line += fmt.Sprintf("  pid %d", r.Processes[0].PID)
		}
		if r.IsError() {
			line = p.paint(red, line)
		}
		bw.WriteString(line + "\n")
		if r.Error != nil {
			bw.WriteString("  " + p.paint(red, oneLine(*r.Error)) + "\n")
		}
		for _, n := range r.Notes {
			bw.WriteString("  " + n + "\n")
		}
	}
	if len(doc.Recordings) > 0 {
		bw.WriteString("\n")
		writeRecordings(bw, doc.Recordings, opt, p)
	}
	for _, r := range doc.Rows {
		if r.IsError() && strings.TrimSpace(r.Output) != "" {
			bw.WriteString("\n" + r.Package + " output (tail):\n" + r.Output + "\n")
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing table: %w", err)
	}
	return nil
}
