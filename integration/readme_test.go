package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// docYAML returns the YAML blocks of the section named title of page, a
// file of the repository (the README moved its reference into docs/).
func docYAML(t *testing.T, page, title string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(srcDir, page))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", page, title)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for _, part := range strings.Split(section, "```yaml\n")[1:] {
		block, _, ok := strings.Cut(part, "```")
		if !ok {
			t.Fatal("unterminated yaml block")
		}
		blocks = append(blocks, block)
	}
	return blocks
}

// shardCount returns N of every --shard=K/N in text; a test fails on none.
var shardFlag = regexp.MustCompile(`--shard=(?:\$\{\{[^}]*\}\}|\S+?)/(\d+)`)

func shardCounts(t *testing.T, text string) []int {
	t.Helper()
	var ns []int
	for _, m := range shardFlag.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		ns = append(ns, n)
	}
	if len(ns) == 0 {
		t.Fatalf("no --shard=K/N in %q", text)
	}
	return ns
}

// testReadmeSharding parses the GitHub Actions workflow and Kubernetes
// Job of docs/ci.md (the README links it) as YAML and checks that they
// say what the page says they do: a matrix of N parts each running its --shard=K/N and uploading
// its document, a gate job after them that merges and gates, and an
// indexed Job whose completions are the parts; and that every flag of
// every benchsup command in them is one benchsup has.
func testReadmeSharding(t *testing.T) {
	endToEnd(t)
	blocks := docYAML(t, "docs/ci.md", "Sharding a suite over many runners")
	if len(blocks) != 2 {
		t.Fatalf("want the workflow and the Job, got %d yaml blocks", len(blocks))
	}
	var commands []string

	var wf struct {
		Jobs map[string]struct {
			Needs    any `yaml:"needs"`
			Strategy struct {
				Matrix struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Uses string         `yaml:"uses"`
				Run  string         `yaml:"run"`
				With map[string]any `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
		On map[string]any `yaml:"on"`
	}
	if err := yaml.Unmarshal([]byte(blocks[0]), &wf); err != nil {
		t.Fatalf("the workflow is not valid YAML: %v", err)
	}
	bench, gate := wf.Jobs["bench"], wf.Jobs["gate"]
	parts := bench.Strategy.Matrix.Shard
	if len(parts) < 2 {
		t.Fatalf("matrix shard = %v, want 1..N", parts)
	}
	for i, k := range parts {
		if k != i+1 {
			t.Fatalf("matrix shard = %v, want 1..%d", parts, len(parts))
		}
	}
	uploads := 0
	for _, st := range bench.Steps {
		if strings.Contains(st.Run, "benchsup run") {
			for _, n := range shardCounts(t, st.Run) {
				if n != len(parts) {
					t.Errorf("--shard=K/%d in a matrix of %d", n, len(parts))
				}
			}
			if !strings.Contains(st.Run, "--shard=${{ matrix.shard }}/") {
				t.Errorf("the run step does not take K from the matrix: %q", st.Run)
			}
		}
		if strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
			uploads++
		}
		commands = append(commands, st.Run)
	}
	if uploads == 0 {
		t.Error("the bench job uploads no artifact")
	}
	if gate.Needs != "bench" {
		t.Errorf("gate needs %v, want bench", gate.Needs)
	}
	merged := false
	for _, st := range gate.Steps {
		if strings.Contains(st.Run, "benchsup merge") && strings.Contains(st.Run, "--fail-on=") {
			merged = true
		}
		commands = append(commands, st.Run)
	}
	if !merged {
		t.Error("the gate job has no benchsup merge --fail-on step")
	}
	if _, ok := wf.On["pull_request"]; !ok {
		t.Error("the workflow does not run on pull requests")
	}

	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			Template       struct {
				Spec struct {
					RestartPolicy string `yaml:"restartPolicy"`
					Containers    []struct {
						Command []string `yaml:"command"`
						Args    []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(blocks[1]), &job); err != nil {
		t.Fatalf("the Job is not valid YAML: %v", err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("want an Indexed batch/v1 Job that never restarts, got %s %s %q %q", job.APIVersion, job.Kind, job.Spec.CompletionMode, job.Spec.Template.Spec.RestartPolicy)
	}
	if len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(job.Spec.Template.Spec.Containers))
	}
	script := strings.Join(job.Spec.Template.Spec.Containers[0].Args, "\n")
	for _, n := range shardCounts(t, script) {
		if n != job.Spec.Completions {
			t.Errorf("--shard=K/%d in a Job of %d completions", n, job.Spec.Completions)
		}
	}
	if !strings.Contains(script, "K=$((JOB_COMPLETION_INDEX + 1))") || !strings.Contains(script, "--shard=$K/") {
		t.Errorf("the Job does not take K from its completion index: %q", script)
	}
	commands = append(commands, strings.Split(script, "\n")...)

	checkFlags(t, commands)
}

// benchsupCommand is a benchsup command in a shell line: its subcommand
// and the rest, up to the end of the command.
var benchsupCommand = regexp.MustCompile(`(?:^|[\s(;&|])benchsup ([a-z][a-z-]*)([^\n;&|)]*)`)

// checkFlags checks that every --flag of every benchsup command in texts
// is in the help of that benchsup command.
func checkFlags(t *testing.T, texts []string) {
	t.Helper()
	help := map[string]string{}
	checked := 0
	for _, text := range texts {
		for _, m := range benchsupCommand.FindAllStringSubmatch(text, -1) {
			sub := m[1]
			if help[sub] == "" {
				out, err := exec.Command(filepath.Join(binDir, "benchsup"), sub, "--help").CombinedOutput()
				if err != nil {
					t.Fatalf("benchsup %s --help: %v\n%s", sub, err, out)
				}
				help[sub] = string(out)
			}
			for _, f := range strings.Fields(m[2]) {
				if !strings.HasPrefix(f, "--") {
					continue
				}
				name, _, _ := strings.Cut(f, "=")
				if !regexp.MustCompile(regexp.QuoteMeta(name) + `\b`).MatchString(help[sub]) {
					t.Errorf("benchsup %s has no flag %s (in %q)", sub, name, strings.TrimSpace(m[0]))
				}
				checked++
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d benchsup flags found to check", checked)
	}
}

// TestReadmeOpens checks that the README opens with the two commands .ci/run
// and a newcomer run: the demo's benchmarks and the test suite.
func TestReadmeOpens(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "```sh\n")
	first, _, _ := strings.Cut(rest, "```")
	if want := "go run ./cmd/benchsup run --bench -C demo ./...\ngo test ./...\n"; first != want {
		t.Errorf("the README's first commands are %q, want %q", first, want)
	}
}

// mdLink is a markdown link's target; heading is a markdown heading.
var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// anchor is the fragment GitHub gives a heading: lower case, punctuation
// but hyphens dropped, spaces to hyphens.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the fragments of a markdown file's headings, outside
// code blocks.
func anchors(text string) map[string]bool {
	set := map[string]bool{}
	for i, part := range strings.Split(text, "```") {
		if i%2 == 1 {
			continue
		}
		for _, m := range heading.FindAllStringSubmatch(part, -1) {
			set[anchor(m[1])] = true
		}
	}
	return set
}

// TestDocLinks checks that every relative link of the README and the
// docs/ pages names a file of the repository and, with a fragment, a
// heading of that file: the reference moved out of the README, and no
// reader should land on a page without the section a link promised.
func TestDocLinks(t *testing.T) {
	root := repoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			rel, _ := filepath.Rel(root, page)
			text, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: link %s: %v", rel, target, err)
				continue
			}
			if frag != "" && !anchors(string(text))[frag] {
				t.Errorf("%s: link %s: no heading with that anchor", rel, target)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("only %d links checked", checked)
	}
}

// repoRoot is the repository's root; srcDir is set only without -short.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}
