package transcript

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCopilot holds the Copilot CLI event log reader to the events
// @github/copilot-sdk's session-events.ts describes.
func TestCopilot(t *testing.T) {
	ts, err := ReadFile(filepath.Join("testdata", "copilot", "session-state", "6f1d2c3b-8a9e-4f70-b1c2-d3e4f5a6b7c8", "events.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 {
		t.Fatalf("%d transcripts, want the session and its sub-agent", len(ts))
	}
	main, sub := ts[0], ts[1]
	if main.ID != "6f1d2c3b-8a9e-4f70-b1c2-d3e4f5a6b7c8" || main.AgentVersion != "1.0.54" || main.Calls != 5 {
		t.Errorf("session %s version %s calls %d", main.ID, main.AgentVersion, main.Calls)
	}
	if sub.Parent != main.ID || sub.Subagent != "a-explore-1" || sub.Calls != 2 || sub.Messages[0].Text() != "Find every caller of parse()." {
		t.Errorf("sub-agent %s parent %s subagent %s calls %d", sub.ID, sub.Parent, sub.Subagent, sub.Calls)
	}
	m := main.Messages
	// What was sent: transformedContent.
	if !strings.HasPrefix(m[0].Text(), "<current_datetime>") {
		t.Errorf("user message %q", m[0].Text())
	}
	// The reasoning event before the message is its thinking; its two
	// tool requests are tool uses, their results one tool message.
	if c := m[1]; c.Blocks[0].Type != BlockThinking || c.Count(BlockToolUse) != 2 || c.Model != "claude-sonnet-4.5" {
		t.Errorf("first call %+v", c)
	}
	if r := m[2]; r.Role != RoleTool || len(r.Blocks) != 2 || !r.Blocks[1].IsError || !strings.HasPrefix(r.Blocks[1].Text, "FAILED") {
		t.Errorf("tool results %+v", r)
	}
	if len(main.Compactions) != 1 || main.Compactions[0].Index != 6 || main.Compactions[0].Trigger != "manual" ||
		main.Compactions[0].PreTokens != 13950 || !strings.HasPrefix(main.Compactions[0].Summary.Text(), "<overview>") {
		t.Errorf("compactions %+v", main.Compactions)
	}
	copilotUsage(t, main)
}

// copilotUsage: usage is the shutdowns' modelMetrics, both process runs
// summed, cache reads and writes out of inputTokens; the ephemeral
// assistant.usage is not read.
func copilotUsage(t *testing.T, main *Transcript) {
	t.Helper()
	want := map[string]Usage{
		"claude-sonnet-4.5": {Input: 47300 - 27400 - 9800, CacheRead: 27400, CacheWrite: 9800, Output: 760},
		"claude-haiku-4.5":  {Input: 4020, Output: 80},
		"gpt-5-mini":        {Input: 8840 - 4096, CacheRead: 4096, Output: 420, Reasoning: 256},
	}
	if len(main.UnattributedByModel) != len(want) {
		t.Fatalf("usage by model %+v", main.UnattributedByModel)
	}
	for _, mu := range main.UnattributedByModel {
		if mu.Usage != want[mu.Model] {
			t.Errorf("%s: %+v, want %+v", mu.Model, mu.Usage, want[mu.Model])
		}
	}
	if main.Skipped["assistant.usage (ephemeral)"] != 1 || main.Skipped["session.shutdown"] != 2 {
		t.Errorf("skipped %v", main.Skipped)
	}
}
