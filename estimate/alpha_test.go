package estimate

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestCorpusAlpha: the alpha FamilyAlpha falls back on is the corpus's,
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
		f := Family(tr.Models)
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
	if !cmp.Equal(got, corpusAlpha) {
		t.Errorf("alpha over the corpus:\n%v\nthe table:\n%v", got, corpusAlpha)
	}
	if a, family, _, ok := FamilyAlpha("claude-sonnet-4-5-20250929", "cl100k_base"); !ok || family != "claude" || a != corpusAlpha["claude"]["cl100k_base"] {
		t.Errorf("FamilyAlpha(claude-sonnet-4-5…) = %v, %q, %v", a, family, ok)
	}
	if _, _, _, ok := FamilyAlpha("gpt-4.1", "cl100k_base"); ok {
		t.Error("FamilyAlpha(gpt-4.1): the corpus has no billed OpenAI calls to say")
	}
}

// TestFamilyAlphaByTokenizer: the fallback is per Claude tokenizer
// generation. claude-opus-4-7 and later (the tokenizer Opus 4.7
// introduced) bill 1.75 to 2.09 tokens per cl100k token where older
// Claude models bill 1.18 to 1.24: each falls back on its own
// generation's alpha over the corpus, the newer one's 1.3 times the
// older's or more.
func TestFamilyAlphaByTokenizer(t *testing.T) {
	old, newer := corpusAlpha["claude"]["cl100k_base"], corpusAlpha["claude-4.7"]["cl100k_base"]
	if newer < 1.3*old {
		t.Errorf("cl100k_base alpha of the 4.7 tokenizer %v, of the older %v: want the first 1.3 times the second or more", newer, old)
	}
	for _, c := range []struct {
		model, family string
		alpha         float64
	}{
		{"claude-sonnet-4-5-20250929", "claude", old},
		{"claude-opus-4-6", "claude", old},
		{"claude-opus-4-20250514", "claude", old},
		{"claude-3-7-sonnet-20250219", "claude", old},
		{"claude-haiku-4-5", "claude", old},
		{"claude-opus-4-7", "claude-4.7", newer},
		{"claude-opus-4-8", "claude-4.7", newer},
		{"anthropic.claude-opus-4-7-v1:0", "claude-4.7", newer},
		{"claude-sonnet-5", "claude-4.7", newer},
	} {
		a, family, from, ok := FamilyAlpha(c.model, "cl100k_base")
		if !ok || family != c.family || a != c.alpha || from == "" {
			t.Errorf("FamilyAlpha(%s) = %v, %q, %q, %v; want %v, %q", c.model, a, family, from, ok, c.alpha, c.family)
		}
	}
}
