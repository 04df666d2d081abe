package crossturn

import (
	"fmt"
	"testing"

	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestCrossTurnExampleFlow reproduces the "Example Flow" table row of the AI
// Context Management document by row: with resummarize_threshold 10, after N
// text messages, what the summary covers and what the AI sees.
func TestCrossTurnExampleFlow(t *testing.T) {
	p := policytest.New(t, Specs[0], map[string]string{"resummarize_threshold": "10"}).(*crossTurnPolicy)
	cs := &crossTurnState{}
	type row struct {
		n          int
		covers     int    // messages 1..covers are in the summary (0: no summary)
		sees       [2]int // the verbatim messages the AI sees, from..to (1-based)
		resummary  bool
		folded     [2]int // for a (re-)summary: the messages folded in
		hasSummary bool
	}
	rows := map[int]row{
		10: {n: 10, sees: [2]int{1, 10}},                                                                         // "1–10 | (none) | Last 20 messages verbatim"
		11: {n: 11, covers: 5, sees: [2]int{6, 11}, resummary: true, folded: [2]int{1, 5}, hasSummary: true},     // "11th msg generated | Summary of msgs 1–5 | Summary + msgs 6–11"
		20: {n: 20, covers: 5, sees: [2]int{15, 20}, hasSummary: true},                                           // "12–20 | msgs 1–5 | Summary + msgs 15–20"
		21: {n: 21, covers: 15, sees: [2]int{16, 21}, resummary: true, folded: [2]int{6, 15}, hasSummary: true},  // "21st | old summary + msgs 6–15 | msgs 16–21"
		30: {n: 30, covers: 15, sees: [2]int{25, 30}, hasSummary: true},                                          // "22–30 | msgs 1–15 | Summary + msgs 25–30"
		31: {n: 31, covers: 25, sees: [2]int{26, 31}, resummary: true, folded: [2]int{16, 25}, hasSummary: true}, // "31st | old summary + msgs 16–25 | msgs 26–31"
	}
	for n := 1; n <= 31; n++ {
		from, to, ok := p.plan(cs, n)
		if ok {
			cs.summary, cs.covered = fmt.Sprintf("summary at %d", n), to
		}
		r, check := rows[n]
		if !check {
			if ok {
				t.Errorf("after %d messages: a summary of %d–%d, the table has none", n, from+1, to)
			}
			continue
		}
		if ok != r.resummary || (ok && [2]int{from + 1, to} != r.folded) {
			t.Errorf("after %d messages: summarize %v (%d–%d), want %v (%v)", n, ok, from+1, to, r.resummary, r.folded)
		}
		if cs.covered != r.covers || (cs.summary != "") != r.hasSummary {
			t.Errorf("after %d messages: summary covers 1–%d, want 1–%d", n, cs.covered, r.covers)
		}
		keep := p.lastN
		if cs.summary != "" {
			keep = p.lastNWithSummary
		}
		if sees := [2]int{max(1, n-keep+1), n}; sees != r.sees {
			t.Errorf("after %d messages: the AI sees %v, want %v", n, sees, r.sees)
		}
	}
}
