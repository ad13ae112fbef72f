package rundoc

// Limits is what bounded every child's resources (docs/design.md#containment)
// and where its peak memory was read.
type Limits struct {
	// MemoryBytes is the memory limit of each child (--memory-limit), swap
	// off; absent when none.
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// Pids is the limit on each child's processes and threads
	// (--pids-limit); absent when none.
	Pids int64 `json:"pids,omitempty"`
	// MemoryCgroup and PidsCgroup are the cgroup version of the controller
	// used ("v1", "v2"); absent when the children had none.
	MemoryCgroup string `json:"memoryCgroup,omitempty"`
	PidsCgroup   string `json:"pidsCgroup,omitempty"`
	// PeakMemoryAbsent says why no process has peakMemoryBytes: no memory
	// controller could be written. Absent when the peaks were read.
	PeakMemoryAbsent string `json:"peakMemoryAbsent,omitempty"`
}
