// Package opencode models opencode's compaction and pruning
// (packages/opencode/src/session, 1.18.33): the opencode policy.
package opencode

import (
	"context"
	"math"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// Opencode names the opencode policy.
//
// opencode's session management, as opencode 1.18.33 runs it (the
// SessionCompaction and SessionPrompt modules of the published binary:
// prune, select, process, filterCompacted; session/overflow.ts usable).
// opencode cannot be run on a replayed history from npm (its package is
// a compiled binary), so opencode_test.go holds the policy to table tests
// quoting the code it models.
//
// Prune (compaction.prune, opt-in: the prune parameter) runs once per
// prompt loop — before the next user turn, on the history before it.
// Going back from the newest message, once 2 user turns are passed, it
// sums the tool outputs of completed calls (length/4, rounded), newest
// part first, skipping errored results and the skill tool's; it stops at
// a summary or at an output already cleared. The outputs beyond the
// newest 40,000 tokens (PRUNE_PROTECT) are cleared to "[Old tool result
// content cleared]", only when that clears more than 20,000 tokens
// (PRUNE_MINIMUM).
//
// Compaction: when the prompt reaches the usable window — context_limit −
// max_output — the history is summarized but for a tail (select): newest
// user turns whole within preserve_recent_tokens = clamp(25% of usable,
// 2,000, 15,000); the first that does not fit whole is kept from its
// newest assistant message whose rest fits; none fitting, all is
// summarized. opencode keeps a tool call and its output in one part, so
// the tail never starts with a tool result. The history sent then is the
// compaction request ("What did we do so far?"), the summary (an
// assistant message), the tail, and the synthetic request to continue.
// Earlier compactions are summarized with the rest. Tokens are length/4
// of the messages' JSON (chars4). The summary prompt is
// [summarize.Generic] rather than opencode's template.
const Opencode = "opencode"

// opencodePolicy is the [Opencode] policy.
type opencodePolicy struct {
	policy.Base
	prune                                         bool
	protect, minimum, limit, output, protectTurns int
}

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: Opencode, Source: "sst/opencode packages/opencode/src/session/compaction.ts, prompt.ts, overflow.ts",
		Models: "opencode@1.18.33", Held: policy.HeldSource,
		Summary: "at overflow, summarize all but the newest user turns within 25% of the window; optionally (prune) clear old tool outputs beyond the newest 40k tokens between turns",
		Params: []policy.Param{
			policy.BoolParam("prune", false, "clear old tool outputs between turns (compaction.prune, opt-in in 1.18)"),
			policy.IntParam("prune_protect", 40_000, 0, policy.NoBound, "PRUNE_PROTECT: newest tool-output tokens kept"),
			policy.IntParam("prune_minimum", 20_000, 0, policy.NoBound, "PRUNE_MINIMUM: prune only when it clears more than this"),
			policy.IntParam("protect_turns", 2, 0, policy.NoBound, "latest user turns never pruned"),
			policy.IntParam("context_limit", 0, 0, policy.NoBound, "the model's context window; 0: the transcript model's, else 200,000"),
			policy.IntParam("max_output", 32_000, 0, policy.NoBound, "the model's output limit"),
		},
		Differs: []string{
			"opencode is a compiled binary on npm and cannot be run on a replayed history: the policy is held to table tests quoting 1.18.33's code (window/internal/opencode/opencode_test.go)",
			"overflow is the replayed history's length/4 estimate against the usable window; opencode compares the last call's billed tokens",
		},
		Build: func(v policy.Values) policy.Policy {
			return &opencodePolicy{Base: policy.NewBase(Opencode, v), prune: v.Bool("prune"), protect: v.Int("prune_protect"),
				minimum: v.Int("prune_minimum"), protectTurns: v.Int("protect_turns"), limit: v.Int("context_limit"), output: v.Int("max_output")}
		},
	},
}

const (
	opencodeCleared    = "[Old tool result content cleared]"
	opencodeCompaction = "What did we do so far?"
	opencodeContinue   = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."
)

func (p *opencodePolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	turn := hist[len(hist)-env.Turn:]
	if p.prune && hasRealUser(turn) {
		// The prompt loop that ended pruned the history before this turn.
		before, cut := p.pruneOutputs(env, hist[:len(hist)-env.Turn])
		if len(cut) > 0 {
			step.History = append(before, turn...)
			step.Truncated = cut
		}
	}
	return p.compact(ctx, env, st, step)
}

// hasRealUser reports whether items hold a user message that is not a
// tool result: a user turn.
func hasRealUser(items []policy.Item) bool {
	for _, it := range items {
		if isUserTurn(it) {
			return true
		}
	}
	return false
}

// isUserTurn reports whether it is a user message of opencode's: a user
// message that is not a tool result (opencode keeps those in the
// assistant's message).
func isUserTurn(it policy.Item) bool {
	return it.Msg.Role == transcript.RoleUser && !policy.Has(it, transcript.BlockToolResult)
}

