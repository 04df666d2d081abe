// Package selfcheck holds a policy modelled on an agent to the
// compactions that agent recorded (the self-checks `ctxbench replay` and `ctxbench estimate` report): each
// part of a transcript, from its start or a compaction to the next, is
// replayed from the history the agent had then, and the policy's first
// compaction there compared with the agent's.
package selfcheck

import (
	"context"

	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A CompactionCheck holds a policy to the agent that recorded a
// transcript over one part of it: from the start, or from a compaction
// the agent recorded, to its next compaction or the end. Within a part
// the policy and the agent start from the same history — the first part
// from nothing, a later one from the summary the agent recorded and the
// messages after it — so each compaction the agent recorded can be held
// to the policy, and the policy to the parts where the agent did not
// compact.
type CompactionCheck struct {
	// From is the part's first call.
	From int `json:"from"`
	// Call is the call the agent made first after compacting, at the end
	// of the part (-1: it did not compact again); PreTokens and Trigger
	// what it recorded of the compaction (its count before, "auto" or
	// "manual").
	Call      int    `json:"call"`
	PreTokens int64  `json:"pre_tokens,omitempty"`
	Trigger   string `json:"trigger,omitempty"`
	// Fired is the first call of the part at which the policy compacted
	// (-1: none), and Counted what it counted then.
	Fired   int `json:"fired"`
	Counted int `json:"counted"`
}

// Agrees reports whether the policy compacted where the agent compacted
// by itself, and did not where the agent did not: before a compaction
// made by hand, or in the part after the agent's last compaction.
func (c CompactionCheck) Agrees() bool {
	if c.Call < 0 || c.Trigger == "manual" {
		return c.Fired < 0
	}
	return c.Fired == c.Call
}

// CheckCompactions holds p to every compaction t recorded, one part at
// a time (see [CompactionCheck]); a compaction is a firing of what
// ("auto-compact", say). run is p's replay of t as a whole, which
// stands for the first part (unless its summary's list of firings is
// cut short before one of what); each later part is replayed alone,
// with the mock summarizer (no part goes past the policy's first
// compaction in it). A part is checked when the agent or the policy compacted in it,
// other than by hand; none is when t recorded no compaction and the
// policy made none.
func CheckCompactions(ctx context.Context, t *transcript.Transcript, run *replay.Run, p window.Policy, what string, opt replay.Options) ([]CompactionCheck, error) {
	var out []CompactionCheck
	starts := callStarts(t)
	for k := 0; k <= len(t.Compactions); k++ {
		from, end := 0, len(t.Messages)
		if k > 0 {
			from = t.Compactions[k-1].Index
		}
		c := CompactionCheck{From: starts[from], Call: -1, Fired: -1}
		if k < len(t.Compactions) {
			rc := t.Compactions[k]
			// The part ends with the call the agent compacted before: the
			// policy decides there too.
			for end = rc.Index; end < len(t.Messages) && t.Messages[end].Role != transcript.RoleAssistant; end++ {
			}
			if end < len(t.Messages) { // a compaction no call followed is none to check
				c.Call, c.PreTokens, c.Trigger = starts[end], rc.PreTokens, rc.Trigger
				end++
			}
		}
		part := t
		if k > 0 {
			part = transcriptPart(t, t.Compactions[k-1], end)
		}
		fired, before, err := firstFiring(ctx, part, run, k == 0, p, what, opt)
		if err != nil {
			return nil, err
		}
		// A later part ends at c.Call; the first is the whole replay.
		if step := c.From + fired; fired >= 0 && (c.Call < 0 || step <= c.Call) {
			c.Fired, c.Counted = step, before
		}
		if c.Fired >= 0 || (c.Call >= 0 && c.Trigger != "manual") {
			out = append(out, c)
		}
	}
	return out, nil
}

// firstFiring returns the step of the first firing of what in p's
// replay of t (−1: none) and what the policy counted before it: read
// from run, t's replay, when given (whole) and its summary lists it or
// all its firings; else from a replay of t with the mock summarizer.
func firstFiring(ctx context.Context, t *transcript.Transcript, run *replay.Run, whole bool, p window.Policy, what string, opt replay.Options) (step, before int, err error) {
	if whole {
		for _, f := range run.Summary.Fired {
			if f.What == what {
				return f.Step, f.Before, nil
			}
		}
		if len(run.Summary.Fired) == run.Summary.Firings {
			return -1, 0, nil
		}
	}
	step = -1
	_, err = replay.Replay(ctx, t, p, replay.Options{NoSteps: true, NoRetention: true, Summarizer: &summarize.Mock{}, Prices: opt.Prices,
		Observe: func(_ int, s *replay.Step) error {
			if step < 0 && s.Fired != nil && s.Fired.What == what {
				step, before = s.Step, s.Fired.Before
			}
			return nil
		}})
	return step, before, err
}

// callStarts returns, for each message index i of t (and len), the
// number of calls before it.
func callStarts(t *transcript.Transcript) []int {
	out := make([]int, len(t.Messages)+1)
	n := 0
	for i := range t.Messages {
		out[i] = n
		if t.Messages[i].Role == transcript.RoleAssistant {
			n++
		}
	}
	out[len(t.Messages)] = n
	return out
}

// transcriptPart returns what the agent held after compaction rc — the
// summary, where recorded, and the messages after it — up to message
// end of t.
func transcriptPart(t *transcript.Transcript, rc transcript.Compaction, end int) *transcript.Transcript {
	part := &transcript.Transcript{ID: t.ID, File: t.File, Format: t.Format, Parent: t.Parent, Subagent: t.Subagent,
		AgentVersion: t.AgentVersion, Models: t.Models}
	if rc.Summary != nil {
		part.Messages = append(part.Messages, *rc.Summary)
	}
	shift := len(part.Messages) - rc.Index
	part.Messages = append(part.Messages, t.Messages[rc.Index:end]...)
	for _, rb := range t.Rollbacks {
		if rb.From >= rc.Index && rb.Index <= end {
			rb.From, rb.Index = rb.From+shift, rb.Index+shift
			part.Rollbacks = append(part.Rollbacks, rb)
		}
	}
	for i := range part.Messages {
		if part.Messages[i].Role == transcript.RoleAssistant {
			part.Calls++
		}
	}
	return part
}
