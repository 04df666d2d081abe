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
	text := func(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }
	toolUse := func(id string) transcript.Block {
		return transcript.Block{Type: transcript.BlockToolUse, ID: id, Name: "Bash", Input: []byte(`{"command":"ls"}`)}
	}
	toolResult := func(id, s string) transcript.Block {
		return transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: s}
	}
	tr := &transcript.Transcript{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Blocks: []transcript.Block{text("task")}},         // 0
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{text("plan")}},    // 1: safe
		{Role: transcript.RoleUser, Blocks: []transcript.Block{text("go on")}},        // 2
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{toolUse("a")}},    // 3: pending
		{Role: transcript.RoleUser, Blocks: []transcript.Block{toolResult("a", "x")}}, // 4
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{toolUse("b")}},    // 5: pending
		{Role: transcript.RoleUser, Blocks: []transcript.Block{toolResult("b", "y")}}, // 6
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{text("done")}},    // 7
		{Role: transcript.RoleUser, Blocks: []transcript.Block{text("next")}},         // 8
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{text("ok")}},      // 9
	}}
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
