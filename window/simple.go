package window

import (
	"context"
	"slices"
)

// The names of the policies this package holds itself: the baseline,
// what the agent sent, and the agent's own policy.
const (
	// None names the baseline: every call sends the whole history.
	None = "none"

	// Recorded names what the agent actually sent: the history, where
	// at each compaction the transcript recorded every earlier message
	// is replaced by the summary the agent recorded, followed by the
	// messages the compaction kept (opencode's tail).
	Recorded = "recorded"

	// Agent names the agent's own policy: at each call, the policy of
	// the agent that recorded the transcript, so that one label replays
	// each agent's rule on its own files only. On a Claude Code session
	// it is claude-code, on a Codex rollout codex, on a Gemini CLI
	// session gemini-cli and on an opencode session opencode, each with
	// its defaults (a window left at 0 is the model's context window);
	// on the formats no agent of these records (chat logs, traces,
	// trajectories) it is recorded, what the agent sent. It has no
	// parameters: to set one agent's, name that agent's policy. It
	// promises nothing beyond the invariants every policy keeps.
	Agent = "agent"
)

func init() {
	register(&Spec{
		Name: None, Source: "-", Summary: "send everything: the baseline",
		Build: func(v Values) Policy { return &nonePolicy{base{None, v}} },
	})
	register(&Spec{
		Name: Recorded, Source: "the transcript",
		Summary: "what the agent actually sent: the history, replaced by the agent's own summary at each compaction it recorded",
		Build:   func(v Values) Policy { return &recordedPolicy{base{Recorded, v}} },
	})
}

type nonePolicy struct{ base }

// Guarantees: sending everything keeps every pair the transcript has.
func (p *nonePolicy) Guarantees() Guarantees { return Guarantees{PairSafe: true} }

// Apply sends the history unchanged.
func (p *nonePolicy) Apply(_ context.Context, _ *Env, _ *State, hist []Item) (Step, error) {
	return Step{History: hist}, nil
}

type recordedPolicy struct{ base }

type recordedState struct{ applied int }

// Apply honours the compaction markers of the transcript: when the agent
// compacted before this call, every earlier item is replaced by the
// summary it recorded (a user message, as Claude Code and Codex send it;
// an assistant one, as opencode does), followed by the messages the
// compaction kept (opencode's tail).
// The turns the user undid are not in the history it is given.
func (p *recordedPolicy) Apply(_ context.Context, env *Env, st *State, hist []Item) (Step, error) {
	rs, _ := st.Data.(*recordedState)
	if rs == nil {
		rs = &recordedState{}
		st.Data = rs
	}
	step := Step{History: hist}
	cs := env.Transcript.Compactions
	for ; rs.applied < len(cs) && cs[rs.applied].Index <= env.Next; rs.applied++ {
		c := cs[rs.applied]
		// Compactions recorded back to back (no call between them) are
		// one: the summary of the earlier was never sent, so it goes
		// without being evicted, and the later covers what it covered.
		var covers []string
		if step.Summary != nil {
			covers = step.Summary.Covers
			step.History = step.History[1:]
			step.Summary = nil
		}
		// A summary item (index < 0) is dropped too: the agent's summary
		// replaces everything before the compaction but the messages it
		// kept, which follow the summary.
		dropped := evict(&step, func(i int) bool { return i < c.Index && !slices.Contains(c.Kept, i) })
		if c.Summary != nil {
			s := st.NewItem(c.Summary.Role, c.Summary.Text(), true)
			s.Msg = c.Summary
			step.Summary = &SummaryEvent{ID: s.ID, Covers: append(covers, ids(dropped)...), Model: "recorded"}
			step.History = append([]Item{s}, step.History...)
		}
	}
	return step, nil
}

func (p *recordedPolicy) Guarantees() Guarantees {
	return Guarantees{SummaryFirst: true}
}
