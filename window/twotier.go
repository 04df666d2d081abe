package window

import (
	"context"
	"strings"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// Seed 001 (two-tier summarization): tokens are estimated as characters / 4
// (estimateTokens: Math.ceil(str.length / 4)). Above 80,000 (tier 1) the
// messages but the last 8 are replaced by a heuristic summary (tools used,
// files explored, commands run; no model call); above 120,000 (tier 2) by
// an AI summary in six sections of at most 2,000 tokens
// ([summarize.TwoTier]), cached so that an unchanged span is not
// summarized twice. Summarization only happens when more than 8 messages
// can be summarized. A leading system message is the separate systemPrompt
// of the seed's summarizeMessages and is kept.
//
// The seed does not say where or as what the summary goes; ctxbench puts it
// first (after the system message) as a user message "[Summary of the
// earlier conversation]\n…". A failed AI summary falls back to the
// heuristic one.
type twoTierPolicy struct {
	base
	basic, ai, keep, minSummarizable int
}

func init() {
	register(&Spec{
		Name: "two-tier", Source: "seed 001 (two-tier summarization ADR)",
		Summary: "over 80k estimated tokens a heuristic summary, over 120k an AI summary (six sections, ≤2000 tokens, cached), keeping the last 8 messages",
		Params: []Param{
			intParam("basic_threshold", 80000, 1, none, "CONTEXT_THRESHOLD_BASIC: heuristic summary above this many tokens"),
			intParam("ai_threshold", 120000, 1, none, "CONTEXT_THRESHOLD_AI: AI summary above this many tokens"),
			intParam("keep_last", 8, 0, none, "messages kept whole"),
			intParam("min_summarizable", 8, 0, none, "summarize only when more than this many messages can be"),
			estimatorParam("chars4", "how tokens are estimated"),
		},
		build: func(v Values) Policy {
			return &twoTierPolicy{base: base{"two-tier", v}, basic: v.Int("basic_threshold"), ai: v.Int("ai_threshold"),
				keep: v.Int("keep_last"), minSummarizable: v.Int("min_summarizable")}
		},
	})
}

const twoTierPrefix = "[Summary of the earlier conversation]\n"

type twoTierState struct {
	cache map[string]string // span ids → AI summary
}

func (p *twoTierPolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	step := Step{History: hist}
	total := st.historyTokens(env, estimatorOf(p.values), hist)
	if total <= p.basic {
		return step, nil
	}
	ts, _ := st.data.(*twoTierState)
	if ts == nil {
		ts = &twoTierState{cache: map[string]string{}}
		st.data = ts
	}
	head := 0
	if len(hist) > 0 && hist[0].Msg.Role == transcript.RoleSystem && !hist[0].Synthetic() {
		head = 1
	}
	end := max(head, len(hist)-p.keep)
	span := hist[head:end]
	if len(span) <= p.minSummarizable {
		return step, nil
	}
	var text string
	if total > p.ai {
		key := strings.Join(ids(span), ",")
		if cached, ok := ts.cache[key]; ok {
			text = cached
			step.Summary = &SummaryEvent{Covers: ids(span), Cached: true, Model: "two-tier cache"}
		} else {
			t, ev, err := summarizeItems(ctx, env, span, "", summarize.TwoTier)
			if err != nil {
				return Step{}, err
			}
			step.Summary = ev
			if ev.Error == "" {
				text = t
				ts.cache[key] = t
			} else {
				warnf(&step, "AI summary failed, using the heuristic one: %s", ev.Error)
				step.Summary = nil
			}
		}
	}
	if text == "" {
		res, _ := summarize.Heuristic{}.Summarize(ctx, summarize.Request{Messages: messages(span)})
		text = res.Text
		if step.Summary == nil {
			step.Summary = &SummaryEvent{Covers: ids(span), Model: "heuristic"}
		}
	}
	s := st.newItem(transcript.RoleUser, twoTierPrefix+text, true)
	step.Summary.ID = s.ID
	step.Evicted = ids(span)
	out := append([]Item{}, hist[:head]...)
	out = append(out, s)
	step.History = append(out, hist[end:]...)
	return step, nil
}

func (p *twoTierPolicy) Guarantees() Guarantees {
	return Guarantees{SummaryRole: transcript.RoleUser, SummaryFirst: true, Compacts: true}
}
