package window

import "testing"

// TestOpenAICompactionParams: compact_threshold is a count of tokens.
func TestOpenAICompactionParams(t *testing.T) {
	checkParses(t, map[string]bool{
		"openai-compaction":                         true,
		"openai-compaction:compact_threshold=1000":  true,
		"openai-compaction:compact_threshold=0":     false,
		"openai-compaction:keep_user_messages=true": true,
	}, "compact_threshold")
}
