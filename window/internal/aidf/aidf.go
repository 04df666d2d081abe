// Package aidf models AIDF's ConversationWindow (rubenmavarezb/aidf at
// [Commit]): the aidf policy, and its configuration read from AIDF's
// config file.
package aidf

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// AIDF names the AIDF sliding window: a message-count window that keeps the
// first preserve_first_n and the last preserve_last_n messages and the most
// recent of the middle, with an optional summary of what it evicts. It
// follows AIDF's ConversationWindow.trim
// (packages/cli/src/core/providers/conversation-window.ts of
// rubenmavarezb/aidf), which make conformance runs on the corpus; AIDF's
// v0.8.0 plan (Message History Management) and its task Implement
// Conversation Window Module describe it, and where they read otherwise the
// code wins (reading=code) and the documents' reading is reading=seed.
//
// If there are no more than max_messages messages, nothing changes
// (max_messages 0 disables trimming); otherwise the head
// (messages.slice(0, preserve_first_n)) and the tail
// (messages.slice(-preserve_last_n)) are kept, and of the middle only the
// last max_messages − head − tail. The trimmed array replaces the
// conversation (anthropic-api.ts, openai-api.ts), so each call trims what
// the previous one sent plus the turn since, as ctxbench replays it.
//
// When head + tail ≥ max_messages only head and tail are kept, with a
// warning. There the code and the seeds part: the code sends
// [...head, ...tail] as two slices, so a history shorter than head + tail
// sends the messages they share twice (a history of 12 under max 10,
// first 1, last 20 sends 13 items, m0 twice, and what is sent twice stays
// in the conversation the next trim is given), makes no summary and
// counts nothing towards one; AIDF's task Implement Conversation Window
// Module keeps each message once.
// preserve_last_n 0 is refused under reading=code while max_messages is
// set: slice(-0) is the whole array, so the code's tail is every message
// it was given, and the conversation grows by about max_messages items at
// every call without bound.
//
// With summarize_on_trim, the evicted messages are summarized (prompt:
// [summarize.AIDF], max_tokens 1024) into one synthetic assistant message
// "[Conversation Summary] …" placed where they were, between the head and
// the kept middle; at most once every summarize_every (10,
// MIN_EVICTED_FOR_SUMMARY) evicted messages, counted since the last
// summary; skipped when the evicted messages hold no text (the code:
// no text block and no tool result's content; the seeds: no text block,
// "only tool results"); plain eviction when the summarizer fails. A
// summary is a message like any other: a later trim can evict it, and
// folds it into the next summary when one is made.
//
// The window counts messages, so it can cut between a tool call and its
// result; that is the design, and ctxbench replays it. pair_safe (off by
// default: the source has no such rule) moves the cut forward past results
// whose calls were evicted, evicting them too, or, when that would reach
// the preserved tail, back before their calls — which can send a few
// messages more than max_messages: with pair_safe the pairs are kept and
// the cap is soft.
const AIDF = "aidf"

