package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// TestReportNamesCacheMisses: a session whose bill shows cache misses
// says what they cost on its page, and lists them in the JSON.
func TestReportNamesCacheMisses(t *testing.T) {
	ts, err := transcript.ReadFile("../../fixtures/corpus/codemie-code/tests/integration/session/fixtures/session-3fe1b6bc.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := window.ParseLabeled([]string{"none"})
	if err != nil {
		t.Fatal(err)
	}
	r := built(t, &Builder{Policies: ps}, cost.Options{}, ts[:1])
	tr := r.Transcripts[0]
	if tr.CacheMisses == nil || tr.CacheMisses.Calls != len(tr.Misses) || tr.CacheMisses.Calls == 0 {
		t.Fatalf("misses %+v, %d listed", tr.CacheMisses, len(tr.Misses))
	}
	if len(tr.Notes) == 0 || !strings.HasPrefix(tr.Notes[0], "cache misses: $5.1919 of $8.5166 billed (21 calls: 0 after the cache expired, 21 unexplained)") {
		t.Errorf("notes %q", tr.Notes)
	}
	// Every policy's row carries the misses it inherits.
	rows, err := summaryRows(r, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "cache misses (USD)")
	for _, row := range rows[1:] {
		if col < 0 || row[col] != "5.1919" {
			t.Errorf("row %v: want the misses' cost 5.1919 in column %d", row, col)
		}
	}
}

// TestMissMarks: the bill's line carries its misses as marks, and a
// policy's line with the same costs but no marks is drawn apart.
func TestMissMarks(t *testing.T) {
	y := []float64{1, 2, 3}
	m := mergeSeries([]Series{{Label: "recorded", Y: y, Reference: true}, {Label: "billed", Y: y, Reference: true, Marks: []int{1}}})
	if len(m) != 2 {
		t.Fatalf("merged %+v", m)
	}
	files, err := LineChart(t.TempDir(), "cost", "cost", "USD", m, nil)
	if err != nil || len(files) != 2 {
		t.Fatalf("%v %v", files, err)
	}
}
