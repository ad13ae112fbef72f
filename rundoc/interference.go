package rundoc

import (
	"fmt"
	"strings"
	"time"
)

// The interference watch (docs/design.md#interference) looks for foreign
// load between benchmark samples, never inside them: host busy time minus
// the child's own CPU time over each sample's window. It never adjusts a
// statistic: a disturbed sample is kept and marked (Sample.Disturbed),
// or discarded and taken again (ProcessResult.Retaken, out of every
// statistic), and every retake and pause is counted here.

// InterferencePolicy is how a run watched for foreign load between
// samples (--interference), recorded with the run's knobs.
type InterferencePolicy struct {
	// Response is "observe" (annotate), "retake" (discard and redo the
	// sample, bounded) or "pause" (wait for quiet, re-warm, redo).
	Response string `json:"response"`
	// MaxForeign is the foreign share of the watched CPUs' capacity over a
	// sample above which the sample counts as disturbed (0.10 is 10%).
	MaxForeign float64 `json:"maxForeign"`
	MaxRetakes int     `json:"maxRetakes"` // per process
	// SettleNs is how long the host must stay quiet before a paused
	// process resumes, PauseMaxNs the most one process waits in all;
	// both only with Response "pause".
	SettleNs   int64 `json:"settleNs,omitempty"`
	PauseMaxNs int64 `json:"pauseMaxNs,omitempty"`
	// CPUs are the CPUs watched, in the kernel's list format: the
	// placement's (--cpus), or the run's allowed CPUs when a taskset or a
	// cpuset confined it; absent when every CPU was watched.
	CPUs string `json:"cpus,omitempty"`
	// Scope says what the watch covers and what it does not.
	Scope string `json:"scope"`
}

// InterferenceScope is InterferencePolicy.Scope.
const InterferenceScope = "benchmark timing samples only (not calibration, counting passes, tests or workload windows); " +
	"each process of an --against pair watches its own samples"

// ProcessInterference is what the watch saw and did in one process.
type ProcessInterference struct {
	// Samples counts the samples watched: kept and retaken.
	Samples int `json:"samples"`
	// Disturbed counts the samples over the limit: kept (observe, or a
	// budget exhausted) or retaken.
	Disturbed int   `json:"disturbed"`
	Retakes   int   `json:"retakes"`
	Pauses    int   `json:"pauses"`
	PausedNs  int64 `json:"pausedNs"`
	// BudgetExhausted says the retakes or the pause time ran out: the
	// rest of the process was observed only.
	BudgetExhausted bool `json:"budgetExhausted,omitempty"`
	// TooShort counts the samples whose window was too short for the
	// host's tick-quantized accounting to tell: never judged disturbed.
	TooShort int `json:"tooShort,omitempty"`
	// MaxForeign is the largest foreign share seen over a sample; nil
	// when no sample's window was long enough to tell.
	MaxForeign *float64 `json:"maxForeign"`
	// Problem says why the watch read nothing, when it could not.
	Problem string `json:"problem,omitempty"`
}

// RowInterference sums the watch over a row's processes.
type RowInterference struct {
	Samples         int      `json:"samples"`
	Disturbed       int      `json:"disturbed"`
	Retakes         int      `json:"retakes"`
	Pauses          int      `json:"pauses"`
	PausedNs        int64    `json:"pausedNs"`
	BudgetExhausted int      `json:"budgetExhausted"` // processes whose budget ran out
	TooShort        int      `json:"tooShort,omitempty"`
	MaxForeign      *float64 `json:"maxForeign"`
	// Problem is the first process's reason the watch read nothing.
	Problem string `json:"problem,omitempty"`
}

// SumInterference sums the watch over processes; nil when none was
// watched.
func SumInterference(procs []ProcessResult) *RowInterference {
	var r *RowInterference
	for _, p := range procs {
		in := p.Interference
		if in == nil {
			continue
		}
		if r == nil {
			r = &RowInterference{}
		}
		r.Samples += in.Samples
		r.Disturbed += in.Disturbed
		r.Retakes += in.Retakes
		r.Pauses += in.Pauses
		r.PausedNs += in.PausedNs
		r.TooShort += in.TooShort
		if in.BudgetExhausted {
			r.BudgetExhausted++
		}
		if in.MaxForeign != nil && (r.MaxForeign == nil || *in.MaxForeign > *r.MaxForeign) {
			v := *in.MaxForeign
			r.MaxForeign = &v
		}
		if r.Problem == "" {
			r.Problem = in.Problem
		}
	}
	return r
}

// Repaired reports whether the watch saw or did something a reader of the
// row must know: a disturbed sample, a pause, a budget that ran out, or a
// watch that could not read.
func (r *RowInterference) Repaired() bool {
	return r != nil && (r.Disturbed > 0 || r.Pauses > 0 || r.BudgetExhausted > 0 || r.Problem != "")
}

// Note is the row's notes line for the watch, "" when nothing happened:
// "interference: 3 of 15 samples disturbed (max 42% foreign CPU), 2
// retaken, 1 pause of 1.2s; budget exhausted in 1 process".
func (r *RowInterference) Note() string {
	if !r.Repaired() {
		return ""
	}
	var parts []string
	if r.Samples > 0 || r.Disturbed > 0 {
		s := fmt.Sprintf("%d of %d samples disturbed", r.Disturbed, r.Samples)
		if r.MaxForeign != nil {
			s += " (" + MaxForeignText(*r.MaxForeign) + ")"
		}
		parts = append(parts, s)
	}
	if r.Retakes > 0 {
		parts = append(parts, fmt.Sprintf("%d retaken", r.Retakes))
	}
	if paused := time.Duration(r.PausedNs).Round(100 * time.Millisecond); r.Pauses == 1 {
		parts = append(parts, fmt.Sprintf("1 pause of %v", paused))
	} else if r.Pauses > 1 {
		parts = append(parts, fmt.Sprintf("%d pauses, %v in all", r.Pauses, paused))
	}
	if kept := r.Kept(); kept > 0 {
		parts = append(parts, fmt.Sprintf("%d disturbed %s kept", kept, plural(kept, "sample", "samples")))
	}
	note := "interference: " + strings.Join(parts, ", ")
	if r.BudgetExhausted > 0 {
		note += "; " + r.BudgetText()
	}
	if r.Problem != "" {
		if len(parts) == 0 {
			note = "interference: "
		} else {
			note += "; "
		}
		note += "not watched: " + r.Problem
	}
	return note
}

// Kept counts the disturbed samples that stayed in the statistics.
func (r *RowInterference) Kept() int { return r.Disturbed - r.Retakes }

// MaxForeignText words the largest foreign share for Note and every
// renderer:
// "max 42% foreign CPU".
func MaxForeignText(f float64) string { return fmt.Sprintf("max %.0f%% foreign CPU", f*100) }

// BudgetText words the processes whose budget ran out: "budget exhausted
// in 2 processes".
func (r *RowInterference) BudgetText() string {
	return fmt.Sprintf("budget exhausted in %d %s", r.BudgetExhausted, plural(r.BudgetExhausted, "process", "processes"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