// aidfPolicy is the [AIDF] policy.
type aidfPolicy struct {
	policy.Base
	max, first, last, every int
	summarize, pairSafe     bool
	// seed: the AIDF documents' reading, where they and the code part.
	seed bool
}

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: AIDF, Source: "AIDF's ConversationWindow (rubenmavarezb/aidf, conversation-window.ts); AIDF's v0.8.0 plan and its task Implement Conversation Window Module",
		Models: "aidf@" + Commit[:7], Held: policy.HeldConformance,
		Differs: []string{
			"preserve_last_n=0 is refused under reading=code: the code's tail, slice(-0), is the whole conversation, which then grows without bound",
			"trims before every call; AIDF does not trim before the first call of a task (the prompt appended to the previous task's conversation)",
		},
		Summary: "message-count sliding window: keep the first and last messages and the newest of the middle; optional [Conversation Summary] of what is evicted",
		Params: []policy.Param{
			policy.IntParam("max_messages", 100, 0, policy.NoBound, "the cap on messages; 0 disables trimming"),
			policy.IntParam("preserve_first_n", 1, 0, policy.NoBound, "messages at the start always kept"),
			policy.IntParam("preserve_last_n", 20, 0, policy.NoBound, "messages at the end always kept"),
			policy.BoolParam("summarize_on_trim", false, "summarize evicted messages into a [Conversation Summary] assistant message"),
			policy.IntParam("summarize_every", 10, 1, policy.NoBound, "summarize at most once per this many evicted messages"),
			policy.BoolParam("pair_safe", false, "never cut between a tool call and its result (not in the source)"),
			policy.EnumParam("reading", "code", []string{"code", "seed"}, "where the seeds and the code part: code sends head and tail as two slices (a short history sends what they share twice); seed keeps each message once"),
			policy.StringParam("config", "", "an AIDF config.yml whose execution settings set the parameters above (explicit ones win)"),
		},
		Expand: func(params map[string]string) (map[string]string, error) {
			path := params["config"]
			if path == "" {
				return params, nil
			}
			fromFile, err := AIDFConfigParams(path)
			if err != nil {
				return nil, err
			}
			for k, v := range params {
				fromFile[k] = v
			}
			return fromFile, nil
		},
		Check: func(v policy.Values) error {
			if v.String("reading") == "code" && v.Int("max_messages") > 0 && v.Int("preserve_last_n") == 0 {
				return errors.New("preserve_last_n=0: AIDF's code keeps slice(-0), the whole conversation, as its tail, and re-sends it after the head and kept middle at every trim, without bound; reading=seed replays the seeds' reading (no tail)")
			}
			return nil
		},
		Build: func(v policy.Values) policy.Policy {
			return &aidfPolicy{Base: policy.NewBase(AIDF, v), max: v.Int("max_messages"), first: v.Int("preserve_first_n"),
				last: v.Int("preserve_last_n"), every: v.Int("summarize_every"), summarize: v.Bool("summarize_on_trim"), pairSafe: v.Bool("pair_safe"),
				seed: v.String("reading") == "seed"}
		},
	},
}

// Commit is the commit of rubenmavarezb/aidf whose ConversationWindow
// the policy follows and the conformance golden was made from.
const Commit = "ce89f915d85168e2ab9c8c22a39e364f5a42beae"

type aidfState struct {
	evictedSinceSummary int
	// sent is the array of the history last sent, reused when the
	// engine allows it (Env.ReuseSent).
	sent []policy.Item
}

// SummaryPrefix starts AIDF's summary message.
const aidfSummaryPrefix = "[Conversation Summary] "

func (p *aidfPolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	if p.max == 0 || len(hist) <= p.max {
		return step, nil
	}
	as, _ := st.Data.(*aidfState)
	if as == nil {
		as = &aidfState{}
		st.Data = as
	}
	nHead := min(p.first, len(hist))
	tailStart := max(nHead, len(hist)-p.last)
	cut := tailStart // evict hist[nHead:cut], keep hist[cut:tailStart] of the middle
	both := p.first+p.last >= p.max
	if both {
		// Keep head and tail, with a warning. Head and tail can exceed
		// the cap (AIDF's default preserve_last_n 20 with
		// max_conversation_messages 10 sends 21): replayed as AIDF runs it,
		// the cap invariant says so.
		policy.Warnf(&step, "preserve_first_n (%d) + preserve_last_n (%d) >= max_messages (%d): only the preserved head and tail are kept", p.first, p.last, p.max)
		if !p.seed && len(hist)-p.last < nHead {
			// The code's [...head, ...tail] when they overlap: what they
			// share is sent twice.
			kept := make([]policy.Item, 0, nHead+min(p.last, len(hist)))
			kept = append(kept, hist[:nHead]...)
			step.History = append(kept, hist[max(0, len(hist)-p.last):]...)
			return step, nil
		}
	} else {
		cut = tailStart - (p.max - p.first - p.last)
		cut = max(cut, nHead)
	}
	if p.pairSafe {
		nHead, cut = p.safeCut(hist, nHead, cut, tailStart)
	}
	evicted := hist[nHead:cut]
	var kept []policy.Item
	if env != nil && env.ReuseSent {
		kept = as.sent[:0]
	} else {
		kept = make([]policy.Item, 0, len(hist)-len(evicted)+1)
	}
	kept = append(kept, hist[:nHead]...)
	step.Evicted = policy.ItemIDs(evicted)
	// The code summarizes only below the cap's head and tail; the seeds
	// in both branches.
	if p.summarize && len(evicted) > 0 && (p.seed || !both) {
		as.evictedSinceSummary += len(evicted)
		switch {
		case as.evictedSinceSummary < p.every:
			// Rate-limited: plain eviction.
		case !p.seed && !aidfHasText(evicted), p.seed && !policy.HasText(evicted):
			policy.Warnf(&step, "summary skipped: the %d evicted messages hold no text", len(evicted))
		default:
			text, ev, err := policy.SummarizeItems(ctx, env, evicted, "", summarize.AIDF)
			if err != nil {
				return policy.Step{}, err
			}
			step.Summary = ev
			if ev.Error == "" {
				s := st.NewItem(transcript.RoleAssistant, aidfSummaryPrefix+text, true)
				ev.ID = s.ID
				kept = append(kept, s)
				as.evictedSinceSummary = 0
			} else {
				policy.Warnf(&step, "summary failed, evicting without one: %s", ev.Error)
			}
		}
	}
	kept = append(kept, hist[cut:]...)
	if env != nil && env.ReuseSent {
		as.sent = kept
	}
	step.History = kept
	return step, nil
}

