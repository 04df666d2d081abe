package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/report"
)

// TestCostProjectionError: cost --json carries the projection error of
// the sessions of 20 calls or more, each the error its own cross-check
// shows; the text says it beside the projected totals; the spread of
// each policy over the sessions holds its median and p90, and its range
// is the total ± the measured p90 (none for recorded: it is the bill);
// each bill table's total row sums its rows.
func TestCostProjectionError(t *testing.T) {
	args := []string{"cost", "--policy", "none", "--policy", "recorded", "--sessions-per-day", "10", corpus + "spotter", corpus + "codemie-code/tests/integration/session/fixtures"}
	stdout, stderr, code := ctxbench("", append([]string{"cost", "--json"}, args[1:]...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Transcripts []struct {
			File     string `json:"file"`
			Policies []struct {
				TotalUSD float64 `json:"total_usd"`
			}
			CrossCheck *struct {
				ErrorPct float64 `json:"error_pct"`
				AfterFit struct {
					FitCalls int `json:"fit_calls"`
					Calls    int `json:"calls"`
				} `json:"after_fit"`
			} `json:"cross_check"`
		}
		ProjectionError *projection.ProjectionError `json:"projection_error"`
		Totals          []projection.Spread         `json:"policy_totals"`
		Projection      []projection.Projection     `json:"projection"`
		Sessions        []cost.SessionBill          `json:"sessions"`
		SessionsTotal   cost.BillTotal              `json:"sessions_total"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var errs []float64
	for _, tr := range doc.Transcripts {
		// A session of 20 calls or more, fitted on its first half.
		if x := tr.CrossCheck; x != nil && x.AfterFit.FitCalls >= projection.MinErrorCalls/2 && x.AfterFit.Calls > 0 {
			errs = append(errs, x.ErrorPct)
		}
	}
	pe := doc.ProjectionError
	if pe == nil || len(errs) < 3 || pe.Sessions != len(errs) || *pe != projection.MeasureProjectionError(errs) {
		t.Fatalf("projection error %+v; want that of the %d cross-checks %v", pe, len(errs), errs)
	}
	abs := make([]float64, len(errs))
	for i, e := range errs {
		abs[i] = math.Abs(e)
	}
	if w := slices.Max(abs); pe.WorstPct != w || pe.MedianPct > w || pe.P90Pct > w || pe.MedianPct <= 0 {
		t.Errorf("median %.2f, p90 %.2f, worst %.2f; largest |error| %.2f", pe.MedianPct, pe.P90Pct, pe.WorstPct, w)
	}
	if len(doc.Totals) != 2 || len(doc.Projection) != 2 {
		t.Fatalf("%d totals, %d projections; want 2 each", len(doc.Totals), len(doc.Projection))
	}
	none, rec := doc.Totals[0], doc.Totals[1]
	if none.LowUSD == nil || math.Abs(*none.LowUSD-none.TotalUSD*(1-pe.P90Pct/100)) > 1e-9 || math.Abs(*none.HighUSD-none.TotalUSD*(1+pe.P90Pct/100)) > 1e-9 {
		t.Errorf("none: total %v, range %v–%v; want ± %.2f%%", none.TotalUSD, none.LowUSD, none.HighUSD, pe.P90Pct)
	}
	if rec.LowUSD != nil || doc.Projection[1].MonthLowUSD != nil {
		t.Errorf("recorded, the bill, has a range")
	}
	if none.MedianUSD <= 0 || none.MedianUSD > none.P90USD || none.Sessions != len(doc.Sessions) {
		t.Errorf("none over %d sessions: median %v, p90 %v", none.Sessions, none.MedianUSD, none.P90USD)
	}
	if p := doc.Projection[0]; p.MedianUSD != none.MedianUSD || p.P90USD != none.P90USD || p.DayHighUSD == nil || math.Abs(*p.MonthHighUSD-p.MonthUSD*(1+pe.P90Pct/100)) > 1e-9 {
		t.Errorf("projection of none %+v", p)
	}
	var calls int
	var sum float64
	for _, s := range doc.Sessions {
		calls += s.Calls
		sum += s.TotalUSD
	}
	if doc.SessionsTotal.Calls != calls || math.Abs(doc.SessionsTotal.TotalUSD-sum) > 1e-6 {
		t.Errorf("sessions' total %d calls %v; want %d and %v", doc.SessionsTotal.Calls, doc.SessionsTotal.TotalUSD, calls, sum)
	}

	stdout, _, _ = ctxbench("", args...)
	want := reportsProjectionLine(pe)
	rows := 0
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "| total ") {
			rows++
		}
	}
	if !strings.Contains(stdout, want) || rows != 3 {
		t.Errorf("the text does not say %q, or has not 3 total rows:\n%s", want, stdout)
	}
	stdout, _, _ = ctxbench("", "cost", "--policy", "none", corpus+"spotter/short.jsonl")
	if !strings.Contains(stdout, "projection error: no session of 20 calls or more to measure the projection on") {
		t.Errorf("a short session: %s", stdout)
	}
}

func reportsProjectionLine(pe *projection.ProjectionError) string {
	return fmt.Sprintf("projection error on these sessions: median %.1f%%, worst %.1f%% (%d sessions of 20 calls or more;", pe.MedianPct, pe.WorstPct, pe.Sessions)
}

// TestReportCostSection: report's section "What your sessions cost, what
// each policy would have cost, how sure we are" is built from the values
// cost prints: the same projection error (results.json carries it), the
// same policy totals, and their range by the measured p90 error (the
// median and p90 per session are per transcript in the report, per
// session with its subagents in cost).
func TestReportCostSection(t *testing.T) {
	paths := []string{corpus + "spotter", corpus + "codemie-code/tests/integration/session/fixtures"}
	stdout, stderr, code := ctxbench("", append([]string{"cost", "--json", "--policy", "none", "--policy", "recorded"}, paths...)...)
	if code != 0 {
		t.Fatalf("cost: exit %d: %s", code, stderr)
	}
	var c struct {
		ProjectionError *projection.ProjectionError `json:"projection_error"`
		Totals          []projection.Spread         `json:"policy_totals"`
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report")
	if _, stderr, code := ctxbench("", append([]string{"report", "--out", out, "--policy", "none", "--policy", "recorded"}, paths...)...); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		ProjectionError *projection.ProjectionError `json:"projection_error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if c.ProjectionError == nil || r.ProjectionError == nil || *r.ProjectionError != *c.ProjectionError || c.ProjectionError.Sessions == 0 {
		t.Fatalf("report's projection error %+v, cost's %+v", r.ProjectionError, c.ProjectionError)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(md), "### What your sessions cost, what each policy would have cost, how sure we are\n")
	section, _, _ = strings.Cut(section, "\n\n\n")
	none := c.Totals[0]
	for _, want := range []string{
		// The report counts a subagent's transcript as a session of its
		// own, cost rolls it into its parent's: the totals are the same.
		fmt.Sprintf(" | %s | ", report.USD(none.TotalUSD)),
		fmt.Sprintf("| %s–%s |", report.USD(*none.LowUSD), report.USD(*none.HighUSD)),
		"| recorded | ",
		"the bill: no range",
		fmt.Sprintf("projection error on these sessions: median %.1f%%, worst %.1f%% (%d sessions of 20 calls or more;", c.ProjectionError.MedianPct, c.ProjectionError.WorstPct, c.ProjectionError.Sessions),
	} {
		if !ok || !strings.Contains(section, want) {
			t.Errorf("the section does not say %q:\n%s", want, section)
		}
	}
}
