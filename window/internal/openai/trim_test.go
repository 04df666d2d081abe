package openai

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestOpenAITrimConformance: at every call of every history, under every
// setting, openai-trim sends what the OpenAI Agents SDK's
// ToolOutputTrimmer returns of the whole history: the same tool outputs
// trimmed, to the same text (the golden holds each call's entries by
// their SHA-256).
func TestOpenAITrimConformance(t *testing.T) {
	var g struct {
		Version  string `json:"openai_agents"`
		Commit   string `json:"commit"`
		Settings []struct {
			RecentTurns    int      `json:"recent_turns"`
			MaxOutputChars int      `json:"max_output_chars"`
			PreviewChars   int      `json:"preview_chars"`
			TrimmableTools []string `json:"trimmable_tools"`
		} `json:"settings"`
		Results [][]policytest.HashedRun `json:"results"`
	}
	policytest.ReadGolden(t, "openaitrim.json", &g)
	if g.Version != openAITrimVersion || g.Commit != openAITrimCommit {
		t.Errorf("the golden is of openai-agents %s (%s); the policy says it follows %s (%s)", g.Version, g.Commit, openAITrimVersion, openAITrimCommit)
	}
	trimmed := 0
	for k, s := range g.Settings {
		spec := fmt.Sprintf("openai-trim:recent_turns=%d,max_output_chars=%d,preview_chars=%d", s.RecentTurns, s.MaxOutputChars, s.PreviewChars)
		if s.TrimmableTools != nil {
			spec += ",tools=" + strings.Join(s.TrimmableTools, "|")
		}
		trimmed += policytest.CheckHashed(t, mustPolicy(t, spec), spec, "ToolOutputTrimmer", g.Results[k], trimEntries)
	}
	if trimmed == 0 {
		t.Errorf("no call trimmed a tool output: the golden holds nothing to compare")
	}
}

// trimEntries writes what sent holds of each transcript message as the
// openaitrim golden does: "m<i>" as it was, "m<i>~<k>=<h>…" with the
// SHA-256 of each block whose text was trimmed, in runs.
func trimEntries(tr *transcript.Transcript, sent []policy.Item) []string {
	var out []string
	for _, it := range sent {
		if !it.Truncated {
			out = append(out, it.ID)
			continue
		}
		orig := tr.Messages[it.Index()].Blocks
		var cut []string
		for k, b := range it.Msg.Blocks {
			if b.Text != orig[k].Text {
				cut = append(cut, fmt.Sprintf("%d=%s", k, policytest.SHA256Hex(b.Text)[:8]))
			}
		}
		out = append(out, it.ID+"~"+strings.Join(cut, "."))
	}
	return policytest.EncodeRuns(out)
}

// TestOpenAITrimRules holds the lines of tool_output_trimmer.py (0.22.0)
// the conformance golden exercises least: the summary counts code
// points, not bytes; an output whose summary would not be shorter is
// kept; a result whose call names no tool is "unknown_tool", and is
// kept when tools are listed; the boundary's own tool results (before
// its user item) are old.
func TestOpenAITrimRules(t *testing.T) {
	long := strings.Repeat("é", 200) // 200 code points, 400 bytes
	short := strings.Repeat("x", 12)
	tr := &transcript.Transcript{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "go"}}},
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockToolUse, ID: "a", Name: "Bash"}, {Type: transcript.BlockToolUse, ID: "b", Name: "Read"}}},
		{Role: transcript.RoleUser, Blocks: []transcript.Block{
			{Type: transcript.BlockToolResult, ID: "a", Text: long},
			{Type: transcript.BlockToolResult, ID: "b", Text: short},
			{Type: transcript.BlockToolResult, ID: "zz", Text: long},
			{Type: transcript.BlockText, Text: "and now?"},
		}},
	}}
	trimmed := func(name string) string {
		return "[Trimmed: " + name + " output — 200 chars → 2 char preview]\néé..."
	}
	for _, c := range []struct {
		spec string
		want []string // the three results' texts as sent
	}{
		// recent_turns=1: the boundary is message 2's user item; its
		// tool results come before it. Read's 12 characters would take
		// a longer summary.
		{"openai-trim:recent_turns=1,max_output_chars=10,preview_chars=2", []string{trimmed("Bash"), short, trimmed("unknown_tool")}},
		{"openai-trim:recent_turns=1,max_output_chars=10,preview_chars=2,tools=Bash", []string{trimmed("Bash"), short, long}},
		// A summary of 217 code points is not shorter than 200 (in bytes,
		// 381 against 400, it is).
		{"openai-trim:recent_turns=1,max_output_chars=10,preview_chars=160", []string{long, short, long}},
		// Two user items: the boundary is the first, and nothing is old.
		{"openai-trim:recent_turns=2,max_output_chars=10,preview_chars=2", []string{long, short, long}},
	} {
		p := mustPolicy(t, c.spec)
		var st policy.State
		hist := make([]policy.Item, len(tr.Messages))
		for i := range tr.Messages {
			hist[i] = policy.Original(tr, i)
		}
		step, err := p.Apply(context.Background(), &policy.Env{Transcript: tr, Next: len(tr.Messages)}, &st, hist)
		if err != nil {
			t.Fatal(err)
		}
		for k, b := range step.History[2].Msg.Blocks[:3] {
			if b.Text != c.want[k] {
				t.Errorf("%s: result %d sent %.80q, want %.80q", c.spec, k, b.Text, c.want[k])
			}
		}
		if tr.Messages[2].Blocks[0].Text != long {
			t.Fatalf("%s changed the transcript", c.spec)
		}
	}
}
