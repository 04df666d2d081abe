package window

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/crossturn"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestCrossTurnPlacement: "Injected as a synthetic user message: [Earlier
// conversation summary: ...], followed by a synthetic assistant ack:
// Understood, I have context from our earlier conversation. Then the
// recent history messages follow."
func TestCrossTurnPlacement(t *testing.T) {
	tr := policytest.TextTranscript(30)
	rec := &policytest.Recorder{}
	calls := policytest.Run(t, mustPolicy(t, "cross-turn"), tr, rec)
	last := calls[len(calls)-1]
	h := last.Step.History
	// 28 earlier text messages: summary + ack + the last 6, then the turn.
	if len(h) != 2+6+1 {
		t.Fatalf("sent %v", ids(h))
	}
	if h[0].Msg.Role != transcript.RoleUser || !strings.HasPrefix(h[0].Msg.Text(), "[Earlier conversation summary: summary 1 of") ||
		!strings.HasSuffix(h[0].Msg.Text(), "]") || h[1].Msg.Role != transcript.RoleAssistant || h[1].Msg.Text() != "Understood, I have context from our earlier conversation." {
		t.Errorf("summary placement: %q / %q", h[0].Msg.Text(), h[1].Msg.Text())
	}
	if diff := cmp.Diff(names(seq(22, 29)), ids(h[2:])); diff != "" {
		t.Errorf("recent history (-want +got):\n%s", diff)
	}
	// Once only (resummarize_threshold 0, the seed's current behaviour).
	if len(rec.Reqs) != 1 || rec.Reqs[0].Template != summarize.CrossTurn {
		t.Errorf("%d summaries, want 1 with the cross-turn template", len(rec.Reqs))
	}
	// The first summary covers "messages [0..N-6]": at the call where the
	// 11th text message exists.
	if got := len(rec.Reqs[0].Messages); got != 12-6 {
		t.Errorf("the first summary covers %d messages, want 6 (12 earlier text messages minus the last 6)", got)
	}
}

// TestCrossTurnTextOnly: "Only role and text are sent — no tool calls, file
// contents, or structured data. System messages and empty messages are
// excluded." The current turn is sent whole.
func TestCrossTurnTextOnly(t *testing.T) {
	tr := policytest.ReadCorpus(t, "spotter/tool_heavy.jsonl")
	for _, c := range policytest.Run(t, mustPolicy(t, "cross-turn"), tr, &summarize.Mock{}) {
		turn := crossturn.CurrentTurnStart(tr.Messages[:indexOf(c.Sent[len(c.Sent)-1])+1])
		for _, id := range c.Sent {
			i := indexOf(id)
			if i < 0 || i >= turn {
				continue
			}
			for _, b := range c.Step.History[position(c.Sent, id)].Msg.Blocks {
				if b.Type != transcript.BlockText {
					t.Errorf("%s of an earlier turn sent with a %s block", id, b.Type)
				}
			}
		}
	}
}

func indexOf(id string) int { return Item{ID: id}.Index() }

func position(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// TestCompressApply: over its threshold compress sends a system summary
// first, then the messages from the safe split on; under it, the history.
func TestCompressApply(t *testing.T) {
	tr := &transcript.Transcript{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.Text("task")}},         // 0
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{policytest.Text("plan")}},    // 1: safe
		{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.Text("go on")}},        // 2
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{policytest.ToolUse("a")}},    // 3: pending
		{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.ToolResult("a", "x")}}, // 4
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{policytest.ToolUse("b")}},    // 5: pending
		{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.ToolResult("b", "y")}}, // 6
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{policytest.Text("done")}},    // 7
		{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.Text("next")}},         // 8
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{policytest.Text("ok")}},      // 9
	}}
	// Over the threshold, a system summary first (compress's own test
	// holds the split point).
	p := mustPolicy(t, "compress:max_tokens=10,threshold=0.5,preserve_ratio=0.4,estimator=chars4")
	step, err := p.Apply(context.Background(), &Env{Transcript: tr, Summarizer: &policytest.Recorder{}}, &State{}, policytest.Items(tr, 10))
	if err != nil {
		t.Fatal(err)
	}
	if h := step.History; h[0].Msg.Role != transcript.RoleSystem || !strings.HasPrefix(h[0].Msg.Text(), "Previous context summary:\n") ||
		cmp.Diff(append([]string{"s1"}, names(seq(2, 10))...), ids(h)) != "" {
		t.Errorf("compressed history %v, first %q", ids(h), h[0].Msg.Text())
	}
	// Under the threshold nothing happens.
	p = mustPolicy(t, "compress:max_tokens=100000")
	step, _ = p.Apply(context.Background(), &Env{Transcript: tr}, &State{}, policytest.Items(tr, 10))
	if len(step.History) != 10 || step.Summary != nil {
		t.Errorf("compressed under the threshold")
	}
}

