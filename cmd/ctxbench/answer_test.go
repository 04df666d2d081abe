package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSweepAndReportAnswer: on a home of real Claude Code sessions whose
// larger windows cost more than sending everything (trimming breaks the
// prompt cache), sweep shows the baselines as rows, stars no point a
// baseline beats and ends in a recommendation; report ends in one too,
// and draws the sweep's cost beside its probe score.
func TestSweepAndReportAnswer(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	for _, f := range []string{"tool_heavy.jsonl", "subagent.jsonl"} {
		copyFile(t, corpus+"spotter/"+f, filepath.Join(home, ".claude", "projects", "p", f))
	}
	run := func(args ...string) string {
		t.Helper()
		var out, errOut strings.Builder
		code := runEnv(args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string {
			return map[string]string{"HOME": home}[k]
		}})
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, errOut.String())
		}
		return out.String()
	}
	out := run("sweep", "--policy", "aidf:pair_safe=true", "--grid", "max_messages=10:30:10", "--grid", "summarize_on_trim=false,true")

	// The table's rows: the first cell, the cost, the probe score, the star.
	type row struct {
		first string
		usd   float64
		score int
		star  bool
	}
	var head []string
	var rows []row
	money := regexp.MustCompile(`^\$([0-9.,]+)$`)
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if head == nil {
			head = cells
			continue
		}
		col := func(name string) string {
			for i, h := range head {
				if h == name {
					return cells[i]
				}
			}
			t.Fatalf("no %s column in %q", name, head)
			return ""
		}
		m := money.FindStringSubmatch(col("cost"))
		if m == nil {
			t.Fatalf("cost %q", col("cost"))
		}
		usd, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		score, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(col("probes"), "%", 2)[0]))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row{cells[0], usd, score, cells[len(cells)-1] == "★"})
	}
	baseline := map[string]bool{"none": true, "recorded": true, "claude-code": true}
	var none *row
	for i, r := range rows {
		if r.first == "none" {
			none = &rows[i]
		}
		delete(baseline, r.first)
	}
	if len(baseline) > 0 || none == nil {
		t.Fatalf("the baselines %v are not rows:\n%s", baseline, out)
	}
	costlier := false
	for _, r := range rows {
		if _, err := strconv.Atoi(r.first); err != nil {
			continue // a baseline
		}
		costlier = costlier || r.usd > none.usd
		if r.star && r.usd >= none.usd && r.score <= none.score {
			t.Errorf("max_messages=%s is starred at $%v, %d%%, though none costs $%v and keeps %d%%", r.first, r.usd, r.score, none.usd, none.score)
		}
	}
	if !costlier {
		t.Fatalf("no point costs more than none: not the shape this test holds:\n%s", out)
	}
	if !strings.Contains(out, "\nRecommended: ") || !strings.Contains(out, "\nsummarize_on_trim (false, true) changed nothing on these sessions.\n") {
		t.Errorf("the sweep has no recommendation, or names no parameter that changed nothing:\n%s", out)
	}

	rep := filepath.Join(dir, "report")
	out = run("report", "--out", rep)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "Recommended: ") {
		t.Errorf("the report ends in %q, no recommendation", last)
	}
	page, err := os.ReadFile(filepath.Join(rep, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "sweep-cost.png") || !strings.Contains(string(page), "sweep-heatmap.png") {
		t.Error("the page has no heatmap of the sweep's cost beside its probe score")
	}
}
