// Package family names the tokenizer families of models and holds what
// a family's API bills per estimated token (alpha): the fit over a
// session's prompt growth, and each family's over the corpus.
package family

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Growth is how much a billed prompt grew between two calls and how
// much the estimate of what was sent grew between them.
type Growth struct{ Billed, Estimated int64 }

// MinGrowths is the fewest growths [Alpha] fits on.
const MinGrowths = 5

// Alpha returns the billed tokens per estimated token of a session's
// prompt growth: the median of billed over estimated growth, each growth
// weighted by its estimate, over the growths where both grew (a prompt
// that shrank dropped something the estimate still holds). The median,
// not the ratio of sums, so that a growth the estimate misreads (a
// compaction, dropped thinking) moves it little. It returns the number
// of growths fitted on, and ok false when there are fewer than
// [MinGrowths] (alpha is then 1).
func Alpha(gs []Growth) (alpha float64, n int, ok bool) {
	var use []Growth
	for _, g := range gs {
		if g.Billed > 0 && g.Estimated > 0 {
			use = append(use, g)
		}
	}
	if len(use) < MinGrowths {
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

// CorpusAlpha is alpha ([Alpha]) over the corpus's sessions of each
// tokenizer family (as [Of] names them: Claude's two tokenizer
// generations apart) with billed usage of 10 calls or more, by
// estimator: what [ModelAlpha] falls back on. `ctxbench estimate
// fixtures/corpus` prints the same figures; TestCorpusAlpha holds them
// to it. claude-4.7 rests on one session (cline's, claude-opus-4.8, 14
// growths): 1.41 times the older tokenizer's in cl100k_base tokens,
// where Anthropic says the new one counts 1.0 to 1.35 times as many.
var CorpusAlpha = map[string]map[string]float64{
	"claude":     {"chars4": 1.382, "cl100k_base": 1.167, "o200k_base": 1.189},
	"claude-4.7": {"chars4": 2.162, "cl100k_base": 1.642, "o200k_base": 1.645},
	"deepseek":   {"chars4": 0.972, "cl100k_base": 1.107, "o200k_base": 1.106},
	"gemini":     {"chars4": 0.901, "cl100k_base": 0.982, "o200k_base": 0.974},
}

// ModelAlpha returns the alpha of model's tokenizer family over the
// corpus for the estimator named est ([CorpusAlpha]), the family's
// name ([Of]) and where the figure comes from ("claude's over the
// corpus"); ok is false when the corpus has too few billed calls of the
// family to say.
func ModelAlpha(model, est string) (alpha float64, family, from string, ok bool) {
	family = Of([]string{model})
	alpha, ok = CorpusAlpha[family][est]
	return alpha, family, family + "'s over the corpus", ok
}

// Of names the tokenizer family of a transcript's models (its first
// model's): claude (the tokenizer of Claude 3 to Opus 4.6), claude-4.7
// (the one Claude Opus 4.7 introduced, which later Claude models keep:
// claudeTokenizer47), gemini, deepseek or openai, which billed usage is
// grouped by; the model's own name for any other, and "unknown model"
// without one.
func Of(models []string) string {
	if len(models) == 0 {
		return "unknown model"
	}
	m := strings.ToLower(models[0])
	for _, f := range []string{"claude", "gemini", "deepseek"} {
		if strings.Contains(m, f) {
			if f == "claude" && claudeTokenizer47(m) {
				return "claude-4.7"
			}
			return f
		}
	}
	if strings.HasPrefix(m, "gpt") || strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") || strings.HasPrefix(m, "o4") || strings.Contains(m, "codex") {
		return "openai"
	}
	return m
}

// claudeTokenizer47 reports whether the Claude model named model counts
// its tokens with the tokenizer Claude Opus 4.7 introduced: a version of
// 4.7 or later in its name (claude-opus-4-7, claude-opus-4-8,
// claude-sonnet-5; not claude-sonnet-4-5-20250929, claude-3-7-sonnet).
// Anthropic says the new tokenizer uses 1.0 to 1.35 times the tokens of
// the one before for the same text
// (https://platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-7).
func claudeTokenizer47(model string) bool {
	_, v, ok := ClaudeVersion(strings.ToLower(model))
	return ok && v >= 47
}

// claude-sonnet-4-5-20250929, claude-opus-4-20250514, claude-opus-4-6,
// claude-opus-4.8-fast: a one-digit minor version, never the 8-digit
// date.
var claude4 = regexp.MustCompile(`claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d))?(?:$|[^0-9])`)

// ClaudeVersion reads a Claude 4 or later model's line (opus, sonnet,
// haiku) and version, major·10 + minor, from its lower-case name; ok is
// false for any other name.
func ClaudeVersion(m string) (line string, v int, ok bool) {
	s := claude4.FindStringSubmatch(m)
	if s == nil {
		return "", 0, false
	}
	major, _ := strconv.Atoi(s[2])
	minor := 0
	if s[3] != "" {
		minor, _ = strconv.Atoi(s[3])
	}
	return s[1], major*10 + minor, true
}
