package window

import "testing"

// TestAnthropicCompactionParams: the trigger is the API's, 50,000 at
// least.
func TestAnthropicCompactionParams(t *testing.T) {
	checkParses(t, map[string]bool{
		"anthropic-compaction":               true,
		"anthropic-compaction:trigger=50000": true,
		"anthropic-compaction:trigger=49999": false,
	}, "trigger")
}
