package supervisor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// ErrPlacement is wrapped by every *PlacementError.
var ErrPlacement = errors.New("placement refused")

// PlacementError is a Config.CPUs this host cannot give the children, with
// the reason: a CPU that is not online, one outside this process's own
// affinity (the kernel would silently narrow the mask), or no strict
// affinity on this platform.
type PlacementError struct {
	CPUs   []int
	Reason string
	Err    error // the underlying error, if any
}

func (e *PlacementError) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

// Unwrap returns ErrPlacement and the underlying error.
func (e *PlacementError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrPlacement}
	}
	return []error{ErrPlacement, e.Err}
}

// placementHost is what checking a placement reads from this host and
// process; fields so that tests can give it any topology.
type placementHost struct {
	online   func() ([]int, error)
	allowed  func() ([]int, error) // this process's affinity
	siblings func(cpu int) ([]int, error)
	lookup   func(name string) (string, bool) // the supervisor's environment
}

var thisHost = placementHost{host.OnlineCPUs, sandbox.AllowedCPUs, host.Siblings, os.LookupEnv}

// watchedCPUs are the CPUs a run's processes can run on, which the
// interference watch, the quiescence preflight and the host claim cover:
// the placement when there is one; else this process's allowed CPUs when
// a taskset or a cpuset confines it to fewer than the online CPUs (its
// children and its go commands inherit that mask, so load elsewhere
// cannot slow them, and watching every CPU would dilute the load on its
// own CPUs with the idle rest, or count another tenant's as its own);
// else nil, every CPU. Either set unreadable: nil, as for an unconfined
// run.
func (h placementHost) watchedCPUs(placed []int) []int {
	if len(placed) > 0 {
		return slices.Compact(slices.Sorted(slices.Values(placed)))
	}
	allowed, err := h.allowed()
	if err != nil || len(allowed) == 0 {
		return nil
	}
	online, err := h.online()
	if err != nil {
		return nil
	}
	for _, c := range online {
		if !slices.Contains(allowed, c) {
			return allowed
		}
	}
	return nil
}

// CheckPlacement checks that every child can be pinned to cpus here, before
// anything is built, and returns what Meta.Placement records and the
// warnings a run prints once (SMT siblings left out of the list). env is
// the children's environment policy: a GOMAXPROCS it passes them overrides
// the one the Go runtime derives from their affinity. No cpus: nil, no
// placement. A refusal is a *PlacementError.
func CheckPlacement(cpus []int, env sandbox.EnvPolicy) (*rundoc.Placement, []string, error) {
	return thisHost.check(cpus, env)
}

// placementOf checks cfg.CPUs and writes its warnings to cfg.Warnings.
func placementOf(cfg *Config) (*rundoc.Placement, error) {
	p, warnings, err := CheckPlacement(cfg.CPUs, cfg.Env)
	w := cfg.Warnings
	if w == nil {
		w = io.Discard
	}
	for _, msg := range warnings {
		fmt.Fprintln(w, msg)
	}
	return p, err
}

func (h placementHost) check(cpus []int, env sandbox.EnvPolicy) (*rundoc.Placement, []string, error) {
	if len(cpus) == 0 {
		return nil, nil, nil
	}
	cpus = slices.Compact(slices.Sorted(slices.Values(cpus)))
	list := host.FormatCPUList(cpus)
	refuse := func(reason string, err error) (*rundoc.Placement, []string, error) {
		return nil, nil, &PlacementError{CPUs: cpus, Reason: reason, Err: err}
	}
	if cpus[0] < 0 {
		return refuse(fmt.Sprintf("cpu %d is not a CPU number", cpus[0]), nil)
	}
	allowed, err := h.allowed()
	if err != nil {
		return refuse("cannot pin children: this process's allowed CPUs cannot be read", err)
	}
	// Online is read for the better reason only: the affinity check below
	// refuses an offline CPU too, and the sandbox checks what each child
	// got.
	online, onlineErr := h.online()
	for _, c := range cpus {
		if onlineErr == nil && !slices.Contains(online, c) {
			return refuse(fmt.Sprintf("cpu %d is not online here (online: %s)", c, host.FormatCPUList(online)), nil)
		}
		if !slices.Contains(allowed, c) {
			return refuse(fmt.Sprintf("cpu %d is outside this process's allowed CPUs %s (a cpuset or taskset)", c, host.FormatCPUList(allowed)), nil)
		}
	}

	p := &rundoc.Placement{CPUs: list}
	var notes, warnings []string
	if v, ok := gomaxprocsEnv(env, h.lookup); ok {
		notes = append(notes, fmt.Sprintf("children's GOMAXPROCS is GOMAXPROCS=%s from their environment, not the affinity's %d", v, len(cpus)))
	} else {
		// The runtime takes it from the affinity mask at start (less
		// under a cgroup CPU limit); Meta.GOMAXPROCS is what they said.
		notes = append(notes, fmt.Sprintf("children's GOMAXPROCS follows the affinity: %d", len(cpus)))
	}
	var unreserved []int
	if all, err := withSiblings(cpus, h.siblings); err != nil {
		notes = append(notes, fmt.Sprintf("SMT siblings unknown: %v", err))
	} else {
		unreserved = slices.DeleteFunc(all, func(c int) bool { return slices.Contains(cpus, c) })
	}
	if len(unreserved) > 0 {
		p.UnreservedSiblings = host.FormatCPUList(unreserved)
		warnings = append(warnings, fmt.Sprintf("placement %s: SMT siblings %s share cores with it but are not in the list: load there slows the children without showing on their CPUs (pin them too, or keep them idle)", list, p.UnreservedSiblings))
	}
	if onlineErr != nil {
		notes = append(notes, fmt.Sprintf("online CPUs unknown: %v", onlineErr))
	}
	p.Note = strings.Join(notes, "; ")
	return p, warnings, nil
}

// gomaxprocsEnv returns the GOMAXPROCS env gives the children, if it gives
// one, applying its steps in the sandbox's order (base, Keep, Remove, Set;
// the strict base never holds it).
func gomaxprocsEnv(env sandbox.EnvPolicy, lookup func(string) (string, bool)) (string, bool) {
	const name = "GOMAXPROCS"
	for _, kv := range slices.Backward(env.Set) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v, true
		}
	}
	if slices.Contains(env.Remove, name) {
		return "", false
	}
	if env.Inherit || slices.Contains(env.Keep, name) {
		return lookup(name)
	}
	return "", false
}
