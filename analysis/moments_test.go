package analysis

import (
	"math"
	"testing"
)

func TestMomentsOfMedians(t *testing.T) {
	tests := []struct {
		name    string
		medians []float64
		ok      bool
		mean    float64
		sd, cv  float64
		noSD    bool
		noCV    bool
	}{
		{name: "none", medians: nil, ok: false},
		{name: "one process: no deviation", medians: []float64{120}, ok: true, mean: 120, noSD: true, noCV: true},
		// mean 4, squares 9+1+1+9=20, /3 → sd √(20/3)
		{name: "four", medians: []float64{1, 3, 5, 7}, ok: true, mean: 4, sd: math.Sqrt(20.0 / 3), cv: math.Sqrt(20.0/3) / 4},
		{name: "equal processes", medians: []float64{10, 10, 10}, ok: true, mean: 10, sd: 0, cv: 0},
		{name: "zero mean", medians: []float64{0, 0}, ok: true, mean: 0, sd: 0, noCV: true},
		// One slow process of five moves the mean and sd, as it would
		// never move the median.
		{name: "one slow process", medians: []float64{100, 100, 100, 100, 200}, ok: true, mean: 120,
			sd: math.Sqrt(8000.0 / 4), cv: math.Sqrt(8000.0/4) / 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := MomentsOfMedians(tt.medians)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if math.Abs(m.Mean-tt.mean) > 1e-12 {
				t.Errorf("mean = %v, want %v", m.Mean, tt.mean)
			}
			switch {
			case tt.noSD && m.SD != nil:
				t.Errorf("sd = %v, want absent", *m.SD)
			case !tt.noSD && (m.SD == nil || math.Abs(*m.SD-tt.sd) > 1e-12):
				t.Errorf("sd = %v, want %v", m.SD, tt.sd)
			}
			switch {
			case tt.noCV && m.CV != nil:
				t.Errorf("cv = %v, want absent", *m.CV)
			case !tt.noCV && (m.CV == nil || math.Abs(*m.CV-tt.cv) > 1e-12):
				t.Errorf("cv = %v, want %v", m.CV, tt.cv)
			}
		})
	}
}
