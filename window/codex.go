package window

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// bytes4 is Codex's APPROX_BYTES_PER_TOKEN estimate: UTF-8 bytes / 4,
// rounded up, of a message's text (or its content JSON when it is not a
// single text).
// It is an estimator so that env.Counts caches it: computing the content
// JSON of the whole history at every step was half of a Codex replay.
type bytes4Estimator struct{}

var codexBytes4 estimate.Estimator = bytes4Estimator{}

func (bytes4Estimator) Name() string          { return "codex-bytes4" }
func (bytes4Estimator) Exact() bool           { return false }
func (bytes4Estimator) Count(text string) int { return (len(text) + 3) / 4 }
func (bytes4Estimator) CountMessage(m *transcript.Message) int {
	if len(m.Blocks) == 1 && m.Blocks[0].Type == transcript.BlockText {
		return (len(m.Blocks[0].Text) + 3) / 4
	}
	size, _ := transcript.ContentJSONSize(m.Blocks)
	return (size + 3) / 4
}

func bytes4(env *Env, it Item) int { return count(env, codexBytes4, it) }

// Codex's compaction (openai/codex e06dd0e5 core/src/compact.rs,
// templates/compact/{prompt,summary_prefix}.md,
// context_manager/normalize.rs).
//
// Trigger: the tokens in use reach auto_compact_ratio (0.9) of the context
// window, counted here as Codex approximates them, UTF-8 bytes / 4. The
// compacted history keeps the initial context (leading system and
// developer messages, and user messages that carry environment context or
// instructions: <environment_context>, <user_instructions>, AGENTS.md),
// then the earlier real user messages chosen newest first within
// user_message_tokens (20,000; the last one chosen is cut to fit), in
// their original order, then the summary as a user message starting with
// Codex's summary prefix. Every assistant message and tool item is dropped.
// Where the summary goes relative to the latest user message mid-turn could
// not be pinned to the source; the summary comes last, as compact.rs
// builds it. The prompt is [summarize.Generic], not Codex's checkpoint
// prompt.
type codexPolicy struct {
	base
	window, userTokens int
	ratio              float64
}

func init() {
	register(&Spec{
		Name: "codex", Source: "openai/codex e06dd0e5 core/src/compact.rs",
		Summary: "at 90% of the window, keep the initial context and the newest real user messages (≤20k tokens), drop assistant and tool items, add the summary as a user message",
		Params: []Param{
			intParam("context_window", 0, 0, none, "the model's context window; 0: the transcript model's, else 272,000 (gpt-5's)"),
			floatParam("auto_compact_ratio", 0.9, 0, 1, true, "compact at this share of the window"),
			intParam("user_message_tokens", 20_000, 0, none, "budget for the real user messages kept"),
		},
		build: func(v Values) Policy {
			return &codexPolicy{base: base{"codex", v}, window: v.Int("context_window"), ratio: v.Float("auto_compact_ratio"),
				userTokens: v.Int("user_message_tokens")}
		},
	})
}

// codexSummaryPrefix is templates/compact/summary_prefix.md.
const codexSummaryPrefix = "Another language model started to solve this problem and produced a summary of its thinking process. " +
	"You also have access to the state of the tools that were used by that language model. Use this to build on the work " +
	"that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use " +
	"the information in this summary to assist with your own analysis:\n"

func isInitialContext(it Item) bool {
	if it.Msg.Role == transcript.RoleSystem {
		return true
	}
	t := strings.TrimSpace(it.Msg.Text())
	return it.Msg.Role == transcript.RoleUser && (strings.HasPrefix(t, "<environment_context>") ||
		strings.HasPrefix(t, "<user_instructions>") || strings.HasPrefix(t, "# AGENTS.md"))
}

func (p *codexPolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	step := Step{History: hist}
	total := st.historyTokens(env, codexBytes4, hist)
	if float64(total) < p.ratio*float64(env.window(p.window, 272_000)) {
		return step, nil
	}
	var initial, users []Item
	for _, it := range hist {
		switch {
		case !it.Synthetic() && isInitialContext(it) && len(users) == 0:
			initial = append(initial, it)
		case it.Msg.Role == transcript.RoleUser && !it.Summary && !has(it, transcript.BlockToolResult) && strings.TrimSpace(it.Msg.Text()) != "":
			users = append(users, it)
		}
	}
	// The newest real user messages within the budget, the last one cut.
	var kept []Item // newest first, reversed below
	budget := p.userTokens
	for i := len(users) - 1; i >= 0 && budget > 0; i-- {
		n := bytes4(env, users[i])
		if n <= budget {
			kept = append(kept, users[i])
			budget -= n
			continue
		}
		text := users[i].Msg.Text()
		cut := text[:min(len(text), budget*4)]
		for len(cut) > 0 && !utf8.ValidString(cut) {
			cut = cut[:len(cut)-1]
		}
		c := &transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: cut}}, Pos: users[i].Msg.Pos}
		kept = append(kept, Item{ID: users[i].ID, Msg: c, Truncated: true})
		step.Truncated = append(step.Truncated, users[i].ID)
		break
	}
	slices.Reverse(kept)
	text, ev, err := summarizeItems(ctx, env, hist, "", summarize.Generic)
	if err != nil {
		return Step{}, err
	}
	step.Summary = ev
	if ev.Error != "" {
		warnf(&step, "compaction failed, history kept: %s", ev.Error)
		step.Truncated = nil
		return step, nil
	}
	s := st.newItem(transcript.RoleUser, codexSummaryPrefix+text, true)
	ev.ID = s.ID
	out := append(append(append([]Item{}, initial...), kept...), s)
	step.Evicted = evictedFrom(hist, out)
	step.History = out
	return step, nil
}

func (p *codexPolicy) Guarantees() Guarantees {
	return Guarantees{SummaryRole: transcript.RoleUser, Compacts: true}
}
