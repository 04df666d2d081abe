package transcript

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOpencode holds the opencode reader to what opencode sends and
// records (MessageV2.toModelMessages, SessionProcessor, getUsage) on the
// spec-built export and API files.
func TestOpencode(t *testing.T) {
	ts, err := ReadFile(filepath.Join("testdata", "opencode", "export.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	if tr.ID != "ses_4f1c2a7e9ffeQz3kLm8NpR2tVx" || tr.AgentVersion != "1.18.33" || tr.Calls != 6 || tr.Parent != "" {
		t.Errorf("id %s version %s calls %d parent %q", tr.ID, tr.AgentVersion, tr.Calls, tr.Parent)
	}
	m := tr.Messages
	// The first assistant message has two steps: two calls, each with its
	// step-finish tokens and followed by its tool results.
	if m[1].Role != RoleAssistant || m[3].Role != RoleAssistant || m[1].CallID != m[3].CallID {
		t.Fatalf("steps: %s %s", m[1].Role, m[3].Role)
	}
	if m[1].Usage.CacheWrite != 6120 || m[3].Usage.CacheRead != 6120 || m[3].Usage.Input != 310 {
		t.Errorf("step usage %+v, %+v", *m[1].Usage, *m[3].Usage)
	}
	if got := m[3].Time.UnixMilli() - m[1].Time.UnixMilli(); got != 4000 {
		t.Errorf("second step %d ms after the first, want 4000 (the first at the message, the second at its tool call)", got)
	}
	if r := m[4].Blocks[1]; !r.IsError || !strings.HasPrefix(r.Text, "Error: npm ERR!") {
		t.Errorf("failed tool call: %+v", r)
	}
	// Gemini counts reasoning apart: it is added to output.
	if u := m[7].Usage; m[7].Model != "gemini-2.5-pro" || u.Output != 470 || u.Reasoning != 410 {
		t.Errorf("gemini step %s %+v", m[7].Model, *u)
	}
	if r := m[8].Blocks[0]; r.Text != opencodeInterrupted || !r.IsError {
		t.Errorf("running tool call: %+v", r)
	}
	// The user's text/plain file part is sent as the synthetic text parts
	// before it; the agent part is not sent.
	if len(m[0].Blocks) != 3 || tr.Skipped["opencode part file (sent as its text parts)"] != 1 || tr.Skipped["opencode part agent"] != 1 {
		t.Errorf("first user message %d blocks, skipped %v", len(m[0].Blocks), tr.Skipped)
	}
	if len(tr.Clearings) != 1 || tr.Clearings[0].Index != 6 || !slices.Equal(tr.Clearings[0].ToolIDs, []string{"toolu_01A"}) {
		t.Errorf("clearings %+v, want toolu_01A's output cleared before message 6", tr.Clearings)
	}
	if m[9].Text() != opencodeCompactionRequest {
		t.Errorf("compaction request %q", m[9].Text())
	}
	if len(tr.Compactions) != 1 {
		t.Fatalf("%d compactions", len(tr.Compactions))
	}
	c := tr.Compactions[0]
	if c.Index != 11 || c.Trigger != "auto" || !slices.Equal(c.Kept, []int{6, 7, 8}) ||
		c.Summary == nil || c.Summary.Role != RoleAssistant || !strings.HasPrefix(c.Summary.Text(), "## Goal") {
		t.Errorf("compaction %+v", c)
	}
	if tr.ReportedCostUSD < 0.08122 || tr.ReportedCostUSD > 0.08123 {
		t.Errorf("reported cost %v, want the messages' 0.081221", tr.ReportedCostUSD)
	}

	ts, err = ReadFile(filepath.Join("testdata", "opencode", "api-messages.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr = ts[0]
	// The older shape records the system prompt on assistant messages: it
	// comes first. OpenAI's output includes its reasoning.
	if tr.ID != "ses_5a0b1c2d3ffeChildAgentAAAAA" || tr.Messages[0].Role != RoleSystem || tr.Messages[1].Role != RoleSystem {
		t.Errorf("id %s, first roles %s %s", tr.ID, tr.Messages[0].Role, tr.Messages[1].Role)
	}
	if u := tr.Messages[3].Usage; u.Output != 300 || u.Reasoning != 256 {
		t.Errorf("openai step %+v, want output 300 holding reasoning 256", *u)
	}
}

// TestOpencodeUsage: the AI SDK providers that count reasoning apart
// from output, and a step whose reasoning exceeds its output.
func TestOpencodeUsage(t *testing.T) {
	for _, c := range []struct {
		provider, model       string
		output, reasoning, to int64
	}{
		{"openai", "gpt-5", 900, 600, 900},
		{"openrouter", "openai/gpt-5", 900, 600, 900},
		{"google", "gemini-2.5-pro", 900, 600, 1500},
		{"openrouter", "google/gemini-2.5-pro", 900, 600, 1500},
		{"opencode", "grok-code", 12, 266, 278},
		{"xai", "grok-4", 900, 600, 1500},
		{"anthropic", "claude-sonnet-4-5", 900, 0, 900},
		{"github-copilot", "gpt-5", 100, 300, 400},
	} {
		k := opencodeTokens{Output: c.output, Reasoning: c.reasoning}
		if u := k.usage(c.provider, c.model); u.Output != c.to || u.Reasoning != c.reasoning {
			t.Errorf("%s/%s output %d reasoning %d: %+v, want output %d", c.provider, c.model, c.output, c.reasoning, u, c.to)
		}
	}
}
