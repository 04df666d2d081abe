package window

import (
	"context"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// The AIDF sliding window (seeds 000 and 002): a message-count window that
// keeps the first preserve_first_n and the last preserve_last_n messages
// and the most recent of the middle, with an optional summary of what it
// evicts.
//
// Seed 002 (task 115), steps 1–6: if there are no more than max_messages
// messages, nothing changes; otherwise the head (the first
// preserve_first_n) and the tail (the last preserve_last_n) are kept, and of
// the middle only the last max_messages − head − tail; when head + tail ≥
// max_messages only head and tail are kept, with a warning. max_messages 0
// disables trimming (seed 000: "configurable maximum"; ctxbench treats 0 as
// off, as the issue specifies).
//
// Seed 000 (task 118), with summarize_on_trim: the evicted messages are
// summarized (prompt: [summarize.AIDF], max_tokens 1024) into one
// synthetic assistant message "[Conversation Summary] …" placed where they
// were, between the head and the kept middle; at most once every
// summarize_every (10) evicted messages, counted since the last summary;
// skipped when the evicted messages hold no text (only tool results);
// plain eviction when the summarizer fails. A summary is a message like
// any other: a later trim can evict it, and folds it into the next summary
// when one is made.
//
// The window counts messages, so it can cut between a tool call and its
// result; that is the design, and ctxbench replays it. pair_safe (off by
// default: the seeds have no such rule) moves the cut forward past results
// whose calls were evicted, evicting them too, or, when that would reach
// the preserved tail, back before their calls — which can send a few
// messages more than max_messages: with pair_safe the pairs are kept and
// the cap is soft.
type aidfPolicy struct {
	base
	max, first, last, every int
	summarize, pairSafe     bool
}

func init() {
	register(&Spec{
		Name: "aidf", Source: "seeds 000 and 002 (AIDF v0.8.0 ConversationWindow)",
		Summary: "message-count sliding window: keep the first and last messages and the newest of the middle; optional [Conversation Summary] of what is evicted",
		Params: []Param{
			intParam("max_messages", 100, 0, none, "the cap on messages; 0 disables trimming"),
			intParam("preserve_first_n", 1, 0, none, "messages at the start always kept"),
			intParam("preserve_last_n", 20, 0, none, "messages at the end always kept"),
			boolParam("summarize_on_trim", false, "summarize evicted messages into a [Conversation Summary] assistant message"),
			intParam("summarize_every", 10, 1, none, "summarize at most once per this many evicted messages"),
			boolParam("pair_safe", false, "never cut between a tool call and its result (not in the source)"),
			stringParam("config", "", "an AIDF config.yml whose execution settings set the parameters above (explicit ones win)"),
		},
		expand: func(params map[string]string) (map[string]string, error) {
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
		build: func(v Values) Policy {
			return &aidfPolicy{base: base{"aidf", v}, max: v.Int("max_messages"), first: v.Int("preserve_first_n"),
				last: v.Int("preserve_last_n"), every: v.Int("summarize_every"), summarize: v.Bool("summarize_on_trim"), pairSafe: v.Bool("pair_safe")}
		},
	})
}

type aidfState struct {
	evictedSinceSummary int
	// sent is the array of the history last sent, reused when the
	// engine allows it (Env.ReuseSent).
	sent []Item
}

// SummaryPrefix starts AIDF's summary message.
const aidfSummaryPrefix = "[Conversation Summary] "

func (p *aidfPolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	step := Step{History: hist}
	if p.max == 0 || len(hist) <= p.max {
		return step, nil
	}
	as, _ := st.data.(*aidfState)
	if as == nil {
		as = &aidfState{}
		st.data = as
	}
	nHead := min(p.first, len(hist))
	tailStart := max(nHead, len(hist)-p.last)
	cut := tailStart // evict hist[nHead:cut], keep hist[cut:tailStart] of the middle
	if p.first+p.last >= p.max {
		// Seed 002 step 3: keep head and tail, with a warning. Head and
		// tail can exceed the cap (AIDF's default preserve_last_n 20 with
		// max_conversation_messages 10 sends 21): replayed as AIDF runs it,
		// the cap invariant says so.
		warnf(&step, "preserve_first_n (%d) + preserve_last_n (%d) >= max_messages (%d): only the preserved head and tail are kept", p.first, p.last, p.max)
	} else {
		cut = tailStart - (p.max - p.first - p.last)
		cut = max(cut, nHead)
	}
	if p.pairSafe {
		nHead, cut = p.safeCut(hist, nHead, cut, tailStart)
	}
	evicted := hist[nHead:cut]
	var kept []Item
	if env != nil && env.ReuseSent {
		kept = as.sent[:0]
	} else {
		kept = make([]Item, 0, len(hist)-len(evicted)+1)
	}
	kept = append(kept, hist[:nHead]...)
	step.Evicted = ids(evicted)
	if p.summarize && len(evicted) > 0 {
		as.evictedSinceSummary += len(evicted)
		switch {
		case as.evictedSinceSummary < p.every:
			// Rate-limited: plain eviction.
		case !hasText(evicted):
			warnf(&step, "summary skipped: the %d evicted messages hold no text", len(evicted))
		default:
			text, ev, err := summarizeItems(ctx, env, evicted, "", summarize.AIDF)
			if err != nil {
				return Step{}, err
			}
			step.Summary = ev
			if ev.Error == "" {
				s := st.newItem(transcript.RoleAssistant, aidfSummaryPrefix+text, true)
				ev.ID = s.ID
				kept = append(kept, s)
				as.evictedSinceSummary = 0
			} else {
				warnf(&step, "summary failed, evicting without one: %s", ev.Error)
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

// safeCut returns the span [lo, hi) to evict so that no tool call and its
// result are separated: the head is extended over the results of its own
// calls, then the cut moves forward past results whose calls would be
// evicted, or, when that would reach the preserved tail, back before the
// calls.
func (p *aidfPolicy) safeCut(hist []Item, nHead, cut, tailStart int) (int, int) {
	resultAt := map[string]int{}
	for i, it := range hist {
		for _, id := range toolResults(it) {
			if _, ok := resultAt[id]; !ok {
				resultAt[id] = i
			}
		}
	}
	lo := nHead
	for changed := true; changed; {
		changed = false
		for _, it := range hist[:lo] {
			for _, id := range toolUses(it) {
				if r, ok := resultAt[id]; ok && r >= lo && r < tailStart {
					lo, changed = r+1, true
				}
			}
		}
	}
	orphanAfter := func(c int) bool {
		used := map[string]bool{}
		for _, it := range hist[lo:c] {
			for _, id := range toolUses(it) {
				used[id] = true
			}
		}
		for _, it := range hist[c:] {
			for _, id := range toolResults(it) {
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
func (p *aidfPolicy) Guarantees() Guarantees {
	g := Guarantees{MaxMessages: p.max, Head: p.first, Tail: p.last, PairSafe: p.pairSafe, SummaryRole: transcript.RoleAssistant}
	if p.pairSafe {
		g.MaxMessages = 0
	}
	if p.summarize {
		g.SummaryExtra = 1
	}
	return g
}