// compact summarizes all but a recent tail of step's history when it
// overflows the usable context.
func (p *opencodePolicy) compact(ctx context.Context, env *policy.Env, st *policy.State, step policy.Step) (policy.Step, error) {
	usable := env.Window(p.limit, 200_000) - p.output
	est := policy.Chars4()
	h := step.History
	before := 0
	if usable > 0 {
		before = st.HistoryTokens(env, est, h)
	}
	if usable <= 0 || before < usable {
		return step, nil
	}
	step.Fired = &policy.Firing{What: "compaction", Unit: "tokens", Trigger: usable, Before: before, After: before}
	// The messages select weighs: earlier compactions are not among them.
	var msgs []policy.Item
	for _, it := range h {
		if !it.Synthetic() || (!it.Summary && it.Msg.Text() != opencodeCompaction) {
			msgs = append(msgs, it)
		}
	}
	tail := p.tailStart(env, msgs, max(2_000, min(15_000, usable/4)))
	head := msgs[:tail]
	previous := ""
	for _, it := range h {
		if it.Summary {
			previous = it.Msg.Text() // the last summary, given to the next
		}
	}
	text, ok, err := policy.SummarizeOrKeep(ctx, env, &step, "compaction", head, previous, summarize.Generic)
	if err != nil || !ok {
		return step, err
	}
	ev := step.Summary
	ask := st.NewItem(transcript.RoleUser, opencodeCompaction, false)
	s := st.NewItem(transcript.RoleAssistant, text, true)
	cont := st.NewItem(transcript.RoleUser, opencodeContinue, false)
	ev.ID = s.ID
	out := append([]policy.Item{ask, s}, msgs[tail:]...)
	out = append(out, cont)
	step.Evicted = policy.EvictedFrom(h, out)
	step.History = out
	step.Fired.After = policy.Tokens(env, est, out)
	return step, nil
}

// tailStart is select: the index of msgs where the tail kept begins —
// whole user turns from the newest while they fit the budget, then the
// newest assistant message of the next turn whose rest fits; len(msgs)
// (all summarized) when no tail fits or the tail would be everything.
func (p *opencodePolicy) tailStart(env *policy.Env, msgs []policy.Item, budget int) int {
	est := policy.Chars4()
	var starts []int // user turns
	for i, it := range msgs {
		if isUserTurn(it) {
			starts = append(starts, i)
		}
	}
	start, used := -1, 0
	for k := len(starts) - 1; k >= 0; k-- {
		from, to := starts[k], len(msgs)
		if k+1 < len(starts) {
			to = starts[k+1]
		}
		n := policy.Tokens(env, est, msgs[from:to])
		if used+n <= budget {
			used += n
			start = from
			continue
		}
		left := budget - used
		if left > 0 && to-from > 1 {
			for o := from + 1; o < to; o++ {
				if msgs[o].Msg.Role != transcript.RoleAssistant {
					continue // a tool result stays with its call
				}
				if policy.Tokens(env, est, msgs[o:to]) <= left {
					start = o
					break
				}
			}
		}
		break
	}
	if start <= 0 {
		return len(msgs)
	}
	return start
}

// pruneOutputs is compaction.prune on hist: it returns hist with the old
// outputs cleared, and the ids of the messages cleared (none when it
// would clear PRUNE_MINIMUM tokens or fewer).
func (p *opencodePolicy) pruneOutputs(env *policy.Env, hist []policy.Item) ([]policy.Item, []string) {
	names := policy.ToolNames(policy.TranscriptOf(env))
	turns, total, pruned := 0, 0, 0
	type at struct{ item, block int }
	var toPrune []at
loop:
	for i := len(hist) - 1; i >= 0; i-- {
		it := hist[i]
		if isUserTurn(it) {
			turns++
		}
		if turns < p.protectTurns {
			continue
		}
		if it.Summary && it.Msg.Role == transcript.RoleAssistant {
			break
		}
		for j := len(it.Msg.Blocks) - 1; j >= 0; j-- {
			b := it.Msg.Blocks[j]
			if b.Type != transcript.BlockToolResult || b.IsError || names[b.ID] == "skill" {
				continue
			}
			if b.Text == opencodeCleared {
				break loop // compacted before
			}
			n := opencodeTokens(b.Text)
			if total += n; total <= p.protect {
				continue
			}
			pruned += n
			toPrune = append(toPrune, at{i, j})
		}
	}
	if pruned <= p.minimum {
		return hist, nil
	}
	out := append([]policy.Item(nil), hist...)
	var cut []string
	for _, a := range toPrune {
		it := out[a.item]
		if it.Msg == hist[a.item].Msg { // not copied yet
			c := *it.Msg
			c.Blocks = append([]transcript.Block(nil), c.Blocks...)
			it = policy.Truncated(it, &c, false)
			out[a.item] = it
			cut = append(cut, it.ID)
		}
		it.Msg.Blocks[a.block].Text, it.Msg.Blocks[a.block].Raw = opencodeCleared, nil
	}
	return out, cut
}

// opencodeTokens is Token.estimate: UTF-16 length / 4, rounded.
func opencodeTokens(s string) int { return int(math.Round(float64(jsstring.Len(s)) / 4)) }

// Guarantees: opencode keeps a tool call and its output in one part, so
// neither prune nor compaction separates them.
func (p *opencodePolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{SummaryRole: transcript.RoleAssistant, Compacts: true, PairSafe: true}
}
