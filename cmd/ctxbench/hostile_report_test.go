//go:build hostile

// make hostile, the report's part: the built command's report over
// sessions whose values no plot scale takes as they are, over names
// that are markup or spreadsheet formulas, and killed mid-report.

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHostileReportShapes runs the built command's report over folders
// of tiny sessions — one call of one-token messages (issue 64's), empty
// messages, calls alike, no usage, all of them together — and prints
// each run's exit status and figures: each exits 0, with no panic, and
// every figure report.md shows is on disk.
func TestHostileReportShapes(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	call := func(q, a, usage string) string {
		return fmt.Sprintf(`{"role":"user","content":%q}`+"\n"+`{"role":"assistant","content":%q%s}`+"\n", q, a, usage)
	}
	const usage = `,"model":"gpt-4o","usage":{"prompt_tokens":10,"completion_tokens":1}`
	shapes := []struct{ name, body string }{
		{"one call of one token", call("q", "a", usage)},
		{"one empty call", call("", "", usage)},
		{"empty calls", call("", "", `,"model":"gpt-4o","usage":{"prompt_tokens":0,"completion_tokens":0}`) + call("", "", `,"model":"gpt-4o","usage":{"prompt_tokens":0,"completion_tokens":0}`)},
		{"two calls alike", call("q", "a", usage) + call("q", "a", usage)},
		{"no usage", call("q", "a", "") + call("q", "a", "")},
		{"a model past any price", call("q", "a", `,"model":"gpt-4o","usage":{"prompt_tokens":1000000000000,"completion_tokens":1}`) + call("q", "a", usage)},
	}
	all := filepath.Join(dir, "all")
	for i, s := range shapes {
		for _, d := range []string{filepath.Join(dir, fmt.Sprint("shape-", i)), all} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("s%d.jsonl", i)), []byte(s.body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	figure := regexp.MustCompile(`(?m)^!\[[^\n]*\]\(([^()\s]+)\)$`)
	for i := range len(shapes) + 1 {
		name, in := "all of them", all
		if i < len(shapes) {
			name, in = shapes[i].name, filepath.Join(dir, fmt.Sprint("shape-", i))
		}
		out := filepath.Join(dir, fmt.Sprint("report-", i))
		b, err := exec.Command(bin, "report", "--out", out, in).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		md, _ := os.ReadFile(filepath.Join(out, "report.md"))
		figs := figure.FindAllStringSubmatch(string(md), -1)
		fmt.Printf("%-24s exit %d, %d figures\n", name, code, len(figs))
		if code != 0 || strings.Contains(string(b), "panic") || len(figs) == 0 {
			t.Errorf("%s: exit %d, %d figures: %.600s", name, code, len(figs), b)
		}
		for _, f := range figs {
			if fi, err := os.Stat(filepath.Join(out, f[1])); err != nil || fi.Size() == 0 {
				t.Errorf("%s: figure %s: %v", name, f[1], err)
			}
		}
	}
}
