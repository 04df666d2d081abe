package estimate

import "slices"

// A Growth is how much a billed prompt grew between two calls and how
// much the estimate of what was sent grew between them.
type Growth struct{ Billed, Estimated int64 }

// MinAlphaGrowths is the fewest growths [Alpha] fits on.
const MinAlphaGrowths = 5

// Alpha returns the billed tokens per estimated token of a session's
// prompt growth: the median of billed over estimated growth, each growth
// weighted by its estimate, over the growths where both grew (a prompt
// that shrank dropped something the estimate still holds). The median,
// not the ratio of sums, so that a growth the estimate misreads (a
// compaction, dropped thinking) moves it little. It returns the number
// of growths fitted on, and ok false when there are fewer than
// [MinAlphaGrowths] (alpha is then 1).
func Alpha(gs []Growth) (alpha float64, n int, ok bool) {
	var use []Growth
	for _, g := range gs {
		if g.Billed > 0 && g.Estimated > 0 {
			use = append(use, g)
		}
	}
	if len(use) < MinAlphaGrowths {
		return 1, len(use), false
	}
	ratio := func(g Growth) float64 { return float64(g.Billed) / float64(g.Estimated) }
	slices.SortFunc(use, func(a, b Growth) int {
		switch ra, rb := ratio(a), ratio(b); {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	var total, run int64
	for _, g := range use {
		total += g.Estimated
	}
	for _, g := range use {
		run += g.Estimated
		if run*2 >= total {
			return ratio(g), len(use), true
		}
	}
	return ratio(use[len(use)-1]), len(use), true
}

// corpusAlpha is alpha ([Alpha]) over the corpus's sessions of each
// tokenizer family (as [Family] names them: Claude's two tokenizer
// generations apart) with billed usage of 10 calls or more, by
// estimator: what [FamilyAlpha] falls back on. `ctxbench estimate
// fixtures/corpus` prints the same figures; TestCorpusAlpha holds them
// to it. claude-4.7 rests on one session (cline's, claude-opus-4.8, 14
// growths): 1.41 times the older tokenizer's in cl100k_base tokens,
// where Anthropic says the new one counts 1.0 to 1.35 times as many.
var corpusAlpha = map[string]map[string]float64{
	"claude":     {"chars4": 1.382, "cl100k_base": 1.167, "o200k_base": 1.189},
	"claude-4.7": {"chars4": 2.162, "cl100k_base": 1.642, "o200k_base": 1.645},
	"deepseek":   {"chars4": 0.972, "cl100k_base": 1.107, "o200k_base": 1.106},
	"gemini":     {"chars4": 0.901, "cl100k_base": 0.982, "o200k_base": 0.974},
}

// FamilyAlpha returns the alpha of model's tokenizer family over the
// corpus for the estimator named est (see corpusAlpha), the family's
// name ([Family]) and where the figure comes from ("claude's over the
// corpus"); ok is false when the corpus has too few billed calls of the
// family to say.
func FamilyAlpha(model, est string) (alpha float64, family, from string, ok bool) {
	family = Family([]string{model})
	alpha, ok = corpusAlpha[family][est]
	return alpha, family, family + "'s over the corpus", ok
}
