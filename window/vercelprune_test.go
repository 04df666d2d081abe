package window

import (
	"errors"
	"strings"
	"testing"
)

// TestVercelPruneParams: tool_calls takes pruneMessages' strategies
// (prune-messages.ts: 'all' | 'before-last-message' |
// `before-last-${number}-messages` | 'none'), and nothing else.
func TestVercelPruneParams(t *testing.T) {
	for spec, ok := range map[string]bool{
		"vercel-prune":                                    true,
		"vercel-prune:tool_calls=none":                    true,
		"vercel-prune:tool_calls=all,tools=Bash|Read":     true,
		"vercel-prune:tool_calls=before-last-0-messages":  true,
		"vercel-prune:tool_calls=before-last-12-messages": true,
		"vercel-prune:tool_calls=before-last-x-messages":  false,
		"vercel-prune:tool_calls=last-2":                  false,
		"vercel-prune:reasoning=some":                     false,
		"vercel-prune:empty_messages=drop":                false,
	} {
		_, err := Parse(spec)
		var pe *ParamError
		if (err == nil) != ok || (err != nil && !errors.As(err, &pe)) {
			t.Errorf("%s: error %v, want accepted: %t (refused as a ParamError)", spec, err, ok)
		}
		if err != nil && strings.Contains(spec, "tool_calls") && !strings.Contains(err.Error(), "before-last-N-messages") {
			t.Errorf("%s: %v does not name the valid values", spec, err)
		}
	}
}
