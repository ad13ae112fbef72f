package rundoc

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrNotMergeable is the sentinel of every reason Merge refuses documents.
var ErrNotMergeable = errors.New("cannot merge")

// MergeMismatchError is a part whose run differs from the first part's in
// what makes numbers comparable (its fingerprint) or in what was run (its
// knobs), with the fields named.
type MergeMismatchError struct {
	Part  string      // the differing part, as "shard K/N" or its position
	Diffs []FieldDiff // old is the first part's value, new this part's
}

func (e *MergeMismatchError) Error() string {
	fields := make([]string, len(e.Diffs))
	for i, d := range e.Diffs {
		fields[i] = fmt.Sprintf("%s %q vs %q", d.Field, d.Old, d.New)
	}
	return fmt.Sprintf("%s: %s differs from the first part's: %s", ErrNotMergeable, e.Part, strings.Join(fields, ", "))
}

func (e *MergeMismatchError) Unwrap() error { return ErrNotMergeable }

// MergeOptions are the settings of Merge. The zero value is strict.
type MergeOptions struct {
	// AllowMismatch joins parts whose fingerprints differ (runners of one
	// matrix on different CPU models, say), recording each part's
	// differences from the first in Meta.Shard.Merged. Their paired
	// comparisons (--against) stay sound, each made on one runner; their
	// absolute numbers come from different hosts.
	AllowMismatch bool
}

