package gemini

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// counter answers a summary request as window's tests' recorder does.
type counter struct{}

func (counter) Name() string { return "recorder" }
func (counter) Summarize(_ context.Context, req summarize.Request) (summarize.Result, error) {
	return summarize.Result{Text: fmt.Sprintf("summary 1 of %d messages", len(req.Messages)), Model: "rec"}, nil
}

func msgs(ms ...transcript.Message) *transcript.Transcript {
	return &transcript.Transcript{Messages: ms}
}

func text(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }

func user(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{text(s)}}
}

func asst(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{text(s)}}
}

func callTool(id string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockToolUse, ID: id, Name: "Bash", Input: []byte(`{"command":"ls"}`)}}}
}

func result(id, s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockToolResult, ID: id, Text: s}}}
}

// TestGeminiSplitPoint follows findCompressSplitPoint
// (chatCompressionService.ts): the first user content that is not a
// function response at or after the target share of characters; all of
// it when the last content is a model message without a function call;
// else the last such user content.
func TestGeminiSplitPoint(t *testing.T) {
	long := strings.Repeat("x", 1000)
	tr := msgs(user(long), asst(long), callTool("a"), result("a", long), asst("ok"), user("next"), asst("done"))
	// Contents: user, model (two messages coalesced), function response,
	// model, user "next", model. 70% of the characters lies inside the
	// function response; the next plain user content is content 4.
	if got := geminiSplitPoint(gemContents(policytest.Items(tr, 7), nil), 0.7); got != 4 {
		t.Errorf("split %d, want 4", got)
	}
	// No user content after the target, last is a model text: compress all.
	tr2 := msgs(user("a"), asst(long), callTool("b"), result("b", long), asst(long))
	if got := geminiSplitPoint(gemContents(policytest.Items(tr2, 5), nil), 0.7); got != 4 {
		t.Errorf("split %d, want 4 (everything)", got)
	}
	// Same, but the last content calls a function: the last split point (0).
	tr3 := msgs(user("a"), asst(long), callTool("c"))
	if got := geminiSplitPoint(gemContents(policytest.Items(tr3, 3), nil), 0.7); got != 0 {
		t.Errorf("split %d, want 0", got)
	}
	// Placement: [user summary, model ack, kept…, turn].
	tr4 := msgs(user(long), asst(long), user(long), asst(long), user("latest"))
	p := policytest.New(t, Specs[0], map[string]string{"token_limit": "100"})
	// The last prompt (1,000 tokens) is over 50% of the limit.
	step, err := p.Apply(context.Background(), &policy.Env{Transcript: tr4, Summarizer: counter{}, Turn: 1}, &policy.State{Data: &geminiState{lastPrompt: 1000}}, policytest.Items(tr4, 5))
	if err != nil {
		t.Fatal(err)
	}
	h := step.History
	if len(h) < 3 || h[0].Msg.Role != transcript.RoleUser || !strings.Contains(h[0].Msg.Text(), "<state_snapshot>") ||
		h[1].Msg.Text() != "Got it. Thanks for the additional context!" || h[len(h)-1].ID != "m4" {
		t.Errorf("gemini-cli placement: %v", policy.ItemIDs(h))
	}
}
