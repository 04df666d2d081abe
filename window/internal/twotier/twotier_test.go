package twotier

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// two-tier against the lines of vercel-labs/ralph-gpu's
// packages/ralph/src/loop.ts (4f47ced) that the conformance golden does
// not reach. The expected texts and counts were printed by that code.

// loopMessages are four messages the way the loop's heuristic reads them.
func loopMessages() []transcript.Message {
	text := func(role transcript.Role, s string) transcript.Message {
		return transcript.Message{Role: role, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: s}}}
	}
	return []transcript.Message{
		text(transcript.RoleUser, `Please readFile "src/app.ts" and run bash`),
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockToolUse, ID: "t1", Name: "Bash",
			Input: json.RawMessage(`{"command":"npm run build && npm test"}`)}}},
		{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockToolResult, ID: "t1", Text: "error in path: 'lib/util.js'"}}},
		text(transcript.RoleAssistant, `I will editFile 'README.md' then think; also "a.b" and "x.yaml"`),
	}
}

// TestTwoTierCountsAsLoop: estimateTokens(JSON.stringify(m)) per message
// (loop.ts 30-32, 62-65), the length in UTF-16 units: 71, 124, 110 and
// 100 characters for loopMessages, 41 for {"role":"user","content":"héllo
// \"x\"\n"} and 35 for an emoji, which is two units.
func TestTwoTierCountsAsLoop(t *testing.T) {
	msgs := append(loopMessages(),
		transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "héllo \"x\"\n"}}},
		transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "😀"}}})
	want := []int{18, 31, 28, 25, 11, 9}
	var got []int
	for i := range msgs {
		got = append(got, loopTokens.CountMessage(&msgs[i]))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-loop.ts +ctxbench):\n%s", diff)
	}
}

// TestTwoTierHeuristicSummary: createHeuristicSummary (loop.ts 245-302)
// on loopMessages, as the code printed it — its command pattern keeps
// what follows the first quote, `:"npm run build && npm test`.
func TestTwoTierHeuristicSummary(t *testing.T) {
	tr := &transcript.Transcript{Messages: loopMessages()}
	want := "## Earlier Conversation Summary (Heuristic)\n\n**Messages summarized:** 4\n" +
		"**Tools used:** readFile, bash, editFile, think\n" +
		"**Files explored:** src/app.ts, lib/util.js, README.md, x.yaml\n" +
		"**Commands run:** :\"npm run build && npm test\n\n---\n*Continue with the task. Recent context follows.*"
	if got := loopHeuristicSummary(policytest.Items(tr, 4)); got != want {
		t.Errorf("heuristic summary:\n%s\nwant:\n%s", got, want)
	}
}

// TestTwoTierTruncates: with nothing older than the last 8 messages and
// over 80,000 tokens, each message over 5,000 characters is cut to its
// first 3,000 plus "\n... [message truncated]" (loop.ts 78-89); 5,000 is
// not over. A message of blocks is cut as its JSON, a string.
func TestTwoTierTruncates(t *testing.T) {
	tr := policytest.TextTranscript(5)
	tr.Messages[1].Blocks[0].Text = strings.Repeat("é", 330_000) // 82,500 tokens
	tr.Messages[2].Blocks[0].Text = strings.Repeat("x", 5000)
	tr.Messages[3] = transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{
		{Type: transcript.BlockText, Text: strings.Repeat("y", 5000)},
		{Type: transcript.BlockToolUse, ID: "t", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}}}
	step, err := mustPolicy(t, "two-tier").Apply(context.Background(), &policy.Env{Transcript: tr, Next: 5}, &policy.State{}, policytest.Items(tr, 5))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m1", "m3"}, step.Truncated); diff != "" {
		t.Fatalf("truncated (-want +got):\n%s", diff)
	}
	if got := step.History[1].Msg.Text(); got != strings.Repeat("é", 3000)+"\n... [message truncated]" {
		t.Errorf("m1 cut to %d characters", len([]rune(got)))
	}
	if got := step.History[3].Msg.Text(); got != `[{"type":"text","text":"`+strings.Repeat("y", 2976)+"\n... [message truncated]" {
		t.Errorf("m3 cut to %.60q…", got)
	}
	if step.Summary != nil || len(step.History) != 5 || step.History[2].Truncated {
		t.Errorf("sent %v, summary %+v", loopIDs(step.History), step.Summary)
	}
}

// TestTwoTierResummarizes: messages is never replaced (loop.ts 389, 459,
// 464, 583), so once over the threshold every call summarizes every
// message older than the last 8 anew — never the summary it sent before.
// The seed's reading replaces them in the history instead.
func TestTwoTierResummarizes(t *testing.T) {
	tr := policytest.TextTranscript(60)
	tr.Messages[2].Blocks[0].Text = strings.Repeat("word ", 70_000) // 87,500 tokens
	for _, tc := range []struct {
		spec      string
		summaries int
	}{{"two-tier", 26}, {"two-tier:reading=seed,min_summarizable=8", 1}} {
		n := 0
		for k, c := range policytest.Run(t, mustPolicy(t, tc.spec), tr, &summarize.Mock{}) {
			ev := c.Step.Summary
			if ev == nil {
				continue
			}
			n++
			if tc.spec == "two-tier" {
				end := policytest.CallMessage(tr, k) - 8
				if want := policytest.MessageIDs(0, end); !cmp.Equal(want, []string(ev.Covers)) {
					t.Errorf("%s call %d: the summary covers %v, want every message before the last 8 (%d)", tc.spec, k, ev.Covers, end)
				}
			}
		}
		if n != tc.summaries {
			t.Errorf("%s: %d summaries, want %d", tc.spec, n, tc.summaries)
		}
	}
}
