package report

// Quiescence is what the preflight saw before measuring (--quiescence):
// the limits it held the host's CPU busy time to, how long it waited,
// and the busiest shares of the stable interval that let the run go on.
type Quiescence struct {
	MaxAverage float64 `json:"maxAverage"`
	MaxCore    float64 `json:"maxCore"`
	StableNs   int64   `json:"stableNs"`
	TimeoutNs  int64   `json:"timeoutNs"`
	CPUs       string  `json:"cpus,omitempty"` // watched CPUs; empty: all
	WaitedNs   int64   `json:"waitedNs"`
	Polls      int     `json:"polls"`
	// The highest shares seen over the stable interval; nil when it was
	// never reached.
	StableAverage    *float64 `json:"stableAverage,omitempty"`
	StableBusiest    *float64 `json:"stableBusiest,omitempty"`
	StableBusiestCPU *int     `json:"stableBusiestCpu,omitempty"`
}

// HostClaim is the run's claim on the host's CPUs (--claim): the lock
// files it held while it measured, and whom it waited for first.
type HostClaim struct {
	Dir         string   `json:"dir"`
	CPUs        string   `json:"cpus"`
	MachineWide bool     `json:"machineWide"`
	WaitedNs    int64    `json:"waitedNs"`
	WaitedFor   []string `json:"waitedFor,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}
