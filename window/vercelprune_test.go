package window

import "testing"

// TestVercelPruneParams: tool_calls takes pruneMessages' strategies
// (prune-messages.ts: 'all' | 'before-last-message' |
// `before-last-${number}-messages` | 'none'), and nothing else.
func TestVercelPruneParams(t *testing.T) {
	checkParses(t, map[string]bool{
		"vercel-prune":                                    true,
		"vercel-prune:tool_calls=none":                    true,
		"vercel-prune:tool_calls=all,tools=Bash|Read":     true,
		"vercel-prune:tool_calls=before-last-0-messages":  true,
		"vercel-prune:tool_calls=before-last-12-messages": true,
		"vercel-prune:tool_calls=before-last-x-messages":  false,
		"vercel-prune:tool_calls=last-2":                  false,
	}, "before-last-N-messages")
	checkParses(t, map[string]bool{"vercel-prune:reasoning=some": false}, "reasoning")
	checkParses(t, map[string]bool{"vercel-prune:empty_messages=drop": false}, "empty_messages")
}