// Merge joins the documents of the parts of one sharded run (--shard=K/N,
// every K from 1 to N once) into the document of the whole run. It refuses,
// naming what differs, parts whose fingerprints (unless allowed) or knobs
// differ, a part missing or given twice, and an identity measured by two
// parts. Package rows (a package that failed to build or to start) may
// come from every part that needed the package: one is kept. Rows keep
// their parts' order, part by part.
//
// Comparisons are joined too: a comparison row depends only on its own
// identity's processes (and its bootstrap seed on its own name), so the
// parts' rows of a comparison with the same sides are the whole run's. The
// geomeans, which span identities, are left empty for the caller to
// recompute (they are statistics, which this package does not compute).
// Sweeps, and a comparison's sweep lines, are joined part by part: a sweep
// family lies within one benchmark function, and a shard holds whole
// functions, so every part's families are whole.
func Merge(docs []*Document, opt MergeOptions) (*Document, error) {
	if len(docs) == 0 {
		return nil, fmt.Errorf("%w: no documents", ErrNotMergeable)
	}
	label := func(i int) string {
		if s := docs[i].Meta.Shard; s != nil && s.Index > 0 {
			return fmt.Sprintf("shard %d/%d", s.Index, s.Count)
		}
		return "document " + strconv.Itoa(i+1)
	}
	first := docs[0]
	// The fingerprints are checked against the first part that measured
	// anything: a part that got no function ran no child, so its
	// toolchain, GOMAXPROCS and containment are unknown, not different.
	ref := first
	for _, d := range docs {
		if measuredAny(d) {
			ref = d
			break
		}
	}
	n := 0
	seen := map[int]bool{}
	for i, d := range docs {
		s := d.Meta.Shard
		switch {
		case s == nil || s.Index == 0:
			return nil, fmt.Errorf("%w: %s is not the document of a shard (run with --shard=K/N)", ErrNotMergeable, label(i))
		case n == 0:
			n = s.Count
		case s.Count != n:
			return nil, fmt.Errorf("%w: %s is a part of %d, %s of %d", ErrNotMergeable, label(i), s.Count, label(0), n)
		}
		if seen[s.Index] {
			return nil, fmt.Errorf("%w: shard %d/%d is given twice", ErrNotMergeable, s.Index, n)
		}
		seen[s.Index] = true
		if d.Schema != first.Schema || d.Meta.Mode != first.Meta.Mode {
			return nil, &MergeMismatchError{label(i), []FieldDiff{{"schema/mode",
				fmt.Sprintf("%d/%s", first.Schema, first.Meta.Mode), fmt.Sprintf("%d/%s", d.Schema, d.Meta.Mode)}}}
		}
		diffs := knobDiffs(ref.Meta, d.Meta)
		if !opt.AllowMismatch && measuredAny(d) {
			diffs = append(ref.Meta.Fingerprint().Diff(d.Meta.Fingerprint()), diffs...)
		}
		if len(diffs) > 0 {
			return nil, &MergeMismatchError{label(i), diffs}
		}
		if len(d.Comparisons) != len(first.Comparisons) {
			return nil, fmt.Errorf("%w: %s has %d comparisons, %s %d: were the parts run with the same --against or --baseline?",
				ErrNotMergeable, label(i), len(d.Comparisons), label(0), len(first.Comparisons))
		}
		for j, c := range d.Comparisons {
			f := first.Comparisons[j]
			if c.Old.Label != f.Old.Label || c.New.Label != f.New.Label || c.Knobs != f.Knobs {
				return nil, fmt.Errorf("%w: %s's comparison %d (%s vs %s) differs from %s's (%s vs %s) in its sides or settings",
					ErrNotMergeable, label(i), j+1, c.Old.Label, c.New.Label, label(0), f.Old.Label, f.New.Label)
			}
		}
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if !seen[k] {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: shard %s missing: give every part's document", ErrNotMergeable, strings.Join(missing, ", "))
	}

	// Parts in their order, so that the result does not depend on the
	// order of the arguments.
	parts := slices.Clone(docs)
	slices.SortFunc(parts, func(a, b *Document) int { return cmp.Compare(a.Meta.Shard.Index, b.Meta.Shard.Index) })
	out := &Document{Schema: first.Schema, Meta: ref.Meta}
	out.Meta.Shard = &ShardInfo{Count: n, Method: parts[0].Meta.Shard.Method}
	out.Meta.Provenance.Builds = nil
	out.Meta.Provenance.Workers = nil
	measured := map[string]bool{} // packages some part has an identity of
	for _, d := range parts {
		for _, r := range d.Rows {
			if r.Kind != KindPackage {
				measured[r.Package] = true
			}
		}
	}
	type identity struct {
		pkg, name string
		kind      Kind
		build     string
	}
	owner := map[identity]int{}
	builds := map[string]bool{}
	workers := map[string]bool{}
	columns := map[string]bool{}
	for _, c := range parts[0].Comparisons {
		c.Rows, c.Geomeans, c.Sweeps = nil, nil, nil
		out.Comparisons = append(out.Comparisons, c)
	}
	for _, d := range parts {
		s := d.Meta.Shard
		out.Meta.Shard.Functions += s.Functions
		mp := MergedPart{Index: s.Index, Hostname: d.Meta.Hostname, Date: d.Meta.Date}
		if measuredAny(d) {
			mp.Mismatches = ref.Meta.Fingerprint().Diff(d.Meta.Fingerprint())
		}
		out.Meta.Shard.Merged = append(out.Meta.Shard.Merged, mp)
		out.Sweeps = append(out.Sweeps, d.Sweeps...)
		out.Recordings = append(out.Recordings, d.Recordings...)
		for j, c := range d.Comparisons {
			out.Comparisons[j].Rows = append(out.Comparisons[j].Rows, c.Rows...)
			out.Comparisons[j].Sweeps = append(out.Comparisons[j].Sweeps, c.Sweeps...)
			for _, m := range c.Mismatches {
				if !slices.Contains(out.Comparisons[j].Mismatches, m) {
					out.Comparisons[j].Mismatches = append(out.Comparisons[j].Mismatches, m)
				}
			}
		}
		out.Meta.Date = min(out.Meta.Date, d.Meta.Date) // RFC 3339 UTC sorts as time
		for _, b := range d.Meta.Provenance.Builds {
			if !builds[b.Package] {
				builds[b.Package] = true
				out.Meta.Provenance.Builds = append(out.Meta.Provenance.Builds, b)
			}
		}
		for _, w := range d.Meta.Provenance.Workers {
			if !workers[w] {
				workers[w] = true
				out.Meta.Provenance.Workers = append(out.Meta.Provenance.Workers, w)
			}
		}
		for _, c := range d.Columns {
			if !columns[c.Name] {
				columns[c.Name] = true
				out.Columns = append(out.Columns, c)
			}
		}
		for _, r := range d.Rows {
			if r.Kind == KindPackage && r.Outcome == OutcomeSkipped && measured[r.Package] {
				continue // nothing to run in this part; another part ran the package
			}
			id := identity{r.Package, r.Name, r.Kind, r.Build}
			if k, dup := owner[id]; dup {
				if r.Kind == KindPackage {
					continue
				}
				return nil, fmt.Errorf("%w: %s %s is in shard %d/%d and in shard %d/%d: were the parts drawn from different benchsup versions or baselines?",
					ErrNotMergeable, r.Package, r.Name, k, n, s.Index, n)
			}
			owner[id] = s.Index
			out.Rows = append(out.Rows, r)
		}
		out.Windows = append(out.Windows, d.Windows...)
		out.WindowSummaries = append(out.WindowSummaries, d.WindowSummaries...)
	}
	return out, nil
}

// knobDiffs returns the knobs of b that differ from a's in what was run;
// the fingerprint holds the sampling.
func knobDiffs(a, b Meta) []FieldDiff {
	var out []FieldDiff
	add := func(field, x, y string) {
		if x != y {
			out = append(out, FieldDiff{field, x, y})
		}
	}
	add("bench", a.Knobs.Bench, b.Knobs.Bench)
	add("run", a.Knobs.Run, b.Knobs.Run)
	add("repetitions", strconv.Itoa(a.Knobs.Repetitions), strconv.Itoa(b.Knobs.Repetitions))
	add("iterations", strconv.FormatInt(a.Knobs.Iterations, 10), strconv.FormatInt(b.Knobs.Iterations, 10))
	add("metrics", strings.Join(a.Knobs.Metrics, ","), strings.Join(b.Knobs.Metrics, ","))
	add("short", strconv.FormatBool(a.Knobs.Short), strconv.FormatBool(b.Knobs.Short))
	if a.Module != "" && b.Module != "" { // "" when a part planned no package
		add("module", a.Module, b.Module)
	}
	add("shardMethod", shardMethod(a), shardMethod(b))
	return out
}

func shardMethod(m Meta) string {
	if m.Shard == nil {
		return ""
	}
	return m.Shard.Method
}

// measuredAny reports whether d's run started a child: a part with no
// function has no row but package rows.
func measuredAny(d *Document) bool {
	return slices.ContainsFunc(d.Rows, func(r Row) bool { return r.Kind != KindPackage })
}
