package integration

import (
	"maps"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdPartition: partition WHOLE.json PART.json... checks that the parts'
// benchmark identities together are exactly the whole run's, each in one
// part only, and that the whole run's are not empty.
func cmdPartition(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: partition WHOLE.json PART.json...")
	}
	whole := benchIdentities(ts, args[0])
	if len(whole) == 0 {
		ts.Fatalf("%s has no benchmark identity", args[0])
	}
	owner := map[string]string{}
	for _, part := range args[1:] {
		for id := range benchIdentities(ts, part) {
			if prev, dup := owner[id]; dup {
				ts.Fatalf("%s is in %s and in %s", id, prev, part)
			}
			owner[id] = part
		}
	}
	var missing, extra []string
	for id := range whole {
		if owner[id] == "" {
			missing = append(missing, id)
		}
	}
	for id := range owner {
		if !whole[id] {
			extra = append(extra, id)
		}
	}
	if len(missing)+len(extra) > 0 {
		ts.Fatalf("the parts miss %v and add %v", missing, extra)
	}
	ts.Logf("%d identities over %d parts", len(whole), len(args)-1)
}

// cmdSameIdentities: sameidentities A.json B.json checks that two run
// documents hold the same benchmark identities, with the same outcomes.
func cmdSameIdentities(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sameidentities A.json B.json")
	}
	a, b := benchOutcomes(ts, args[0]), benchOutcomes(ts, args[1])
	if !maps.Equal(a, b) {
		ts.Fatalf("%s has %v\n%s has %v", args[0], sortedKeys(a), args[1], sortedKeys(b))
	}
}

func benchIdentities(ts *testscript.TestScript, path string) map[string]bool {
	ids := map[string]bool{}
	for id := range benchOutcomes(ts, path) {
		ids[id] = true
	}
	return ids
}

// benchOutcomes returns the outcome of every benchmark and workload row
// of a run document, by "package name".
func benchOutcomes(ts *testscript.TestScript, path string) map[string]string {
	out := map[string]string{}
	for _, r := range readDoc(ts, path).Rows {
		if r.Kind == "benchmark" || r.Kind == "workload" {
			out[r.Package+" "+r.Name] = string(r.Outcome)
		}
	}
	return out
}

func sortedKeys(m map[string]string) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}
