package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/transcript"
)

// TestSpilledCountsPlotTheSame: the estimator plots of counts spilled to
// a temporary file, a few messages at a time, are byte for byte those of
// counts kept in memory, over enough messages that the scatter draws a
// thinned subset of each heuristic's.
func TestSpilledCountsPlotTheSame(t *testing.T) {
	ts, err := conformance.Corpus("../../fixtures/corpus")
	if err != nil {
		t.Fatal(err)
	}
	var ests []estimate.Estimator
	for _, n := range []string{"chars4", "cl100k_base", "gemini"} {
		ests = append(ests, estimate.MustNew(n, estimate.OverheadNone))
	}
	var cs []*estimate.Counts
	messages := 0
	for messages <= 2*maxScatterPoints {
		for _, tr := range ts {
			c := analyzed(tr, ests)
			cs = append(cs, c)
			messages += len(c.Messages)
		}
	}
	plot := func(spill int) string {
		defer func(n int) { spillAt = n }(spillAt)
		spillAt = spill
		dir := t.TempDir()
		files, err := EstimatePlots(dir, cs, []string{"chars4", "gemini"}, "cl100k_base")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 4 {
			t.Fatalf("files %v", files)
		}
		return dir
	}
	kept, spilled := plot(1<<30), plot(7)
	for _, name := range []string{"estimate-scatter.svg", "estimate-scatter.png", "estimate-error.svg", "estimate-error.png"} {
		a, err := os.ReadFile(filepath.Join(kept, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(spilled, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs", name)
		}
		if name == "estimate-scatter.svg" && !strings.Contains(string(a), "drawn evenly") {
			t.Errorf("%s: no thinned scatter over %d messages", name, messages)
		}
	}
}

// analyzed is Analyze of a transcript read whole.
func analyzed(t *transcript.Transcript, ests []estimate.Estimator) *estimate.Counts {
	c, err := estimate.Analyze(t, ests)
	if err != nil {
		panic(err)
	}
	return c
}
