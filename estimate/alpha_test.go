package estimate

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/internal/family"
	"github.com/ctxbench/ctxbench/transcript"
)

// TestCorpusAlpha: the alpha family.ModelAlpha falls back on is the corpus's,
// recomputed here as ctxbench estimate computes it (each family's
// sessions together), for every family with 10 billed calls or more.
func TestCorpusAlpha(t *testing.T) {
	names := []string{"chars4", "cl100k_base", "o200k_base"}
	var ests []Estimator
	for _, n := range names {
		ests = append(ests, MustNew(n, OverheadNone))
	}
	families := map[string][]*Counts{}
	_, err := transcript.Walk([]string{"../fixtures/corpus"}, transcript.Options{}, nil, func(tr *transcript.Transcript) error {
		f := family.Of(tr.Models)
		families[f] = append(families[f], analyzed(tr, ests))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]float64{}
	for f, cs := range families {
		b := AccuracyOf(cs, nil, nil, false).Billed
		if b == nil || b.Calls < 10 {
			continue
		}
		got[f] = map[string]float64{}
		for _, be := range b.Estimators {
			if slices.Contains(names, be.Estimator) && be.AlphaGrowths > 0 {
				got[f][be.Estimator] = math.Round(be.Alpha*1000) / 1000
			}
		}
	}
	if !cmp.Equal(got, family.CorpusAlpha) {
		t.Errorf("alpha over the corpus:\n%v\nthe table:\n%v", got, family.CorpusAlpha)
	}
	if a, fam, _, ok := family.ModelAlpha("claude-sonnet-4-5-20250929", "cl100k_base"); !ok || fam != "claude" || a != family.CorpusAlpha["claude"]["cl100k_base"] {
		t.Errorf("family.ModelAlpha(claude-sonnet-4-5…) = %v, %q, %v", a, fam, ok)
	}
	if _, _, _, ok := family.ModelAlpha("gpt-4.1", "cl100k_base"); ok {
		t.Error("family.ModelAlpha(gpt-4.1): the corpus has no billed OpenAI calls to say")
	}
}
