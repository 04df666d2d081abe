package window

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestOpenAITrimParams: ToolOutputTrimmer.__post_init__ refuses
// recent_turns < 1, max_output_chars < 1 and preview_chars < 0.
func TestOpenAITrimParams(t *testing.T) {
	checkParses(t, map[string]bool{
		"openai-trim": true,
		"openai-trim:recent_turns=1,preview_chars=0": true,
		"openai-trim:tools=Bash|Read":                true,
		"openai-trim:recent_turns=0":                 false,
	}, "recent_turns")
	checkParses(t, map[string]bool{"openai-trim:max_output_chars=0": false}, "max_output_chars")
	checkParses(t, map[string]bool{"openai-trim:preview_chars=-1": false}, "preview_chars")
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
		var st State
		hist := make([]Item, len(tr.Messages))
		for i := range tr.Messages {
			hist[i] = Original(tr, i)
		}
		step, err := p.Apply(context.Background(), &Env{Transcript: tr, Next: len(tr.Messages)}, &st, hist)
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
