package estimate

import (
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestAnalyzeCountsImagesByRule: a screenshot a tool read is counted by
// Claude's rule against the bill, not as its base64 text, and is left
// out of the estimators' own counts.
func TestAnalyzeCountsImagesByRule(t *testing.T) {
	ts, err := transcript.ReadFile("../transcript/testdata/claude-code-screenshot.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := analyzed(ts[0], []Estimator{MustNew("chars4", OverheadNone), MustNew("cl100k_base", OverheadNone)})
	m := c.Messages[2] // the tool result holding the image
	if m.Images != 1 || m.ImageTokens != 1366 || m.Unsized != 0 {
		t.Errorf("message 2: %d images, %d tokens, %d unsized; want 1, 1,366, 0", m.Images, m.ImageTokens, m.Unsized)
	}
	if m.Counts[0] > 20 || m.Counts[1] > 20 {
		t.Errorf("message 2 counts %v: the image's data was counted as text", m.Counts)
	}
	a := AccuracyOf([]*Counts{c}, []string{"chars4"}, []string{"cl100k_base"}, true)
	if a.Images == nil || a.Images.Images != 1 || a.Images.Tokens != 1366 {
		t.Errorf("accuracy images %+v", a.Images)
	}
	// The billed growth over the two compared calls is 1,523 tokens; the
	// image is 1,366 of them.
	for _, e := range a.Billed.Estimators {
		if e.Ratio < 0.9 || e.Ratio > 1.2 {
			t.Errorf("%s: %.3f billed per estimated token, want within 0.9 to 1.2", e.Estimator, e.Ratio)
		}
	}
}

// analyzed is Analyze of a transcript read whole.
func analyzed(t *transcript.Transcript, ests []Estimator) *Counts {
	c, err := Analyze(t, ests)
	if err != nil {
		panic(err)
	}
	return c
}
