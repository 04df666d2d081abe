package window

import (
	"context"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// opencode's session management (sst/opencode 31e22f65
// packages/opencode/src/session/compaction.ts and overflow.ts).
//
// Prune (after each turn; on by default in older code, opt-in on current
// main: the prune parameter): going back from the newest message, past the
// last 2 user turns, tool outputs are summed (length/4); those beyond the
// newest 40,000 tokens (PRUNE_PROTECT) are cleared to "[Old tool result
// content cleared]", but only when that clears more than 20,000 tokens
// (PRUNE_MINIMUM). Pruning stops at the previous compaction summary.
//
// Compaction: when the prompt reaches the usable window — context_limit −
// max_output − min(20,000, max_output) — the history is summarized except
// a tail of the newest messages within preserve_recent_tokens =
// clamp(25% of usable, 2,000, 15,000), and replaced by a user message
// asking for the summary and the assistant's summary (summary: true).
// Earlier compactions are hidden. Tokens are counted as length/4 over the
// messages' JSON (chars4). The summary prompt is [summarize.Generic]
// rather than opencode's five-section template.
type opencodePolicy struct {
	base
	prune                                         bool
	protect, minimum, limit, output, protectTurns int
	// walkAll makes prune walk the whole history at every call (the
	// tests' reference for the walk that stops at the quiet prefix).
	walkAll bool
}

// opencodeState remembers the quiet prefix of the history opencode sent:
// items that hold no tool output still to clear, or lie behind a summary.
// Prune clears outputs and never restores them, and the next history
// given starts with the one sent, so while it does, prune's walk from
// the newest item can stop where the quiet prefix ends: the items there
// add nothing to what is protected or cleared. quiet holds the prefix's
// messages, to tell that it does.
type opencodeState struct {
	quiet []*transcript.Message
	// split is the last message prune walked block by block, where the
	// protected budget ran out (mostly the same from call to call), and
	// splitCounts its outputCounts.
	split       *transcript.Message
	splitCounts []int
}

// outputCounts returns opencodeOutputs' count of each block of m, or −1
// for a block that is not an output to clear; oc may be nil.
func (oc *opencodeState) outputCounts(m *transcript.Message) []int {
	if oc != nil && oc.split == m {
		return oc.splitCounts
	}
	counts := make([]int, len(m.Blocks))
	for i, b := range m.Blocks {
		counts[i] = -1
		if isOutput(b) {
			counts[i] = opencodeOutputs.Count(b.Text)
		}
	}
	if oc != nil {
		oc.split, oc.splitCounts = m, counts
	}
	return counts
}

// quietPrefix returns how many of hist's first items are the quiet
// prefix of the history sent last.
func (oc *opencodeState) quietPrefix(hist []Item) int {
	if len(oc.quiet) > len(hist) {
		return 0
	}
	for i, m := range oc.quiet {
		if hist[i].Msg != m {
			return 0
		}
	}
	return len(oc.quiet)
}

func init() {
	register(&Spec{
		Name: "opencode", Source: "sst/opencode 31e22f65 packages/opencode/src/session/compaction.ts",
		Summary: "clear old tool outputs beyond the newest 40k tokens when that saves over 20k; at overflow, summarize all but a recent tail",
		Params: []Param{
			boolParam("prune", true, "clear old tool outputs (opt-in on current main, on in older code)"),
			intParam("prune_protect", 40_000, 0, none, "PRUNE_PROTECT: newest tool-output tokens kept"),
			intParam("prune_minimum", 20_000, 0, none, "PRUNE_MINIMUM: prune only when it clears more than this"),
			intParam("protect_turns", 2, 0, none, "latest user turns never pruned"),
			intParam("context_limit", 0, 0, none, "the model's context window; 0: the transcript model's, else 200,000"),
			intParam("max_output", 32_000, 0, none, "the model's output limit"),
		},
		build: func(v Values) Policy {
			return &opencodePolicy{base: base{"opencode", v}, prune: v.Bool("prune"), protect: v.Int("prune_protect"),
				minimum: v.Int("prune_minimum"), protectTurns: v.Int("protect_turns"), limit: v.Int("context_limit"), output: v.Int("max_output")}
		},
	})
}

const (
	opencodeCleared    = "[Old tool result content cleared]"
	opencodeCompaction = "What did we do so far?"
)

func (p *opencodePolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	step := Step{History: hist}
	oc, _ := st.data.(*opencodeState)
	if oc == nil {
		oc = &opencodeState{}
		st.data = oc
	}
	quiet := 0
	if p.prune {
		from, memo := 0, oc
		if p.walkAll {
			memo = nil
		} else {
			from = oc.quietPrefix(hist)
		}
		step.History, step.Truncated, quiet = p.pruneOutputs(env, memo, hist, from)
	}
	pruned := step.History
	step, err := p.compact(ctx, env, st, step)
	// The quiet prefix holds while the pruned history is what is sent; a
	// compaction replaces it.
	oc.quiet = oc.quiet[:0]
	if err == nil && len(step.History) == len(pruned) && (len(pruned) == 0 || &step.History[0] == &pruned[0]) {
		for _, it := range pruned[:quiet] {
			oc.quiet = append(oc.quiet, it.Msg)
		}
	}
	return step, err
}

// compact summarizes all but a recent tail of step's history when it
// overflows the usable context.
func (p *opencodePolicy) compact(ctx context.Context, env *Env, st *State, step Step) (Step, error) {
	reserved := min(20_000, p.output)
	usable := env.window(p.limit, 200_000) - p.output - reserved
	est := chars4Estimator()
	if st.historyTokens(env, est, step.History) < usable {
		return step, nil
	}
	budget := max(2_000, min(15_000, usable/4))
	h := step.History
	tail := len(h)
	for used := 0; tail > 0; tail-- {
		n := count(env, est, h[tail-1])
		if used+n > budget {
			break
		}
		used += n
	}
	if tail == 0 {
		return step, nil
	}
	text, ev, err := summarizeItems(ctx, env, h[:tail], "", summarize.Generic)
	if err != nil {
		return Step{}, err
	}
	step.Summary = ev
	if ev.Error != "" {
		warnf(&step, "compaction failed, history kept: %s", ev.Error)
		return step, nil
	}
	ask := st.newItem(transcript.RoleUser, opencodeCompaction, false)
	s := st.newItem(transcript.RoleAssistant, text, true)
	ev.ID = s.ID
	step.Evicted = ids(h[:tail])
	step.History = append([]Item{ask, s}, h[tail:]...)
	return step, nil
}

// pruneOutputs clears old tool outputs, newest PRUNE_PROTECT tokens and the
// latest user turns protected, stopping at a summary, or at from, where
// the quiet prefix of the history ends (see opencodeState). A message's
// output tokens come from the count cache; only the message where the
// protected budget runs out is walked block by block, its counts kept in
// oc when oc is not nil. It returns the
// history, the items cut, and the length of its quiet prefix: the
// history's items before the oldest that still holds an output.
func (p *opencodePolicy) pruneOutputs(env *Env, oc *opencodeState, hist []Item, from int) ([]Item, []string, int) {
	turns, protected := 0, 0
	var candidates []int
	cleared := 0
	oldest, oldestKept := len(hist), len(hist) // the oldest items holding an output: any, and not a candidate
	for i := len(hist) - 1; i >= from; i-- {
		it := hist[i]
		if it.Summary {
			break
		}
		if it.Msg.Role == transcript.RoleUser && !has(it, transcript.BlockToolResult) {
			turns++
		}
		if !hasOutput(it) {
			continue
		}
		oldest = i
		if turns < p.protectTurns {
			oldestKept = i
			continue
		}
		if n := count(env, opencodeOutputs, it); protected+n <= p.protect || protected > p.protect {
			// Wholly protected, or wholly past the budget.
			if protected += n; protected > p.protect {
				candidates = append(candidates, i)
				cleared += n
			} else {
				oldestKept = i
			}
			continue
		}
		kept := true
		for _, n := range oc.outputCounts(it.Msg) {
			if n < 0 {
				continue
			}
			protected += n
			if protected > p.protect {
				candidates = append(candidates, i)
				cleared += n
				kept = false
			}
		}
		if kept {
			oldestKept = i
		}
	}
	if cleared <= p.minimum {
		return hist, nil, oldest
	}
	out := append([]Item(nil), hist...)
	var truncated []string
	seen := map[int]bool{}
	for _, i := range candidates {
		if seen[i] {
			continue
		}
		seen[i] = true
		c := *hist[i].Msg
		c.Blocks = append([]transcript.Block(nil), c.Blocks...)
		for j := range c.Blocks {
			if c.Blocks[j].Type == transcript.BlockToolResult {
				c.Blocks[j].Text, c.Blocks[j].Raw = opencodeCleared, nil
			}
		}
		out[i] = Item{ID: hist[i].ID, Msg: &c, Truncated: true}
		truncated = append(truncated, hist[i].ID)
	}
	return out, truncated, oldestKept
}

// outputsEstimator counts a message's tool outputs as opencode's prune
// does, length / 4 rounded per output, leaving out those already cleared.
// It is an estimator so that the replay's count cache holds it: prune
// walks the whole history at every call.
type outputsEstimator struct{}

var opencodeOutputs estimate.Estimator = outputsEstimator{}

func (outputsEstimator) Name() string { return "opencode-outputs" }
func (outputsEstimator) Exact() bool  { return false }
func (outputsEstimator) Count(text string) int {
	return int(math.Round(float64(transcript.UTF16Len(text)) / 4))
}
func (outputsEstimator) CountMessage(m *transcript.Message) int {
	n := 0
	for _, b := range m.Blocks {
		if isOutput(b) {
			n += opencodeOutputs.Count(b.Text)
		}
	}
	return n
}

// isOutput reports whether b is a tool output not yet cleared.
func isOutput(b transcript.Block) bool {
	return b.Type == transcript.BlockToolResult && b.Text != opencodeCleared
}

// hasOutput reports whether the item holds a tool output not yet cleared.
func hasOutput(it Item) bool { return slices.ContainsFunc(it.Msg.Blocks, isOutput) }

func (p *opencodePolicy) Guarantees() Guarantees {
	return Guarantees{SummaryRole: transcript.RoleAssistant, Compacts: true}
}
