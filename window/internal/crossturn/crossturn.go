// Package crossturn models the AI Context Management document's layers 2
// and 3 (chat.component.ts, ai.routes.ts): the cross-turn policy.
package crossturn

import (
	"context"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// CrossTurn names the cross-turn policy.
//
// The AI Context Management document, layers 2 and 3: the history a chat
// client sends with a new prompt, and its automatic summary.
//
// Layer 2: only role and text are sent — no tool calls, file contents or
// structured data — and system and empty messages are left out. Without a
// summary the last 20 messages are sent (last_n); with one, the summary and
// the last 6 (last_n_with_summary). The summary is injected as a user
// message "[Earlier conversation summary: …]" followed by an assistant
// message "Understood, I have context from our earlier conversation."
//
// Layer 3: once more than 10 text messages exist (summarize_after) and
// there is no summary, the messages except the last 6 are summarized
// (prompt: [summarize.CrossTurn], at most 500 tokens), once. With
// resummarize_threshold > 0 (the seed's proposal, off by default as in
// the seed's current behaviour), the previous summary and the unsummarized
// middle — from summaryMessageCount to the last 6 — are folded into a new
// summary whenever that middle holds resummarize_threshold messages, and
// summaryMessageCount advances to total − 6. This is the rule the seed's
// "Example Flow" table follows (summaries at the 11th, 21st and 31st
// message); the seed's pseudo-code ("unsummarized = total −
// summaryMessageCount > threshold") would fire at the 16th message and
// contradicts the table, so the table wins.
//
// A text message is a user or assistant message with non-empty text. The
// agent's current turn — from its last user prompt on, tool calls and
// results included — is sent whole, as the generation in progress is; the
// layers apply to the turns before it. The summary is made "after a
// generation completes": before the first call of the next turn.
const CrossTurn = "cross-turn"

// crossTurnPolicy is the [CrossTurn] policy.
type crossTurnPolicy struct {
	policy.Base
	lastN, lastNWithSummary, after, threshold int
}

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: CrossTurn, Source: "the AI Context Management document, layers 2 and 3 (chat.component.ts, ai.routes.ts)",
		Summary: "text-only history of earlier turns: the last 20 messages, or a summary + the last 6; one automatic summary after 10 text messages; optional re-summarization",
		Params: []policy.Param{
			policy.IntParam("last_n", 20, 1, policy.NoBound, "text messages sent when there is no summary"),
			policy.IntParam("last_n_with_summary", 6, 0, policy.NoBound, "text messages sent after the summary"),
			policy.IntParam("summarize_after", 10, 0, policy.NoBound, "summarize once more than this many text messages exist"),
			policy.IntParam("resummarize_threshold", 0, 0, policy.NoBound, "fold the old summary and this many unsummarized messages into a new one (the seed's proposal: 10; 0: off)"),
		},
		Build: func(v policy.Values) policy.Policy {
			return &crossTurnPolicy{Base: policy.NewBase(CrossTurn, v), lastN: v.Int("last_n"), lastNWithSummary: v.Int("last_n_with_summary"),
				after: v.Int("summarize_after"), threshold: v.Int("resummarize_threshold")}
		},
	},
}

// The AI Context Management document's injected messages.
const (
	crossTurnSummaryPrefix = "[Earlier conversation summary: "
	crossTurnAck           = "Understood, I have context from our earlier conversation."
)

type crossTurnState struct {
	summary      string
	summaryItems []policy.Item // the summary and the acknowledgement
	// covered is summaryMessageCount: how many text messages the summary
	// stands for.
	covered int
	// texts is the text view of messages [0, scanned), extended as turns
	// end (the start of the current turn never moves back), so a step does not rebuild it from the start (which made the
	// replay quadratic) and its text-only copies keep their identity (and
	// their cached counts) from step to step.
	texts   []policy.Item
	scanned int
	// rolledBack is how many of the transcript's rollbacks the text view
	// has left out.
	rolledBack int
}

