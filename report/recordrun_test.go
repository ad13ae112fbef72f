package report

import (
	"strings"
	"testing"

	"github.com/benchsup/benchsup/rundoc"
)

func TestWriteRecordRun(t *testing.T) {
	wall := int64(1500e6)
	errText := "sandbox: child exited with status 2"
	cases := []struct {
		name string
		doc  rundoc.Document
		want []string // substrings, in order
		err  bool
	}{
		{"not a record document", rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeBench}}, nil, true},
		{"no spans", rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeRecord}, Rows: []rundoc.Row{{
			Package: "./plain", Name: "plain", Kind: rundoc.KindProgram, Outcome: rundoc.OutcomeOK, ElapsedNs: &wall,
			Processes: []rundoc.ProcessResult{{PID: 42}}, Notes: []string{"no spans: ./plain did not use the record package"}}}},
			[]string{"./plain  ok  1.5s  pid 42\n", "  no spans: ./plain"}, false},
		{"crashed, with recordings", rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeRecord}, Rows: []rundoc.Row{{
			Package: "./crash", Name: "crash", Kind: rundoc.KindProgram, Outcome: "exit", Error: &errText, Output: "panic: boom"}},
			Recordings: []rundoc.Recording{{Source: "./crash", Identity: "job", Observations: 3, Retained: 3,
				Outcomes:        rundoc.RecordingOutcomes{Success: 3, Unfinished: 1},
				Retention:       rundoc.RecordingRetention{Policy: "reservoir", Capacity: 10},
				SampleSemantics: rundoc.SampleSemanticsSpan}}},
			[]string{"./crash  exit", "child exited with status 2", recordingsTitle, "job", "./crash output (tail):\npanic: boom"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			err := WriteRecordRun(&b, c.doc, TableOptions{})
			if (err != nil) != c.err {
				t.Fatalf("error %v, want error=%v", err, c.err)
			}
			out := b.String()
			for _, w := range c.want {
				i := strings.Index(out, w)
				if i < 0 {
					t.Fatalf("output lacks %q in order:\n%s", w, out)
				}
				out = out[i+len(w):]
			}
		})
	}
}
