package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadPriceFile: a --prices file with a price that cannot be taken
// (issue 64, item 7: negative, a string, 1e400, 1e300, a misspelt
// field) beside a good model is an error naming the file, the line, the
// model and the field, exit status 2, for every command that prices;
// never the good model alone priced and the other "not priced".
func TestBadPriceFile(t *testing.T) {
	dir := t.TempDir()
	for name, fields := range map[string]string{
		"negative": `"input_cost_per_token": -2.5e-06, "output_cost_per_token": 1e-05`,
		"string":   `"input_cost_per_token": "2.5e-06", "output_cost_per_token": 1e-05`,
		"1e400":    `"input_cost_per_token": 1e400, "output_cost_per_token": 1e-05`,
		"1e300":    `"input_cost_per_token": 1e300, "output_cost_per_token": 1e-05`,
		"misspelt": `"input_cost_per_tokn": 2.5e-06, "output_cost_per_token": 1e-05`,
	} {
		path := filepath.Join(dir, name+".json")
		text := "{\n\"claude-sonnet-4-5\": {\"litellm_provider\": \"anthropic\", \"mode\": \"chat\", \"input_cost_per_token\": 3e-06, \"output_cost_per_token\": 1.5e-05},\n" +
			"\"gpt-4o\": {\"litellm_provider\": \"openai\", \"mode\": \"chat\",\n" + fields + "}\n}\n"
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		field, _, _ := strings.Cut(strings.Trim(fields, `"`), `"`)
		want := "ctxbench: error: --prices: " + path + `:4: model "gpt-4o": `
		for _, args := range [][]string{{"cost"}, {"cost", "--policy", "none"}, {"replay", "--policy", "none"}} {
			stdout, stderr, code := ctxbench("", append(append(args, "--prices", path), corpus)...)
			if code != 2 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, field) || stdout != "" {
				t.Errorf("%s, %v: exit %d, stderr %q, stdout %.100q; want exit 2 and %q naming %s", name, args, code, stderr, stdout, want, field)
			}
		}
	}
}