// plan says what the state machine does when n text messages exist: the
// span [from, to) of text messages to summarize, or ok=false.
func (p *crossTurnPolicy) plan(cs *crossTurnState, n int) (from, to int, ok bool) {
	keep := p.lastNWithSummary
	switch {
	case cs.summary == "" && n > p.after:
		return 0, max(0, n-keep), n-keep > 0
	case cs.summary != "" && p.threshold > 0 && n-keep-cs.covered >= p.threshold:
		return cs.covered, n - keep, true
	}
	return 0, 0, false
}

func (p *crossTurnPolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	cs, _ := st.Data.(*crossTurnState)
	if cs == nil {
		cs = &crossTurnState{}
		st.Data = cs
	}
	step := policy.Step{}
	msgs := env.Transcript.Messages[:env.Next]
	turn := CurrentTurnStart(msgs)
	// The turns the user undid leave the text view once, when undone;
	// messages scanned later skip them.
	if rbs := env.Transcript.Rollbacks; cs.rolledBack < len(rbs) && rbs[cs.rolledBack].Index <= env.Next {
		for cs.rolledBack < len(rbs) && rbs[cs.rolledBack].Index <= env.Next {
			cs.rolledBack++
		}
		cs.texts = slices.DeleteFunc(cs.texts, func(it policy.Item) bool { return env.Undone(it.Index()) })
	}
	for ; cs.scanned < turn; cs.scanned++ {
		if it, ok := textOnly(env.Transcript, cs.scanned); ok && !env.Undone(cs.scanned) {
			cs.texts = append(cs.texts, it)
		}
	}
	texts := cs.texts // the text view of the earlier turns
	if from, to, ok := p.plan(cs, len(texts)); ok {
		text, ev, err := policy.SummarizeItems(ctx, env, texts[from:to], cs.summary, summarize.CrossTurn)
		if err != nil {
			return policy.Step{}, err
		}
		step.Summary = ev
		if ev.Error == "" {
			s := st.NewItem(transcript.RoleUser, crossTurnSummaryPrefix+text+"]", true)
			ack := st.NewItem(transcript.RoleAssistant, crossTurnAck, false)
			ev.ID = s.ID
			if cs.summary != "" {
				ev.Covers = append(policy.ItemIDs(cs.summaryItems[:1]), ev.Covers...)
			}
			cs.summary, cs.summaryItems, cs.covered = text, []policy.Item{s, ack}, to
		} else {
			policy.Warnf(&step, "summary failed: %s", ev.Error)
		}
	}
	var view []policy.Item
	if cs.summary != "" {
		view = append(view, cs.summaryItems...)
		view = append(view, texts[max(0, len(texts)-p.lastNWithSummary):]...)
	} else {
		view = append(view, texts[max(0, len(texts)-p.lastN):]...)
	}
	for i := turn; i < len(msgs); i++ {
		if !env.Undone(i) {
			view = append(view, policy.Original(env.Transcript, i))
		}
	}
	step.History = view
	for _, it := range view {
		if it.Truncated {
			step.Truncated = append(step.Truncated, it.ID)
		}
	}
	step.Evicted = policy.EvictedFrom(hist, view)
	return step, nil
}

// CurrentTurnStart returns the index of the last user prompt (a user
// message with text, not only tool results), or 0.
func CurrentTurnStart(msgs []transcript.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role == transcript.RoleUser && strings.TrimSpace(m.Text()) != "" {
			return i
		}
	}
	return 0
}

// textOnly returns message i as role and text only, or false when it is a
// system message or has no text.
func textOnly(t *transcript.Transcript, i int) (policy.Item, bool) {
	m := &t.Messages[i]
	if m.Role != transcript.RoleUser && m.Role != transcript.RoleAssistant {
		return policy.Item{}, false
	}
	text := m.Text()
	if strings.TrimSpace(text) == "" {
		return policy.Item{}, false
	}
	if len(m.Blocks) == 1 && m.Blocks[0].Type == transcript.BlockText {
		return policy.Original(t, i), true
	}
	c := &transcript.Message{Role: m.Role, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: text}}, Pos: m.Pos}
	return policy.Item{ID: msgid.Of(i), Msg: c, Truncated: true}, true
}

func (p *crossTurnPolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{SummaryRole: transcript.RoleUser, SummaryFirst: true}
}
