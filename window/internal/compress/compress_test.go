package compress

import (
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestCompressSafeSplit: findSplitPoint "walks backwards to find safe split
// (not in middle of tool call chain)": a target inside a chain moves back
// to after the last assistant message without tool calls.
func TestCompressSafeSplit(t *testing.T) {
	tr := policytest.Msgs(
		policytest.User("task"),     // 0
		policytest.Asst("plan"),     // 1: safe
		policytest.User("go on"),    // 2
		policytest.CallTool("a"),    // 3: pending
		policytest.Result("a", "x"), // 4
		policytest.CallTool("b"),    // 5: pending
		policytest.Result("b", "y"), // 6
		policytest.Asst("done"),     // 7
		policytest.User("next"),     // 8
		policytest.Asst("ok"),       // 9
	)
	// target floor(10 × 0.3) … with preserve_ratio 0.4: floor(10 × 0.6) = 6,
	// inside the chain 3–6; the walk back stops at message 1.
	if got := findSplitPoint(policytest.Items(tr, 10), 0.4); got != 2 {
		t.Errorf("split %d, want 2 (after the assistant message 1)", got)
	}
	// No safe message at all: the seed splits at the target.
	chain := &transcript.Transcript{Messages: tr.Messages[3:7]}
	if got := findSplitPoint(policytest.Items(chain, 4), 0.5); got != 2 {
		t.Errorf("split %d, want the target 2", got)
	}
}
