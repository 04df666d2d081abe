package reports

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/replay"
)

// TestSweepColumns: the CSV and the text table of a sweep are drawn from
// the one list of columns: every CSV row has a cell per header, the text
// table's headings are the columns that have one, in the same order, and
// the cost shows in text only when the sweep priced its points.
func TestSweepColumns(t *testing.T) {
	res := &replay.SweepResult{Policy: "aidf", Estimator: "cl100k_base", Grid: []replay.GridKey{{Key: "max_messages", Values: []string{"10", "20"}}},
		Points: []replay.Point{
			{Params: map[string]string{"max_messages": "10"}, Calls: 4, InputTokens: 100, ProbeScore: 0.5, Violations: map[string]int{"cap": 1}},
			{Params: map[string]string{"max_messages": "20"}, Calls: 4, InputTokens: 120, ProbeScore: 0.9, Violations: map[string]int{}},
		}}
	rows := SweepCSV(res)
	if len(rows) != 3 || rows[0][0] != "max_messages" || len(rows[0]) != 1+len(sweepColumns) {
		t.Fatalf("header %v", rows[0])
	}
	for _, r := range rows[1:] {
		if len(r) != len(rows[0]) {
			t.Errorf("row %v: %d cells, %d headers", r, len(r), len(rows[0]))
		}
	}
	if got := rows[2][len(rows[2])-1]; got != "true" {
		t.Errorf("the clean, better-scoring point's pareto cell is %q", got)
	}
	for _, costed := range []bool{false, true} {
		res.Costed = costed
		var b strings.Builder
		if err := WriteSweepText(&b, res, new(res.Answer(0)), 1); err != nil {
			t.Fatal(err)
		}
		head := strings.Split(b.String(), "\n")[2]
		at := 0
		for _, col := range sweepColumns {
			if col.text == nil || col.head == "" {
				continue
			}
			i := strings.Index(head[at:], "| "+col.head+" ")
			if (i >= 0) != (!col.costed || costed) {
				t.Errorf("costed %v: heading %q shown %v", costed, col.head, i >= 0)
			}
			if i >= 0 {
				at += i
			}
		}
	}
}
