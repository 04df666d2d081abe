package replay

import (
	"context"
	"fmt"
	"slices"

	"github.com/ctxbench/ctxbench/replay/probe"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A CallProbes is what a policy stopped sending verbatim at one call
// (evicted, truncated, cleared or summarized, for the first time), asked
// as probes and judged against the context the call sent.
type CallProbes struct {
	Step int `json:"step"`
	// Dropped are the indices of the messages first lost at this call.
	Dropped []int         `json:"dropped"`
	Probes  []JudgedProbe `json:"probes"`
	// Distractor is the LLM judge's question no context can answer,
	// where that judge was asked.
	Distractor *probe.Verdict `json:"distractor,omitempty"`
}

// A JudgedProbe is a probe, whether the exact judge kept it, and the LLM
// judge's verdict where that judge was asked.
type JudgedProbe struct {
	probe.Probe
	Kept bool           `json:"kept"`
	LLM  *probe.Verdict `json:"llm,omitempty"`
}

// A ProbeScore is what the judges kept over a replay's calls: the exact
// judge's score, and the LLM judge's where it was asked.
type ProbeScore struct {
	Exact probe.Score     `json:"exact"`
	LLM   *probe.LLMScore `json:"llm,omitempty"`
}

// Probes replays t under p and returns, at each call where the policy
// first stopped sending some earlier messages verbatim, the probes
// about those messages (and the call's continuation probe), judged by
// [probe.Context.Keeps] against what the call sent, with their score;
// llm, when not nil, judges them too, with a distractor at each call.
// opt is as for [Replay]; its Observe, SummaryOnly and NoRetention are
// set here.
func Probes(ctx context.Context, t *transcript.Transcript, p window.Policy, opt Options, llm *probe.LLMJudge) ([]CallProbes, ProbeScore, error) {
	var out []CallProbes
	var score ProbeScore
	if llm != nil {
		score.LLM = &probe.LLMScore{Prompts: probe.PromptsDigest()}
	}
	ex := probe.NewExtractor(t)
	var judge probe.ExactJudge
	lost := make([]bool, len(t.Messages))
	// sentAt[i] is 1 + the step that last sent message i verbatim. A
	// message is first lost at a step that does not send it verbatim
	// while the step before did, or it came since: only those are
	// looked at, so a step costs its context, not the history.
	sentAt := make([]int32, len(t.Messages))
	// before are the messages the step before sent verbatim; spare the
	// other buffer the steps swap with it.
	var before, spare []int
	prevNext := 0
	opt.SummaryOnly, opt.NoRetention = true, true
	opt.Observe = func(_ int, s *Step) error {
		stamp := int32(s.Step) + 1
		now := spare[:0]
		for _, it := range s.sent {
			if i := it.Index(); i >= 0 && i < s.next && !it.Truncated && sentAt[i] != stamp {
				sentAt[i] = stamp
				now = append(now, i)
			}
		}
		var dropped []int
		check := func(i int) {
			if sentAt[i] != stamp && !lost[i] {
				lost[i] = true
				dropped = append(dropped, i)
			}
		}
		for _, i := range before {
			check(i)
		}
		for i := prevNext; i < s.next; i++ {
			check(i)
		}
		before, spare, prevNext = now, before, s.next
		if len(dropped) == 0 {
			return nil
		}
		slices.Sort(dropped)
		msgs := make([]*transcript.Message, len(s.sent))
		for k, it := range s.sent {
			msgs[k] = it.Msg
		}
		sent := judge.Context(msgs)
		cp := CallProbes{Step: s.Step, Dropped: dropped}
		probes := ex.Of(dropped, s.next)
		for _, pr := range probes {
			kept := sent.Keeps(pr)
			score.Exact.Add(pr, kept)
			cp.Probes = append(cp.Probes, JudgedProbe{Probe: pr, Kept: kept})
		}
		if llm != nil {
			vs, d, err := llm.Judge(ctx, s.Step, msgs, probes)
			if err != nil {
				return fmt.Errorf("call %d: LLM judge: %w", s.Step, err)
			}
			for k := range vs {
				cp.Probes[k].LLM = &vs[k]
				score.LLM.Add(probes[k], vs[k])
			}
			cp.Distractor = &d
			score.LLM.AddDistractor(d)
		}
		out = append(out, cp)
		return nil
	}
	if _, err := Replay(ctx, t, p, opt); err != nil {
		return nil, ProbeScore{}, err
	}
	return out, score, nil
}
