package analysis_test

import (
	"testing"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/rundoctest"
)

// TestFixtureMoments checks that the fixtures' summaries (rundoctest keeps
// its own copy of Summarize) carry the moments analysis computes.
func TestFixtureMoments(t *testing.T) {
	for _, r := range rundoctest.GreenDoc().Rows {
		t.Run(r.Name, func(t *testing.T) {
			want, got := analysis.Summarize(r.Processes), r.Summary
			if want == nil || got == nil {
				t.Fatalf("summaries: analysis %v, fixture %v", want, got)
			}
			for _, f := range []struct {
				name      string
				want, got *float64
			}{
				{"mean", want.MeanOfProcessMediansNs, got.MeanOfProcessMediansNs},
				{"sd", want.SDOfProcessMediansNs, got.SDOfProcessMediansNs},
				{"cv", want.CVOfProcessMedians, got.CVOfProcessMedians},
			} {
				if (f.want == nil) != (f.got == nil) || (f.want != nil && *f.want != *f.got) {
					t.Errorf("%s: fixture %v, analysis %v", f.name, deref(f.got), deref(f.want))
				}
			}
			if want.MeanOfProcessMediansNs == nil {
				t.Error("no mean of process medians")
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}
