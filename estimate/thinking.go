package estimate

import (
	"regexp"
	"strings"

	"github.com/ctxbench/ctxbench/internal/family"
)

// dropsEarlierThinking reports whether the API leaves the thinking of
// earlier turns out of a model's prompt: a call's prompt then holds only
// the thinking of the current turn — the assistant messages since the
// latest user message that is not a tool result — and the billed prompt
// shrinks when a new turn starts. Anthropic's context-window docs name
// the models: Claude 3.x, Opus up to 4.1, Sonnet up to 4.5 and Haiku up
// to 4.5 keep only the current turn's thinking; Opus 4.5 and later and
// Sonnet 4.6 and later keep all of it. DeepSeek's reasoning_content and
// OpenAI's reasoning items are dropped after their turn too. Any other
// model (Gemini, a later Haiku, an unknown name) is taken to keep what
// it was sent: false.
func dropsEarlierThinking(model string) bool {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "deepseek"):
		return true
	case strings.Contains(m, "claude"):
		return claudeDropsThinking(m)
	}
	// OpenAI's reasoning models, after any provider path.
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return strings.HasPrefix(m, "gpt-5") || strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") ||
		strings.HasPrefix(m, "o4") || strings.Contains(m, "codex")
}

// claude-3-7-sonnet-20250219, claude-3-haiku-20240307: the 3.x names.
var claude3 = regexp.MustCompile(`claude-3(-\d)?-(opus|sonnet|haiku)`)

func claudeDropsThinking(m string) bool {
	if claude3.MatchString(m) {
		return true
	}
	line, v, ok := family.ClaudeVersion(m)
	if !ok {
		return false
	}
	switch line {
	case "opus":
		return v < 45
	case "sonnet":
		return v < 46
	}
	return v <= 45 // haiku: through 4.5
}
