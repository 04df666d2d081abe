package replay

import (
	"context"
	"fmt"
	"slices"

	"github.com/ctxbench/ctxbench/internal/probe"
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
	Probes  []judgedProbe `json:"probes"`
	// Distractor is the LLM judge's question no context can answer,
	// where that judge was asked.
	Distractor *probe.Verdict `json:"distractor,omitempty"`
}

// A judgedProbe is a probe, whether the exact judge kept it, and the LLM
// judge's verdict where that judge was asked.
type judgedProbe struct {
	probe.Probe
	Kept bool           `json:"kept"`
	LLM  *probe.Verdict `json:"llm,omitempty"`
}

// A ProbeScore is what the judges kept over a replay's calls: the exact
// judge's count of the probes asked and kept, what the run lost of the
// session's probes and the score that makes ([Summary.ProbeScore]), and
// the LLM judge's count where it was asked.
type ProbeScore struct {
	Exact probe.Score     `json:"exact"`
	Loss  probe.Loss      `json:"loss"`
	Score float64         `json:"score"`
	LLM   *probe.LLMScore `json:"llm,omitempty"`
}

// An LLMJudge asks a model each probe with only the context a call
// sent, then has a model grade the answer against the one the recording
// holds, on the six 0–5 dimensions of Factory's evaluation of context
// compression; each call adds a distractor, a question no context can
// answer. Its Model is a [summarize.Summarizer] (Anthropic or OpenAI), so
// a judge's calls share the provider's client: its response cache,
// retries, spend cap and breaker.
type LLMJudge = probe.LLMJudge

// Probes replays t under p and returns, at each call where the policy
// first stopped sending some earlier messages verbatim, the probes
// about those messages (and the call's continuation probe), judged by
// the exact judge (does the context keep the probe's key?) against what the call sent,
// with their score: the run's [Summary.Probes]. llm, when not nil,
// judges them too, with a distractor at each call. opt is as for
// [Replay]; its Observe, NoSteps and NoRetention are set here.
func Probes(ctx context.Context, t *transcript.Transcript, p window.Policy, opt Options, llm *LLMJudge) ([]CallProbes, ProbeScore, error) {
	var out []CallProbes
	var score ProbeScore
	if llm != nil {
		score.LLM = &probe.LLMScore{Prompts: probe.PromptsDigest()}
	}
	opt.NoSteps, opt.NoRetention = true, false
	opt.Observe = func(_ int, s *Step) error {
		at := s.probes
		if len(at.dropped) == 0 {
			return nil
		}
		cp := CallProbes{Step: s.Step, Dropped: slices.Clone(at.dropped)}
		for k, pr := range at.probes {
			cp.Probes = append(cp.Probes, judgedProbe{Probe: pr, Kept: at.kept[k]})
		}
		if llm != nil {
			msgs := make([]*transcript.Message, len(s.sent))
			for k, it := range s.sent {
				msgs[k] = it.Msg
			}
			vs, d, err := llm.Judge(ctx, s.Step, msgs, at.probes)
			if err != nil {
				return fmt.Errorf("call %d: LLM judge: %w", s.Step, err)
			}
			for k := range vs {
				cp.Probes[k].LLM = &vs[k]
				score.LLM.Add(at.probes[k], vs[k])
			}
			cp.Distractor = &d
			score.LLM.AddDistractor(d)
		}
		out = append(out, cp)
		return nil
	}
	run, err := Replay(ctx, t, p, opt)
	if err != nil {
		return nil, ProbeScore{}, err
	}
	score.Exact, score.Loss, score.Score = run.Summary.Probes, run.Summary.ProbeLoss, run.Summary.ProbeScore
	return out, score, nil
}
