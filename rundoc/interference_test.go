package rundoc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

func TestRowInterferenceNote(t *testing.T) {
	tests := []struct {
		name string
		r    *rundoc.RowInterference
		want string
	}{
		{"no watch", nil, ""},
		{"nothing happened", &rundoc.RowInterference{Samples: 15, MaxForeign: rundoctest.F64(0.03)}, ""},
		{"observed", &rundoc.RowInterference{Samples: 15, Disturbed: 3, MaxForeign: rundoctest.F64(0.42)},
			"interference: 3 of 15 samples disturbed (max 42% foreign CPU), 3 disturbed samples kept"},
		{"retaken and paused", &rundoc.RowInterference{Samples: 17, Disturbed: 3, Retakes: 2, Pauses: 1, PausedNs: 1.2e9, BudgetExhausted: 1, MaxForeign: rundoctest.F64(0.42)},
			"interference: 3 of 17 samples disturbed (max 42% foreign CPU), 2 retaken, 1 pause of 1.2s, 1 disturbed sample kept; budget exhausted in 1 process"},
		{"every disturbed retaken", &rundoc.RowInterference{Samples: 7, Disturbed: 2, Retakes: 2, MaxForeign: rundoctest.F64(0.5)},
			"interference: 2 of 7 samples disturbed (max 50% foreign CPU), 2 retaken"},
		{"pause that found no quiet", &rundoc.RowInterference{Samples: 5, Disturbed: 1, Pauses: 1, PausedNs: 30e9, BudgetExhausted: 1, MaxForeign: rundoctest.F64(0.9)},
			"interference: 1 of 5 samples disturbed (max 90% foreign CPU), 1 pause of 30s, 1 disturbed sample kept; budget exhausted in 1 process"},
		{"pauses", &rundoc.RowInterference{Samples: 8, Disturbed: 2, Retakes: 2, Pauses: 2, PausedNs: 4.06e9, MaxForeign: rundoctest.F64(0.3)},
			"interference: 2 of 8 samples disturbed (max 30% foreign CPU), 2 retaken, 2 pauses, 4.1s in all"},
		{"unreadable host", &rundoc.RowInterference{Problem: "host CPU time: open /proc/stat: no such file"},
			"interference: not watched: host CPU time: open /proc/stat: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.r.Note())
			assert.Equal(t, tt.want != "", tt.r.Repaired())
		})
	}
}

func TestSumInterference(t *testing.T) {
	assert.Nil(t, rundoc.SumInterference([]rundoc.ProcessResult{{}, {}}), "no process watched: no row sum")
	got := rundoc.SumInterference([]rundoc.ProcessResult{
		{Interference: &rundoc.ProcessInterference{Samples: 6, Disturbed: 1, Retakes: 1, MaxForeign: rundoctest.F64(0.3)}},
		{}, // a process that failed before its result: not watched
		{Interference: &rundoc.ProcessInterference{Samples: 5, Disturbed: 2, Pauses: 2, PausedNs: 5e8, BudgetExhausted: true, TooShort: 1, MaxForeign: rundoctest.F64(0.6)}},
		{Interference: &rundoc.ProcessInterference{Samples: 5, Problem: "p"}},
	})
	require.NotNil(t, got)
	assert.Equal(t, rundoc.RowInterference{Samples: 16, Disturbed: 3, Retakes: 1, Pauses: 2, PausedNs: 5e8, BudgetExhausted: 1, TooShort: 1,
		MaxForeign: rundoctest.F64(0.6), Problem: "p"}, *got)
}
