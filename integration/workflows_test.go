package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflowsDirEnv names the directory TestDocWorkflows writes the
// documentation's GitHub Actions workflows to, one file each, for
// .ci/run to lint them with actionlint; unset, the test only checks that
// they parse.
const workflowsDirEnv = "BENCHSUP_WORKFLOWS_DIR"

// TestDocWorkflows extracts every ```yaml block of the README and the
// docs/ pages that is a GitHub Actions workflow (a mapping with both on
// and jobs) so that CI lints what users copy: a workflow that does not
// parse fails here, one actionlint refuses fails .ci/run.
func TestDocWorkflows(t *testing.T) {
	root := repoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	out := os.Getenv(workflowsDirEnv)
	found := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for i, block := range yamlBlocks(string(b)) {
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
				t.Errorf("%s: yaml block %d does not parse: %v", rel, i+1, err)
				continue
			}
			_, on := doc["on"]
			_, jobs := doc["jobs"]
			if !on || !jobs {
				continue // a Kubernetes Job, a fragment
			}
			found++
			if out == "" {
				continue
			}
			name := fmt.Sprintf("%s-%d.yml", strings.ReplaceAll(strings.TrimSuffix(rel, ".md"), "/", "-"), i+1)
			if err := os.WriteFile(filepath.Join(out, name), []byte(block), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if found < 2 {
		t.Errorf("found %d workflows in the README and docs/; docs/ci.md and docs/comparing.md have one each", found)
	}
}

// yamlBlocks returns the bodies of the ```yaml fences of a markdown page.
func yamlBlocks(page string) []string {
	var blocks []string
	for _, part := range strings.Split(page, "```yaml\n")[1:] {
		body, _, ok := strings.Cut(part, "\n```")
		if ok {
			blocks = append(blocks, body+"\n")
		}
	}
	return blocks
}