// TestPruneRules checks the rules of layer 1 of the AI Context Management
// document one by one.
func TestPruneRules(t *testing.T) {
	long := strings.Repeat("x", 2001)
	tr := &transcript.Transcript{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.Text(long)}}, // first: kept whole
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{
			{Type: transcript.BlockToolUse, ID: "w", Name: "write_files", Input: []byte(`{"files":[{"path":"a.go","content":"short"},{"path":"b.go","content":"also"}]}`)},
			{Type: transcript.BlockToolUse, ID: "v", Name: "write_file", Input: []byte(`{"path":"c.go","content":"` + long + `"}`)},
			{Type: transcript.BlockToolUse, ID: "u", Name: "write_file", Input: []byte(`{"path":"d.go","content":"small"}`)},
			{Type: transcript.BlockToolUse, ID: "r", Name: "read_file", Input: []byte(`{"path":"` + long + `"}`)},
		}},
		{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.ToolResult("w", long), policytest.ToolResult("v", "ok")}},
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{policytest.Text(long), policytest.Text("short")}},
	}}
	for range 6 { // the last 6: kept whole
		tr.Messages = append(tr.Messages, transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.Text(long)}})
	}
	step, _ := mustPolicy(t, "prune").Apply(context.Background(), &Env{Transcript: tr}, &State{}, policytest.Items(tr, len(tr.Messages)))
	h := step.History
	if h[0].Msg.Text() != long || h[len(h)-1].Msg.Text() != long {
		t.Error("the first or last messages were changed")
	}
	in := func(i int) string { return string(h[1].Msg.Blocks[i].Input) }
	if in(0) != `{"files":[{"content":"[truncated]","path":"a.go"},{"content":"[truncated]","path":"b.go"}]}` {
		t.Errorf("write_files: %s", in(0))
	}
	if in(1) != `{"content":"[truncated]","path":"c.go"}` || in(2) != `{"path":"d.go","content":"small"}` {
		t.Errorf("write_file: %s / %s", in(1), in(2))
	}
	if !strings.Contains(in(3), long) {
		t.Error("read_file input was changed")
	}
	if got := h[2].Msg.Blocks[0].Text; got != long[:200] {
		t.Errorf("tool result cut to %d characters, want 200", len(got))
	}
	if h[3].Msg.Blocks[0].Text != long[:200] || h[3].Msg.Blocks[1].Text != "short" {
		t.Errorf("text blocks: %d, %q", len(h[3].Msg.Blocks[0].Text), h[3].Msg.Blocks[1].Text)
	}
	if diff := cmp.Diff([]string{"m1", "m2", "m3"}, step.Truncated); diff != "" {
		t.Errorf("truncated (-want +got):\n%s", diff)
	}
	if tr.Messages[1].Blocks[1].Input[0] != '{' || !strings.Contains(string(tr.Messages[1].Blocks[1].Input), long) {
		t.Error("the transcript's own message was modified")
	}
}

