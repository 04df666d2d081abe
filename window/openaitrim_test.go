package window

import "testing"

// TestOpenAITrimParams: ToolOutputTrimmer.__post_init__ refuses
// recent_turns < 1, max_output_chars < 1 and preview_chars < 0.
func TestOpenAITrimParams(t *testing.T) {
	checkParses(t, map[string]bool{
		"openai-trim": true,
		"openai-trim:recent_turns=1,preview_chars=0": true,
		"openai-trim:tools=Bash|Read":                true,
		"openai-trim:recent_turns=0":                 false,
	}, "recent_turns")
	checkParses(t, map[string]bool{"openai-trim:max_output_chars=0": false}, "max_output_chars")
	checkParses(t, map[string]bool{"openai-trim:preview_chars=-1": false}, "preview_chars")
}
