package family

import "testing"

// TestAlpha: the growth-weighted median of billed over estimated growth,
// over growths where both grew; 1 with too few.
func TestAlpha(t *testing.T) {
	gs := []Growth{{130, 100}, {260, 200}, {1300, 1000}, {650, 500}, {13, 10}, {-50, 100}, {100, 0}, {5000, 100}}
	if a, n, ok := Alpha(gs); !ok || n != 6 || a != 1.3 {
		t.Errorf("alpha %v over %d (%v), want 1.3 over 6: the outlier (50 per token) moves the median nothing", a, n, ok)
	}
	if a, n, ok := Alpha(gs[:4]); ok || n != 4 || a != 1 {
		t.Errorf("alpha %v over %d (%v), want 1 and not fitted", a, n, ok)
	}
}

// TestModelAlphaByTokenizer: the fallback is per Claude tokenizer
// generation. claude-opus-4-7 and later (the tokenizer Opus 4.7
// introduced) bill 1.75 to 2.09 tokens per cl100k token where older
// Claude models bill 1.18 to 1.24: each falls back on its own
// generation's alpha over the corpus, the newer one's 1.3 times the
// older's or more.
func TestModelAlphaByTokenizer(t *testing.T) {
	old, newer := CorpusAlpha["claude"]["cl100k_base"], CorpusAlpha["claude-4.7"]["cl100k_base"]
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
		a, family, from, ok := ModelAlpha(c.model, "cl100k_base")
		if !ok || family != c.family || a != c.alpha || from == "" {
			t.Errorf("ModelAlpha(%s) = %v, %q, %q, %v; want %v, %q", c.model, a, family, from, ok, c.alpha, c.family)
		}
	}
}
