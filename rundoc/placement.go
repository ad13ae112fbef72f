package rundoc

// Placement is where the children ran (--cpus): the CPUs every child was
// pinned to, and what that pinning implies.
type Placement struct {
	// CPUs is the affinity every child got, in the kernel's list format
	// ("0-1,4").
	CPUs string `json:"cpus"`
	// UnreservedSiblings are SMT siblings of those CPUs that are not in
	// the list: a neighbour running there shares the core's execution
	// units and slows the measurement without showing as load on CPUs;
	// "" when none (or the topology could not be read: Note says so).
	UnreservedSiblings string `json:"unreservedSiblings,omitempty"`
	// Note says what follows from the placement (GOMAXPROCS of the
	// children, which the Go runtime sets from the affinity) and what
	// could not be read.
	Note string `json:"note,omitempty"`
}

// fingerprint is the placement as Fingerprint.Placement holds it: the CPU
// list, or "none" for children that were not pinned.
func (p *Placement) fingerprint() string {
	if p == nil || p.CPUs == "" {
		return "none"
	}
	return p.CPUs
}
