package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/report"
)

// TestReportCostSessionsAsCost: the report's cost section counts the
// sessions `ctxbench cost` counts, a subagent's transcript in its
// parent's session: on two sessions and a third made of two subagents'
// files, its sessions, totals, medians and p90s per session, of none
// and of the bill, are cost's.
func TestReportCostSessionsAsCost(t *testing.T) {
	dir := t.TempDir()
	parent := "8463c716-a2ea-4c14-9efa-87158ebd9f20"
	subs := filepath.Join(dir, parent, "subagents")
	if err := os.MkdirAll(subs, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile := func(from, to string) {
		b, err := os.ReadFile(corpus + "spotter/" + from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("short.jsonl", filepath.Join(dir, "short.jsonl"))
	copyFile("tool_heavy.jsonl", filepath.Join(dir, "tool_heavy.jsonl"))
	for _, f := range []string{"agent-a7be2f0.jsonl", "agent-acompact-f46190.jsonl"} {
		copyFile(parent+"/subagents/"+f, filepath.Join(subs, f))
	}

	stdout, stderr, code := ctxbench("", "cost", "--json", "--policy", "none", dir)
	if code != 0 {
		t.Fatalf("cost: exit %d: %s", code, stderr)
	}
	var doc struct {
		Totals []struct {
			Label     string  `json:"label"`
			Sessions  int     `json:"sessions"`
			TotalUSD  float64 `json:"total_usd"`
			MedianUSD float64 `json:"per_session_median_usd"`
			P90USD    float64 `json:"per_session_p90_usd"`
		} `json:"policy_totals"`
		Sessions []struct {
			TotalUSD float64 `json:"total_usd"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Totals) != 1 || doc.Totals[0].Sessions != 3 || len(doc.Sessions) != 3 {
		t.Fatalf("cost counts %+v and %d sessions billed, want 3", doc.Totals, len(doc.Sessions))
	}
	none := doc.Totals[0]
	var bills []float64
	var bill float64
	for _, s := range doc.Sessions {
		bills = append(bills, s.TotalUSD)
		bill += s.TotalUSD
	}
	med, p90 := projection.MedianP90(bills)
	want := map[string]string{
		"none":                    "| none | 3 | " + report.USD(none.TotalUSD) + " | " + report.USD(none.MedianUSD) + " | " + report.USD(none.P90USD) + " |",
		"billed (recorded usage)": "| billed (recorded usage) | 3 | " + report.USD(bill) + " | " + report.USD(med) + " | " + report.USD(p90) + " |",
	}

	out := filepath.Join(t.TempDir(), "report")
	if _, stderr, code := ctxbench("", "report", "--out", out, "--policy", "none", dir); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(md), "### "+report.CostSectionTitle+"\n")
	section, _, _ = strings.Cut(section, "\n\n#")
	if !ok {
		t.Fatalf("report.md has no cost section:\n%s", md)
	}
	for label, row := range want {
		if !strings.Contains(section, row) {
			t.Errorf("%s: the report's row is not cost's %q:\n%s", label, row, section)
		}
	}
}
