package imagerule

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
		r := For(c.model)
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
		if r := For(m); r != nil {
			t.Errorf("%s: rule %s, want none", m, r.Name)
		}
	}
	if _, ok := For("claude-opus-4-6").Tokens(transcript.Image{}); ok {
		t.Error("an image of unknown size was counted")
	}
}
