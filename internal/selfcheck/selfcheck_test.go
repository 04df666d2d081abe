package selfcheck

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// compactedSession is a Claude Code 2.0.21 session (auto-compact at
// 155,000 tokens for claude-sonnet-4-5, the last call's usage alone
// counted) of one prompt and calls that each read a 10,000-token
// result of a tool microcompact leaves alone. prompts are the prompt
// tokens each call recorded; at compactions[i] (a call) the agent
// compacted before that call, by trigger[i], and sent a short recorded
// summary from then on.
func compactedSession(prompts []int64, compactions []int, triggers []string) *transcript.Transcript {
	const model = "claude-sonnet-4-5-20250929"
	t := &transcript.Transcript{ID: "compacted", File: "compacted.jsonl", Format: transcript.FormatClaudeCode, AgentVersion: "2.0.21", Models: []string{model}}
	text := func(s string) []transcript.Block { return []transcript.Block{{Type: transcript.BlockText, Text: s}} }
	t.Messages = append(t.Messages, transcript.Message{Role: transcript.RoleUser, Blocks: text("Migrate the orders table and check every query.")})
	next := 0
	for i, p := range prompts {
		if next < len(compactions) && compactions[next] == i {
			prev := prompts[i-1] + 200
			sum := transcript.Message{Role: transcript.RoleUser, Blocks: text("This session is being continued from a previous conversation that ran out of context. Queries 0 to " + fmt.Sprint(i) + " checked.")}
			t.Compactions = append(t.Compactions, transcript.Compaction{Index: len(t.Messages), Trigger: triggers[next], PreTokens: prev, Summary: &sum})
			next++
		}
		id := fmt.Sprintf("toolu_%02d", i)
		t.Messages = append(t.Messages,
			transcript.Message{Role: transcript.RoleAssistant, Model: model, Usage: &transcript.Usage{Input: 10, CacheRead: p - 10, Output: 200},
				Blocks: []transcript.Block{{Type: transcript.BlockToolUse, ID: id, Name: "mcp__db__query", Input: []byte(fmt.Sprintf(`{"n":%d}`, i))}}},
			transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockToolResult, ID: id, Text: strings.Repeat(fmt.Sprintf("row %d ok; ", i), 4000)[:40_000]}}})
	}
	t.Calls = len(prompts)
	return t
}

// climbing returns n prompt sizes from first, 10,000 tokens apart.
func climbing(first int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = first + int64(i)*10_000
	}
	return out
}

// TestCheckCompactions: the self-check holds claude-code to every
// compaction a session recorded, each part replayed from the history
// Claude Code then held.
func TestCheckCompactions(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name        string
		prompts     []int64
		compactions []int
		triggers    []string
		want        []CompactionCheck
		// second says the replay of the whole session compacts again
		// where the recording did not.
		second bool
	}{{
		// A stream-json log: a 103,000-token initial prompt the log does
		// not hold, which the compaction removed. From the recorded
		// summary the policy counts what Claude Code counted and does not
		// compact again; replayed whole neither, for it compacted before
		// the call Claude Code did, and counts the recorded usage from
		// then on, not the line fitted before, which held the prompt.
		name:    "unrecorded initial prompt",
		prompts: append(climbing(118_000, 5), climbing(16_000, 12)...), compactions: []int{5}, triggers: []string{"auto"},
		want: []CompactionCheck{{From: 0, Call: 5, PreTokens: 158_200, Trigger: "auto", Fired: 5, Counted: 158_200}},
	}, {
		name:    "two compactions",
		prompts: append(append(climbing(118_000, 5), climbing(116_000, 5)...), climbing(16_000, 3)...), compactions: []int{5, 10}, triggers: []string{"auto", "auto"},
		want: []CompactionCheck{
			{From: 0, Call: 5, PreTokens: 158_200, Trigger: "auto", Fired: 5, Counted: 158_200},
			{From: 5, Call: 10, PreTokens: 156_200, Trigger: "auto", Fired: 10, Counted: 156_200},
		},
	}, {
		// Claude Code did not compact where the policy does: past the
		// threshold it went on, then was compacted by hand.
		name:    "policy compacts alone",
		prompts: append(append(climbing(118_000, 5), climbing(116_000, 7)...), climbing(16_000, 2)...), compactions: []int{5, 12}, triggers: []string{"auto", "manual"},
		want: []CompactionCheck{
			{From: 0, Call: 5, PreTokens: 158_200, Trigger: "auto", Fired: 5, Counted: 158_200},
			{From: 5, Call: 12, PreTokens: 176_200, Trigger: "manual", Fired: 10, Counted: 156_200},
		},
	}, {
		name:    "policy compacts after the last",
		prompts: append(climbing(118_000, 5), climbing(116_000, 7)...), compactions: []int{5}, triggers: []string{"auto"},
		want: []CompactionCheck{
			{From: 0, Call: 5, PreTokens: 158_200, Trigger: "auto", Fired: 5, Counted: 158_200},
			{From: 5, Call: -1, Fired: 10, Counted: 156_200},
		},
		second: true,
	}}
	for _, c := range cases {
		tr := compactedSession(c.prompts, c.compactions, c.triggers)
		p := must(t, "claude-code")
		run, err := replay.Replay(ctx, tr, p, replay.Options{NoSteps: true, Summarizer: &summarize.Mock{}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := CheckCompactions(ctx, tr, run, p, "auto-compact", replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: checks (-want +got):\n%s", c.name, diff)
		}
		for _, k := range got {
			if agrees := k.Fired == k.Call && k.Trigger != "manual"; k.Agrees() != agrees {
				t.Errorf("%s: %+v: Agrees() = %v", c.name, k, k.Agrees())
			}
		}
		var fired []int
		for _, f := range run.Summary.Fired {
			if f.What == "auto-compact" {
				fired = append(fired, f.Step)
			}
		}
		if second := len(fired) > len(c.compactions); second != c.second {
			t.Errorf("%s: replayed whole, the policy compacted at calls %v, the recording before %v", c.name, fired, c.compactions)
		}
	}
}

// TestFirstFiringPastTheSummaryList: a run's summary lists its first 100
// firings; when the firing looked for is not among them and the list is
// cut short, the check replays the part to find it, and does not when
// the list holds them all.
func TestFirstFiringPastTheSummaryList(t *testing.T) {
	ctx := context.Background()
	tr := compactedSession(append(climbing(118_000, 5), climbing(16_000, 3)...), []int{5}, []string{"auto"})
	p := must(t, "claude-code")
	cut := &replay.Run{Summary: replay.Summary{Firings: 150}} // the list held other firings
	step, before, err := firstFiring(ctx, tr, cut, true, p, "auto-compact", replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if step != 5 || before != 158_200 {
		t.Errorf("found call %d counting %d, want the compaction at call 5 counting 158,200", step, before)
	}
	all := &replay.Run{Summary: replay.Summary{Firings: 0}}
	if step, _, err := firstFiring(ctx, tr, all, true, p, "auto-compact", replay.Options{}); err != nil || step != -1 {
		t.Errorf("a run that fired none: found call %d, %v", step, err)
	}
}
