package suitecheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	good := write("ctxbench.yaml", `transcripts: ["sessions/*.jsonl", "more/"]
policies:
  - aidf:max_messages=30,preserve_last_n=8
  - compress
  - name: aidf
    label: aidf-summarizing
    params: {max_messages: 30, summarize_on_trim: true}
estimators: [chars4, cl100k_base]
provider: {name: mock}
model: claude-sonnet-4-5
budgets: {max_context_tokens: 150000, max_messages: 120, max_cost_usd: 2.50, min_retention: 0.6}
tolerance: {default: {relative: 0.02}, peak_tokens: {relative: 0.05, absolute: 50}}
baseline: ctxbench.baseline.json
`)
	c, err := LoadConfig(good)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, p := range c.Policies {
		labels = append(labels, p.Label)
	}
	if diff := cmp.Diff([]string{"aidf", "compress", "aidf-summarizing"}, labels); diff != "" {
		t.Errorf("policies (-want +got):\n%s", diff)
	}
	if c.Policies[2].Policy.Params()["summarize_on_trim"] != "true" || c.Transcripts[0] != filepath.Join(dir, "sessions/*.jsonl") ||
		c.Budgets["max_cost_usd"] != 2.5 || c.Baseline != filepath.Join(dir, "ctxbench.baseline.json") ||
		c.Tolerance["peak_tokens"] != (Tol{Relative: 0.05, Absolute: 50}) || c.Tolerance.of("cost_usd") != (Tol{Relative: 0.02}) {
		t.Errorf("config: %+v", c)
	}
	for _, tc := range []struct{ body, err string }{
		{"transcripts: [a]\npolicies: [none]\nbudget: {}\n", `:3: unknown key "budget" (valid: transcripts, policies,`},
		{"policies: [none]\n", `"transcripts" is required`},
		// A case is named by its label (the policy's name unless given):
		// two of one name need labels.
		{"transcripts: [a]\npolicies:\n  - aidf:max_messages=30\n  - aidf:max_messages=10\n", `:4: policies: a second policy labelled "aidf" (the first at line 3)`},
		{"transcripts: [a]\npolicies: [aidf:max=1]\n", `unknown parameter "max"`},
		// A label that is another policy's name: the baseline would take
		// one for the other.
		{"transcripts: [a]\npolicies:\n  - name: prune\n    label: none\n", `bad.yaml:3: policies: the label "none" is another policy's name; label prune otherwise`},
		{"transcripts: [a]\npolicies:\n  - name: aidf\n    params: {max_messages: [1]}\n", "max_messages: want a number"},
		{"transcripts: [a\n", "bad.yaml: yaml: line 1"},
		// Budgets, tolerances and estimators are checked when the file is
		// read, with their line, not after the replays.
		{"transcripts: [a]\npolicies: [none]\nbudgets: {max_tokens: 5}\n", `bad.yaml:3: budgets: unknown budget "max_tokens"`},
		{"transcripts: [a]\npolicies: [none]\nbudgets: {max_messages: -1}\n", `bad.yaml:3: budgets: max_messages is -1`},
		{"transcripts: [a]\npolicies: [none]\nbudgets: {min_probe_score: 1.5}\n", `bad.yaml:3: budgets: min_probe_score is 1.5; want a share, 0 to 1`},
		{"transcripts: [a]\npolicies: [none]\ntolerance:\n  default: {relative: 0.1}\n  peak: {relative: 0.1}\n", `bad.yaml:5: tolerance: unknown metric "peak"`},
		{"transcripts: [a]\npolicies: [none]\ntolerance:\n  cost_usd: {relative: -1}\n", `bad.yaml:4: tolerance cost_usd.relative: -1`},
		{"transcripts: [a]\npolicies: [none]\ntolerance:\n  cost_usd: {relative: lots}\n", `bad.yaml:4: tolerance cost_usd.relative: "lots" is not a number`},
		{"transcripts: [a]\npolicies: [none]\ntolerance:\n  cost_usd: {rel: 1}\n", `bad.yaml:4: tolerance cost_usd: unknown field "rel"`},
		{"transcripts: [a]\npolicies: [none]\nestimators: [chars3]\n", `bad.yaml:3: estimators: unknown estimator "chars3"`},
		{"transcripts: []\npolicies: [none]\n", "bad.yaml: no transcripts"},
		// Repeated keys: the first is named with both lines, however many
		// follow (yaml.v3 built an error per pair: 2,000 took 1.2 GB).
		{"transcripts: [a]\npolicies: [none]\nbudgets:\n" + strings.Repeat("  max_messages: 1\n", 5000), `bad.yaml: line 5: key "max_messages" is already defined at line 4`},
		{"transcripts: [a]\npolicies: [none]\ntranscripts: [b]\n", `bad.yaml: line 3: key "transcripts" is already defined at line 1`},
		{"policies: [none]\n", `"transcripts" is required`},
		// A second document (yaml.v3 reads the first alone): its line.
		{"transcripts: [a]\npolicies: [none]\n---\npolicies: [aidf:max_messages=5]\n", `bad.yaml: line 3: a second YAML document`},
	} {
		_, err := LoadConfig(write("bad.yaml", tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.body, err, tc.err)
		}
	}
}
