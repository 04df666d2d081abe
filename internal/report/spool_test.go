package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSpoolRoundTrip: what the spool reads back is what was put, runs
// absent, empty or several, each record among others.
func TestSpoolRoundTrip(t *testing.T) {
	s, err := newTranscriptSpool()
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	cost := 0.25
	put := []TranscriptResult{
		{File: "a.jsonl", ID: "a", Calls: 2},
		{File: "b.jsonl", ID: "b", Calls: 3, Runs: []PolicyResult{}},
		{File: "c.jsonl", ID: "c", Calls: 3, Billed: []float64{0.1, 0.2, 0.3}, Runs: []PolicyResult{
			{Label: "none", Tokens: []int{10, 20, 30}, CostUSD: &cost},
			{Label: "aidf", Tokens: []int{10, 15, 15}, Retention: []float64{1, 0.5, 0.5}},
		}},
	}
	var heads []TranscriptResult
	for i := range put {
		h, err := s.put(&put[i])
		if err != nil {
			t.Fatal(err)
		}
		heads = append(heads, h)
	}
	for i := range put {
		got, err := s.get(i, heads[i])
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(put[i], got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("record %d (-put +got):\n%s", i, diff)
		}
		if (got.Runs == nil) != (put[i].Runs == nil) {
			t.Errorf("record %d: runs %#v read back as %#v", i, put[i].Runs, got.Runs)
		}
	}
}
