package estimate

import (
	"regexp"
	"strconv"
	"strings"
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

var (
	// claude-3-7-sonnet-20250219, claude-3-haiku-20240307: the 3.x names.
	claude3 = regexp.MustCompile(`claude-3(-\d)?-(opus|sonnet|haiku)`)
	// claude-sonnet-4-5-20250929, claude-opus-4-20250514, claude-opus-4-6,
	// claude-opus-4.8-fast: a one-digit minor version, never the 8-digit
	// date.
	claude4 = regexp.MustCompile(`claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d))?(?:$|[^0-9])`)
)

func claudeDropsThinking(m string) bool {
	if claude3.MatchString(m) {
		return true
	}
	line, v, ok := claudeVersion(m)
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

// claudeVersion reads a Claude 4 or later model's line (opus, sonnet,
// haiku) and version, major·10 + minor, from its lower-case name; ok is
// false for any other name.
func claudeVersion(m string) (line string, v int, ok bool) {
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