func TestTwoTier(t *testing.T) {
	tr := policytest.TextTranscript(40)
	big := strings.Repeat("word ", 100_000) // 500,000 characters: 125,000 chars4 tokens
	tr.Messages[2].Blocks[0].Text = big
	rec := &policytest.Recorder{}
	// ralph-gpu's Decision 005 as ctxbench read it (the code: twotier_test.go and the
	// conformance golden).
	p := mustPolicy(t, "two-tier:reading=seed")
	env := &Env{Transcript: tr, Summarizer: rec}
	st := &State{}
	step, err := p.Apply(context.Background(), env, st, policytest.Items(tr, 40))
	if err != nil {
		t.Fatal(err)
	}
	// Tier 2: an AI summary of all but the last 8, with the six-section prompt.
	if len(rec.Reqs) != 1 || rec.Reqs[0].Template != summarize.TwoTier || len(rec.Reqs[0].Messages) != 32 {
		t.Fatalf("AI summary requests: %d", len(rec.Reqs))
	}
	if diff := cmp.Diff(append([]string{"s1"}, names(seq(32, 40))...), ids(step.History)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	// The same span again is served from the policy's cache.
	step2, _ := p.Apply(context.Background(), env, st, policytest.Items(tr, 40))
	if len(rec.Reqs) != 1 || !step2.Summary.Cached {
		t.Errorf("the unchanged span was summarized again")
	}
	// Tier 1 (between 80k and 120k): the heuristic summary, no model call.
	tr.Messages[2].Blocks[0].Text = strings.Repeat("word ", 70_000) // 87,500 tokens
	step3, _ := p.Apply(context.Background(), &Env{Transcript: tr, Summarizer: rec}, &State{}, policytest.Items(tr, 40))
	if len(rec.Reqs) != 1 || step3.Summary == nil || step3.Summary.Model != "heuristic" {
		t.Errorf("tier 1: %d model calls, summary %+v", len(rec.Reqs), step3.Summary)
	}
	// "There are >8 messages to summarize" (the seed; the code summarizes
	// one): 16 messages leave 8, no summary.
	step4, _ := mustPolicy(t, "two-tier:reading=seed,min_summarizable=8").Apply(context.Background(), &Env{Transcript: tr, Summarizer: rec}, &State{}, policytest.Items(tr, 16))
	if step4.Summary != nil || len(step4.History) != 16 {
		t.Errorf("summarized only 8 messages")
	}
}

func TestRecorded(t *testing.T) {
	tr := policytest.ReadCorpus(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	c := tr.Compactions[0]
	calls := policytest.Run(t, mustPolicy(t, "recorded"), tr, nil)
	found := false
	for _, call := range calls {
		if call.Step.Summary == nil {
			continue
		}
		found = true
		h := call.Step.History
		if h[0].ID != "s1" || h[0].Msg != c.Summary {
			t.Errorf("the compaction summary is not first: %v", ids(h[:3]))
		}
		for _, it := range h[1:] {
			if it.Index() < c.Index {
				t.Errorf("%s, from before the compaction at m%d, still sent", it.ID, c.Index)
			}
		}
		if len(call.Step.Evicted) != c.Index {
			t.Errorf("%d evicted, want the %d messages before the compaction", len(call.Step.Evicted), c.Index)
		}
	}
	if !found {
		t.Fatal("the recorded compaction was never applied")
	}
	// none sends everything, always.
	for k, call := range policytest.Run(t, mustPolicy(t, "none"), tr, nil) {
		if len(call.Step.Evicted)+len(call.Step.Truncated) > 0 {
			t.Fatalf("none changed call %d", k)
		}
	}
}

func TestPolicyValuesServeConcurrentReplays(t *testing.T) {
	tr := policytest.Generated(t, 60, 5)
	for _, spec := range []string{"aidf:max_messages=20,summarize_on_trim=true", "cross-turn:resummarize_threshold=10", "compress:max_tokens=6000",
		"gemini-cli:token_limit=8000", "codex:context_window=8000", "opencode:context_limit=60000,max_output=4000,prune=true,prune_protect=2000,prune_minimum=1000",
		"langchain-trim:max_tokens=3000", "two-tier:basic_threshold=3000,ai_threshold=6000", "prune"} {
		p := mustPolicy(t, spec)
		calls := policytest.Run(t, p, tr, &summarize.Mock{})
		acted := 0
		for _, c := range calls {
			acted += len(c.Step.Evicted) + len(c.Step.Truncated)
		}
		if acted == 0 {
			t.Errorf("%s never acted on a 60-call session: the settings test nothing", spec)
		}
		want := render(calls)
		done := make(chan string, 4)
		for range 4 {
			go func() { done <- render(policytest.Run(t, p, tr, &summarize.Mock{})) }()
		}
		for range 4 {
			if got := <-done; got != want {
				t.Errorf("%s: concurrent replays differ", spec)
			}
		}
	}
}

// render prints a replay by value: what was sent (synthetic items with
// their text), evicted and truncated at each call.
func render(calls []policytest.Call) string {
	var b strings.Builder
	for _, c := range calls {
		for _, it := range c.Step.History {
			b.WriteString(it.ID)
			if it.Synthetic() || it.Truncated {
				b.WriteString("=" + it.Msg.Text())
			}
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "| %v %v\n", c.Step.Evicted, c.Step.Truncated)
	}
	return b.String()
}

// TestRecordedKept: after an opencode compaction the recorded policy sends
// the summary, then the tail the compaction kept, then what followed.
func TestRecordedKept(t *testing.T) {
	ts, err := transcript.ReadFile("../transcript/testdata/opencode/export.json", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	c := tr.Compactions[0]
	calls := policytest.Run(t, mustPolicy(t, "recorded"), tr, nil)
	h := calls[len(calls)-1].Step.History
	var got []int
	for _, it := range h[1:] {
		got = append(got, it.Index())
	}
	if h[0].Msg != c.Summary || !slices.Equal(got, []int{6, 7, 8, 11}) {
		t.Errorf("last call sends summary %v then %v, want the summary then 6 7 8 11", h[0].Msg == c.Summary, got)
	}
}
