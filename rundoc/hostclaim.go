package rundoc

// Quiescence is what the preflight saw before measuring (--quiescence):
// the limits it held the host's CPU busy time to, how long it waited,
// and the busiest shares of the stable interval that let the run go on.
// Package host fills it (host.WaitQuiet); a run whose host never got
// quiet has no document, so a recorded preflight is one that passed.
type Quiescence struct {
	MaxAverage float64 `json:"maxAverage"` // limit on the watched CPUs' busy share together, a fraction
	MaxCore    float64 `json:"maxCore"`    // limit on any one watched CPU's busy share, a fraction
	StableNs   int64   `json:"stableNs"`   // how long both limits had to hold without a break
	TimeoutNs  int64   `json:"timeoutNs"`
	CPUs       string  `json:"cpus,omitempty"` // watched CPUs, kernel list format; empty: all
	// Note says what the watch could not cover, as the SMT siblings of
	// the placed CPUs when the kernel does not list them.
	Note     string `json:"note,omitempty"`
	WaitedNs int64  `json:"waitedNs"` // from the first read of /proc/stat to the verdict
	Polls    int    `json:"polls"`    // reads after the first
	// The highest shares seen over the stable interval that opened the
	// gate; nil when it did not open (never in a document).
	StableAverage    *float64 `json:"stableAverage,omitempty"`
	StableBusiest    *float64 `json:"stableBusiest,omitempty"`
	StableBusiestCPU *int     `json:"stableBusiestCpu,omitempty"`
}

// HostClaim is the run's claim on the host's CPUs (--claim): the lock
// files it held from before its builds until it ended, and whom it waited
// for first. Package host fills it (host.HostClaim.Report).
type HostClaim struct {
	Dir         string `json:"dir"`
	CPUs        string `json:"cpus"`        // the claimed set, kernel list format
	MachineWide bool   `json:"machineWide"` // every online CPU, since the run named none
	WaitedNs    int64  `json:"waitedNs"`    // time spent waiting for other holders; 0: none held any
	// WaitedFor lists the holders waited for, in order, as host.Holder's
	// String ("cpu1 is held by pid 4242 on build7 since ... (benchsup run
	// ./...)").
	WaitedFor []string `json:"waitedFor,omitempty"`
	// Notes are informational: a previous owner that ended without
	// releasing its record, a lock file this process could not write.
	Notes []string `json:"notes,omitempty"`
}
