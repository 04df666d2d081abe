package opencode

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestOpencodePrune: outputs beyond the newest PRUNE_PROTECT tokens are
// cleared, only when that clears more than PRUNE_MINIMUM, and never in the
// last 2 user turns.
func TestOpencodePrune(t *testing.T) {
	big := strings.Repeat("y", 40_000) // 10,000 tokens at length/4
	var ms []transcript.Message
	ms = append(ms, policytest.User("start"))
	for i := range 8 {
		id := string(rune('a' + i))
		ms = append(ms, policytest.CallTool(id), policytest.Result(id, big))
	}
	ms = append(ms, policytest.User("turn 2"), policytest.CallTool("z"), policytest.Result("z", big), policytest.User("turn 3"))
	tr := policytest.Msgs(ms...)
	p := &opencodePolicy{protect: 20_000, minimum: 20_000, protectTurns: 2}
	out, truncated := p.pruneOutputs(&policy.Env{Transcript: tr}, policytest.Items(tr, len(ms)))
	// Outputs older than the last 2 user turns: 8 × 10,000 tokens; the
	// newest 2 are protected (20,000), 6 cleared (60,000 > 20,000).
	if len(truncated) != 6 {
		t.Fatalf("cleared %v", truncated)
	}
	for _, id := range truncated {
		i := policy.Item{ID: id}.Index()
		if out[i].Msg.Blocks[0].Text != "[Old tool result content cleared]" || i > 12 {
			t.Errorf("%s: %q", id, out[i].Msg.Blocks[0].Text[:20])
		}
	}
	if tr.Messages[2].Blocks[0].Text != big {
		t.Error("the transcript was modified")
	}
	// Clearing less than PRUNE_MINIMUM: nothing.
	p.minimum = 70_000
	if _, truncated := p.pruneOutputs(&policy.Env{Transcript: tr}, policytest.Items(tr, len(ms))); len(truncated) != 0 {
		t.Errorf("cleared %d outputs below the minimum", len(truncated))
	}
}
