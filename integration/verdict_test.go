package integration

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/benchsup/benchsup/rundoc"
)

// cmdVerdict: verdict [-new=LABEL] FILE NAME REGEXP [METRIC] checks that
// every comparison in FILE (a run document's comparisons, or a comparison
// document) gives identity NAME's METRIC row (sec/op by default) a verdict
// matching REGEXP, anchored. With -new=LABEL, only the comparisons whose
// new side is LABEL are checked (a --vs run's contender, "impl=copy"), and
// there must be one.
func cmdVerdict(ts *testscript.TestScript, neg bool, args []string) {
	newLabel, only := "", false
	if len(args) > 0 && strings.HasPrefix(args[0], "-new=") {
		newLabel, only = strings.TrimPrefix(args[0], "-new="), true
		args = args[1:]
	}
	if len(args) < 3 || len(args) > 4 || neg {
		ts.Fatalf("usage: verdict [-new=LABEL] FILE NAME REGEXP [METRIC]")
	}
	metric := rundoc.MetricTime
	if len(args) == 4 {
		metric = args[3]
	}
	re, err := regexp.Compile("^(" + args[2] + ")$")
	ts.Check(err)
	var probe struct {
		Comparisons []rundoc.Comparison  `json:"comparisons"`
		Knobs       *rundoc.CompareKnobs `json:"knobs"`
	}
	data := []byte(ts.ReadFile(args[0]))
	ts.Check(json.Unmarshal(data, &probe))
	comparisons := probe.Comparisons
	if probe.Knobs != nil {
		var c rundoc.Comparison
		ts.Check(json.Unmarshal(data, &c))
		comparisons = []rundoc.Comparison{c}
	}
	if only {
		comparisons = slices.DeleteFunc(comparisons, func(c rundoc.Comparison) bool { return c.New.Label != newLabel })
	}
	if len(comparisons) == 0 {
		ts.Fatalf("%s holds no comparison (with new side %q)", args[0], newLabel)
	}
	for _, c := range comparisons {
		found := false
		for _, r := range c.Rows {
			if r.Name != args[1] || r.Metric != metric {
				continue
			}
			found = true
			if !re.MatchString(string(r.Verdict)) {
				ts.Fatalf("%s %s, %s against %s: verdict %s, want %s (ratio %v, interval %v..%v, note %q)",
					args[1], metric, c.New.Label, c.Old.Label, r.Verdict, args[2], num(r.Ratio), num(r.Low), num(r.High), r.Note)
			}
		}
		if !found {
			ts.Fatalf("%s: no %s row for %s against %s", args[0], metric, args[1], c.Old.Label)
		}
	}
}

func num(v *float64) any {
	if v == nil {
		return "null"
	}
	return *v
}

// condition evaluates the scripts' own conditions: demo-committed holds
// when the repository's demo module is in git exactly as committed, so
// that its HEAD revision is the same code as its working tree (A/A).
func condition(cond string) (bool, error) {
	switch cond {
	case "demo-committed":
		if exec.Command("git", "-C", srcDir, "rev-parse", "--verify", "--quiet", "HEAD:demo").Run() != nil {
			return false, nil
		}
		return exec.Command("git", "-C", srcDir, "diff", "--quiet", "HEAD", "--", "demo").Run() == nil, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
