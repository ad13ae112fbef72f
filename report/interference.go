package report

// InterferencePolicy is how a run watched for foreign load between
// samples (--interference), recorded with the run's knobs.
type InterferencePolicy struct {
	// Response is "observe" (annotate), "retake" (discard and redo the
	// sample, bounded) or "pause" (wait for quiet, re-warm, redo).
	Response string `json:"response"`
	// MaxForeign is the foreign share of the host's CPU capacity over a
	// sample above which the sample counts as disturbed (0.10 is 10%).
	MaxForeign float64 `json:"maxForeign"`
	MaxRetakes int     `json:"maxRetakes"` // per process
}

// ProcessInterference is what the watch saw and did in one process.
type ProcessInterference struct {
	// Disturbed counts the samples over the limit: kept (observe, or a
	// budget exhausted) or retaken.
	Disturbed int   `json:"disturbed"`
	Retakes   int   `json:"retakes"`
	Pauses    int   `json:"pauses"`
	PausedNs  int64 `json:"pausedNs"`
	// BudgetExhausted says the retakes or the pause time ran out: the
	// rest of the process was observed only.
	BudgetExhausted bool `json:"budgetExhausted,omitempty"`
	// MaxForeign is the largest foreign share seen over a sample; nil
	// when no sample's window was long enough to tell.
	MaxForeign *float64 `json:"maxForeign"`
}

// RowInterference sums the watch over a row's processes.
type RowInterference struct {
	Disturbed       int      `json:"disturbed"`
	Retakes         int      `json:"retakes"`
	Pauses          int      `json:"pauses"`
	PausedNs        int64    `json:"pausedNs"`
	BudgetExhausted int      `json:"budgetExhausted"` // processes whose budget ran out
	MaxForeign      *float64 `json:"maxForeign"`
}