// aidfHasText reports whether ConversationWindow's extractText finds
// text in items: a text block's text or a tool result's content string
// (a tool_result block's content), white space included.
func aidfHasText(items []policy.Item) bool {
	for _, it := range items {
		for _, b := range it.Msg.Blocks {
			if (b.Type == transcript.BlockText || b.Type == transcript.BlockToolResult) && b.Text != "" {
				return true
			}
		}
	}
	return false
}

// safeCut returns the span [lo, hi) to evict so that no tool call and its
// result are separated: the head is extended over the results of its own
// calls, then the cut moves forward past results whose calls would be
// evicted, or, when that would reach the preserved tail, back before the
// calls.
func (p *aidfPolicy) safeCut(hist []policy.Item, nHead, cut, tailStart int) (int, int) {
	resultAt := map[string]int{}
	for i, it := range hist {
		for _, id := range policy.ToolResults(it) {
			if _, ok := resultAt[id]; !ok {
				resultAt[id] = i
			}
		}
	}
	lo := nHead
	for changed := true; changed; {
		changed = false
		for _, it := range hist[:lo] {
			for _, id := range policy.ToolUses(it) {
				if r, ok := resultAt[id]; ok && r >= lo && r < tailStart {
					lo, changed = r+1, true
				}
			}
		}
	}
	orphanAfter := func(c int) bool {
		used := map[string]bool{}
		for _, it := range hist[lo:c] {
			for _, id := range policy.ToolUses(it) {
				used[id] = true
			}
		}
		for _, it := range hist[c:] {
			for _, id := range policy.ToolResults(it) {
				if used[id] {
					return true
				}
			}
		}
		return false
	}
	cut = max(cut, lo)
	for c := cut; c <= tailStart; c++ {
		if !orphanAfter(c) {
			return lo, c
		}
	}
	for c := cut - 1; c > lo; c-- {
		if !orphanAfter(c) {
			return lo, c
		}
	}
	return lo, lo
}

// InertOn: the cap is never reached when the transcript has no more
// messages than it (or there is no cap).
func (p *aidfPolicy) InertOn(t *transcript.Transcript) bool {
	return p.max == 0 || p.max >= len(t.Messages)
}

// Guarantees: the cap, the head and the tail; with pair_safe, tool pairs
// instead of the cap (keeping a pair can take a few messages more).
func (p *aidfPolicy) Guarantees() policy.Guarantees {
	g := policy.Guarantees{MaxMessages: p.max, Head: p.first, Tail: p.last, PairSafe: p.pairSafe, SummaryRole: transcript.RoleAssistant}
	if p.pairSafe {
		g.MaxMessages = 0
	}
	if p.summarize {
		g.SummaryExtra = 1
	}
	return g
}

// Cautions: a head and a tail that do not fit under the cap, and
// pair_safe's soft cap.
func (p *aidfPolicy) Cautions() []string {
	var out []string
	if p.max > 0 && p.first+p.last >= p.max {
		out = append(out, fmt.Sprintf("preserve_first_n + preserve_last_n = %d is not under max_messages = %d: the cap cannot hold, and the window sends the head and the tail whole once it trims", p.first+p.last, p.max))
	}
	if p.max > 0 && p.pairSafe {
		out = append(out, "pair_safe keeps tool calls with their results, which can send more than max_messages: the cap is not checked")
	}
	return out
}
