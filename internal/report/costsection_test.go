package report

import (
	"strings"
	"testing"
)

// TestCostSection: the section's range is each policy's total × (1 ±
// the p90 of the sessions' measured errors), and its last row says the
// projection error; with no session measured, it says so and gives no
// range.
func TestCostSection(t *testing.T) {
	r := fixtureReport()
	e := -12.0
	r.Transcripts[0].ProjectionErrorPct = &e
	sec, ok := costSection(r)
	if !ok {
		t.Fatal("no section")
	}
	got := map[string][]string{}
	for _, row := range sec.rows {
		got[row[0]] = row
	}
	if none := got["none"]; none == nil || none[2] != "$0.6000" || none[5] != "$0.5280–$0.6720" {
		t.Errorf("none: %q; want $0.6000, $0.5280–$0.6720", none)
	}
	if b := got["billed (recorded usage)"]; b == nil || b[2] != "$0.5000" {
		t.Errorf("billed: %q", b)
	}
	if h := got["how sure we are"]; h == nil || !strings.HasPrefix(h[5], "projection error on these sessions: median 12.0%, worst 12.0% (1 session of 20 calls or more;") {
		t.Errorf("how sure: %q", h)
	}
	r = fixtureReport()
	sec, _ = costSection(r)
	last := sec.rows[len(sec.rows)-1]
	if last[5] != "projection error: no session of 20 calls or more to measure the projection on" || sec.rows[1][5] != "-" {
		t.Errorf("no session measured: %q", sec.rows)
	}
}
