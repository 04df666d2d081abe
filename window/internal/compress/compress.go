// Package compress models Dexto's CompressionService (the Complete
// Context Management Plan): the compress policy.
package compress

import (
	"context"
	"math"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// Compress names the compress policy.
//
// Dexto's Complete Context Management Plan (its
// CompressionService.compressIfNeeded): when the history
// reaches threshold (0.8) × max_tokens, everything before a split point is
// summarized and replaced by a system message "Previous context
// summary:\n…"; the rest is kept.
//
// findSplitPoint: the target is floor(len × (1 − preserve_ratio)) with
// preserve_ratio 0.3; from there it walks back to an assistant message with
// no pending tool calls and splits after it, so a tool-call chain is never
// cut; if none is found it splits at the target itself, as the seed's code
// does (which can cut a chain: ctxbench shows it). An assistant message has
// pending tools when it calls any: their results follow it.
//
// The seed counts tokens with the model's tokenizer (actualTokens when the
// API reported them); the replay counts the working history with
// estimator (cl100k_base by default). The seed's generateSummary prompt is
// not given; ctxbench uses [summarize.Generic]. A failed summary leaves
// the history as it was.
const Compress = "compress"

// compressPolicy is the [Compress] policy.
type compressPolicy struct {
	policy.Base
	maxTokens       int
	threshold, keep float64
}

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: Compress, Source: "Dexto's Complete Context Management Plan (its CompressionService)",
		Summary: "at 80% of max_tokens, summarize all but the newest 30% of messages, splitting only after a complete turn; summary as a system message",
		Params: []policy.Param{
			policy.IntParam("max_tokens", 0, 0, policy.NoBound, "the model's context budget; 0: the transcript model's window, else 128,000"),
			policy.FloatParam("threshold", 0.8, 0, 1, true, "compress at this share of max_tokens"),
			policy.FloatParam("preserve_ratio", 0.3, 0, 1, true, "share of messages kept"),
			policy.EstimatorParam("cl100k_base", "how the history's tokens are counted"),
		},
		Build: func(v policy.Values) policy.Policy {
			return &compressPolicy{Base: policy.NewBase(Compress, v), maxTokens: v.Int("max_tokens"), threshold: v.Float("threshold"), keep: v.Float("preserve_ratio")}
		},
	},
}

const compressPrefix = "Previous context summary:\n"

func (p *compressPolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	est := policy.EstimatorOf(p.Params())
	before, trigger := st.HistoryTokens(env, est, hist), float64(env.Window(p.maxTokens, 128_000))*p.threshold
	if float64(before) < trigger {
		return step, nil
	}
	split := findSplitPoint(hist, p.keep)
	if split <= 0 {
		policy.Warnf(&step, "over the threshold, but no split point: nothing to compress")
		return step, nil
	}
	step.Fired = &policy.Firing{What: "compression", Unit: "tokens", Trigger: int(math.Ceil(trigger)), Before: before, After: before}
	toCompress := hist[:split]
	text, ok, err := policy.SummarizeOrKeep(ctx, env, &step, "summary", toCompress, "", summarize.Generic)
	if err != nil || !ok {
		return step, err
	}
	ev := step.Summary
	s := st.NewItem(transcript.RoleSystem, compressPrefix+text, true)
	ev.ID = s.ID
	step.Evicted = policy.ItemIDs(toCompress)
	step.History = append([]policy.Item{s}, hist[split:]...)
	step.Fired.After = policy.Tokens(env, est, step.History)
	return step, nil
}

// findSplitPoint is the seed's: the index of the first message kept.
func findSplitPoint(hist []policy.Item, preserveRatio float64) int {
	target := int(float64(len(hist)) * (1 - preserveRatio))
	for i := min(target, len(hist)-1); i >= 0; i-- {
		if hist[i].Msg.Role == transcript.RoleAssistant && !policy.PendingTools(hist[i]) {
			return i + 1
		}
	}
	return target
}

func (p *compressPolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{SummaryRole: transcript.RoleSystem, SummaryFirst: true, Compacts: true}
}
