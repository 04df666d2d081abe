package estimate

import (
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestImageRules holds each rule to the examples its provider documents.
func TestImageRules(t *testing.T) {
	for _, c := range []struct {
		model string
		w, h  int
		want  int
		rule  string
	}{
		// Claude's vision guide: 200×200 about 54 tokens, 1000×1000 about
		// 1,334, 1092×1092 (the largest 1:1 size not scaled) about 1,590.
		{"claude-sonnet-4-5-20250929", 200, 200, 54, "anthropic"},
		{"claude-opus-4-6", 1000, 1000, 1334, "anthropic"},
		{"anthropic/claude-haiku-4-5", 1092, 1092, 1590, "anthropic"},
		// Scaled down: long edge 1,568 and at most about 1,600 tokens.
		{"claude-sonnet-4-5", 3000, 2000, 1599, "anthropic"},
		{"claude-sonnet-4-5", 4000, 400, 327, "anthropic"}, // 1568×156
		{"claude-sonnet-4-5", 1280, 800, 1366, "anthropic"},
		// OpenAI's vision guide: 1024×1024 at high detail, 765 tokens on
		// gpt-4o; 2048×4096, 1,105.
		{"gpt-4o", 1024, 1024, 765, "openai-tiles 85+170"},
		{"gpt-4o-2024-08-06", 2048, 4096, 1105, "openai-tiles 85+170"},
		{"gpt-4o-mini", 1024, 1024, 2833 + 4*5667, "openai-tiles 2833+5667"},
		{"o3", 512, 512, 75 + 150, "openai-tiles 75+150"},
		{"gpt-5", 1024, 1024, 70 + 4*140, "openai-tiles 70+140"},
		// Gemini: 258 up to 384×384, else 258 per 768×768 tile.
		{"gemini-2.5-pro", 384, 384, 258, "gemini-tiles"},
		{"gemini-2.5-flash", 1024, 1024, 4 * 258, "gemini-tiles"},
		{"gemini-3-pro-preview", 1024, 1024, 1120, "gemini-3"},
	} {
		r := ImageRuleFor(c.model)
		if r == nil {
			t.Errorf("%s: no rule, want %s", c.model, c.rule)
			continue
		}
		n, ok := r.Tokens(transcript.Image{Width: c.w, Height: c.h})
		if !ok || n != c.want || r.Name != c.rule {
			t.Errorf("%s %d×%d: %d tokens by %s (%v), want %d by %s", c.model, c.w, c.h, n, r.Name, ok, c.want, c.rule)
		}
	}
	// No rule is borrowed from another model.
	for _, m := range []string{"gpt-4.1-mini", "gpt-5-mini", "gpt-5.5", "o4-mini", "gpt-5-codex", "deepseek-chat", "qwen3-coder", ""} {
		if r := ImageRuleFor(m); r != nil {
			t.Errorf("%s: rule %s, want none", m, r.Name)
		}
	}
	if _, ok := ImageRuleFor("claude-opus-4-6").Tokens(transcript.Image{}); ok {
		t.Error("an image of unknown size was counted")
	}
}

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

// analyzed is Analyze of a transcript read whole.
func analyzed(t *transcript.Transcript, ests []Estimator) *Counts {
	c, err := Analyze(t, ests)
	if err != nil {
		panic(err)
	}
	return c
}
