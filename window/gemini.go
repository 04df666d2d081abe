package window

import (
	"context"
	"errors"
	"github.com/ctxbench/ctxbench/estimate"
	"strings"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// gemini-cli's chat compression (google-gemini/gemini-cli 5411f113,
// packages/core/src/context/chatCompressionService.ts, earlier
// services/chatCompressionService.ts; utils/tokenCalculation.ts;
// core/tokenLimits.ts).
//
// Trigger: the prompt reaches threshold (0.5) × the model's token limit
// (1,048,576 for every Gemini 2.5/3 model). gemini-cli compares the
// promptTokenCount the API reported for the last call; the replay counts
// the history with the Gemini CLI heuristic (estimator "gemini").
//
// Split (findCompressSplitPoint with fraction 1 − 0.3): over the history
// before the new message, contents' JSON lengths are summed; the split is
// the first user content that is not a function response at or after 70%
// of the characters; failing that, everything when the last content is a
// model message without a function call, else the last such user content.
// Here a function response is a message holding tool results (Gemini sends
// them with role user), a function call a tool_use block.
//
// Placement: [user: the summary (a <state_snapshot>), model: "Got it.
// Thanks for the additional context!", …the kept history, the new turn].
// If the new history counts more tokens than the old, gemini-cli discards
// it; after a failed or inflating attempt it does not try again in that
// session (hasFailedCompressionAttempt). Not modelled: the function-response
// budget added in 2026 (older tool outputs truncated to files) and the
// re-prepended environment context. The summary prompt is
// [summarize.Generic], not gemini-cli's own.
type geminiPolicy struct {
	base
	limit           int
	threshold, keep float64
}

func init() {
	register(&Spec{
		Name: "gemini-cli", Source: "google-gemini/gemini-cli 5411f113 packages/core/src/context/chatCompressionService.ts",
		Summary: "at 50% of the model's window, summarize all but the newest 30% (by characters), splitting before a user message; summary as a user message + model acknowledgement",
		Params: []Param{
			intParam("token_limit", 0, 0, none, "the model's token limit; 0: the transcript model's window, else 1,048,576 (tokenLimits.ts's default)"),
			floatParam("threshold", 0.5, 0, 1, true, "compress at this share of the limit (0.7→0.2→0.7→0.5 in Oct–Nov 2025)"),
			floatParam("preserve", 0.3, 0, 1, true, "COMPRESSION_PRESERVE_THRESHOLD: share of history kept, by characters"),
			estimatorParam("gemini", "how the prompt is counted"),
		},
		check: func(v Values) error {
			if v.Float("preserve") >= 1 {
				return errors.New("preserve must be below 1: findCompressSplitPoint needs a fraction in (0, 1)")
			}
			return nil
		},
		build: func(v Values) Policy {
			return &geminiPolicy{base: base{"gemini-cli", v}, limit: v.Int("token_limit"), threshold: v.Float("threshold"), keep: v.Float("preserve")}
		},
	})
}

const geminiAck = "Got it. Thanks for the additional context!"

// geminiDefaultLimit is tokenLimits.ts's DEFAULT_TOKEN_LIMIT, the limit of
// a model it does not know.
const geminiDefaultLimit = 1_048_576

type geminiState struct{ failed bool }

func (p *geminiPolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	step := Step{History: hist}
	gs, _ := st.data.(*geminiState)
	if gs == nil {
		gs = &geminiState{}
		st.data = gs
	}
	est := estimatorOf(p.values)
	before := st.historyTokens(env, est, hist)
	if gs.failed || float64(before) < p.threshold*float64(env.window(p.limit, geminiDefaultLimit)) {
		return step, nil
	}
	curated, turn := hist[:len(hist)-env.Turn], hist[len(hist)-env.Turn:]
	split := geminiSplitPoint(env, curated, 1-p.keep)
	if split == 0 {
		return step, nil
	}
	text, ev, err := summarizeItems(ctx, env, curated[:split], "", summarize.Generic)
	if err != nil {
		return Step{}, err
	}
	step.Summary = ev
	if ev.Error != "" {
		gs.failed = true
		warnf(&step, "compression failed, history kept (gemini-cli stops trying): %s", ev.Error)
		return step, nil
	}
	if !strings.Contains(text, "<state_snapshot>") {
		text = "<state_snapshot>\n" + text + "\n</state_snapshot>"
	}
	s := st.newItem(transcript.RoleUser, text, true)
	ack := st.newItem(transcript.RoleAssistant, geminiAck, false)
	out := append([]Item{s, ack}, curated[split:]...)
	out = append(out, turn...)
	if after := tokens(env, est, out); after > before {
		gs.failed = true
		ev.Error = "compression inflated the token count; discarded"
		warnf(&step, "compression inflated the prompt from %d to %d tokens: discarded, as gemini-cli does", before, after)
		return step, nil
	}
	ev.ID = s.ID
	step.Evicted = ids(curated[:split])
	step.History = out
	return step, nil
}

// geminiSplitPoint is findCompressSplitPoint over the items.
func geminiSplitPoint(env *Env, items []Item, fraction float64) int {
	chars := make([]int, len(items))
	total := 0
	for i, it := range items {
		chars[i] = count(env, geminiChars, it)
		total += chars[i]
	}
	target := float64(total) * fraction
	last, cum := 0, 0
	for i, it := range items {
		if isGeminiUserTurn(it) {
			if float64(cum) >= target {
				return i
			}
			last = i
		}
		cum += chars[i]
	}
	if n := len(items); n > 0 && items[n-1].Msg.Role == transcript.RoleAssistant && !pendingTools(items[n-1]) {
		return n
	}
	return last
}

func isGeminiUserTurn(it Item) bool {
	return it.Msg.Role == transcript.RoleUser && !has(it, transcript.BlockToolResult)
}

// geminiChars is geminiContentLen as an estimator, so that the replay's
// count cache holds it: every compression measures the whole history, and
// measuring meant walking each message's JSON.
type geminiCharsEstimator struct{}

var geminiChars estimate.Estimator = geminiCharsEstimator{}

func (geminiCharsEstimator) Name() string                           { return "gemini-content-chars" }
func (geminiCharsEstimator) Exact() bool                            { return false }
func (geminiCharsEstimator) Count(text string) int                  { return transcript.UTF16Len(text) }
func (geminiCharsEstimator) CountMessage(m *transcript.Message) int { return geminiContentLen(m) }

// geminiContentLen approximates JSON.stringify(content).length for a
// Gemini Content: {"role":…,"parts":[…]}.
func geminiContentLen(m *transcript.Message) int {
	_, units := transcript.ContentJSONSize(m.Blocks)
	return len(`{"role":"user","parts":`) + 1 + units
}

// Guarantees: gemini-cli discards a compression only when it inflates the
// count, so one that saves nothing (re-summarizing its own summary) is
// kept: shrinking is not guaranteed (google-gemini/gemini-cli #6563).
func (p *geminiPolicy) Guarantees() Guarantees {
	return Guarantees{SummaryRole: transcript.RoleUser, SummaryFirst: true}
}
