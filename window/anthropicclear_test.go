package window

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// clearSessions are generated sessions for the clear-tool-uses checks:
// tool-heavy and not, with thinking in every assistant message, with
// bills that rise and fall (the trigger fires, stops and fires again),
// and with tool ids used twice, results answering an earlier call's id
// and results before their call.
func clearSessions(t *testing.T, calls, seeds int) []*transcript.Transcript {
	t.Helper()
	var out []*transcript.Transcript
	for seed := range uint64(seeds) {
		for _, ratio := range []float64{1, 0.7} {
			o := fixtures.DefaultGenOptions
			o.Calls, o.Seed, o.ToolRatio = calls, seed+1, ratio
			tr, err := fixtures.GenerateTranscript(o)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tr)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	mutated := func(tr *transcript.Transcript, id string, f func(m *transcript.Message)) *transcript.Transcript {
		c := *tr
		c.ID = tr.ID + "-" + id
		c.Messages = slices.Clone(tr.Messages)
		for i := range c.Messages {
			c.Messages[i].Blocks = slices.Clone(c.Messages[i].Blocks)
			f(&c.Messages[i])
		}
		return &c
	}
	base := out[0]
	out = append(out, mutated(base, "thinking", func(m *transcript.Message) {
		if m.Role == transcript.RoleAssistant {
			m.Blocks = append([]transcript.Block{{Type: transcript.BlockThinking, Text: "let me think about it"}}, m.Blocks...)
		}
	}))
	out = append(out, mutated(out[1], "bills", func(m *transcript.Message) {
		if m.Role == transcript.RoleAssistant {
			m.Usage = &transcript.Usage{Input: int64(r.IntN(40_000)), Output: 10}
		}
	}))
	var ids []string
	out = append(out, mutated(base, "ids", func(m *transcript.Message) {
		for j := range m.Blocks {
			b := &m.Blocks[j]
			if b.Type == transcript.BlockToolUse {
				ids = append(ids, b.ID)
			}
			if (b.Type == transcript.BlockToolUse || b.Type == transcript.BlockToolResult) && len(ids) > 0 && r.IntN(8) == 0 {
				b.ID = ids[r.IntN(len(ids))] // used twice, or answering another call
			}
			if b.Type == transcript.BlockToolResult && r.IntN(10) == 0 {
				b.ID = fmt.Sprintf("toolu_later_%d", r.IntN(40)) // before its call, or with none
			}
			if b.Type == transcript.BlockToolUse && r.IntN(10) == 0 {
				b.ID = fmt.Sprintf("toolu_later_%d", r.IntN(40))
			}
		}
	}))
	return out
}

// clearSpecs are the clear-tool-uses and clear-thinking settings and
// chains checked (clear-thinking never fires: it edits at every call).
var clearSpecs = []string{
	"anthropic-clear-tool-uses:trigger=30000",
	"anthropic-clear-tool-uses:trigger=5000,keep=1",
	"anthropic-clear-tool-uses:trigger=2000,keep=0,clear_tool_inputs=true",
	"anthropic-clear-tool-uses:trigger=0,trigger_tool_uses=5,keep=2,clear_tool_inputs=Bash|Read",
	"anthropic-clear-tool-uses:trigger=3000,exclude_tools=Read|Grep,clear_at_least=2000,placeholder=gone",
	"anthropic-clear-tool-uses:trigger=1000,keep=2,clear_at_least=20000",
	"anthropic-clear-thinking:keep=1+anthropic-clear-tool-uses:trigger=3000,keep=1,clear_tool_inputs=true",
	"anthropic-clear-tool-uses:trigger=3000+anthropic-clear-thinking:keep=0",
	"anthropic-clear-thinking:keep=0+anthropic-clear-tool-uses:trigger=2000,keep=1",
	"anthropic-compaction:trigger=50000+anthropic-clear-tool-uses:trigger=10000,keep=2",
	"anthropic-clear-thinking:keep=1",
	"anthropic-clear-thinking:keep=0",
	"anthropic-clear-thinking:keep=3",
	"anthropic-compaction:trigger=50000+anthropic-clear-thinking:keep=1+anthropic-clear-tool-uses:trigger=10000,keep=2",
	"aidf:max_messages=40+anthropic-clear-thinking:keep=1+anthropic-clear-tool-uses:trigger=3000,keep=1",
	"anthropic-clear-tool-uses:trigger=3000,keep=2+aidf:max_messages=30",
}

// wholeOf returns p with its clear-tool-uses, its clear-thinking and its
// chain computing each call whole.
func wholeOf(p Policy) Policy {
	switch p := p.(type) {
	case *anthropicClearTools:
		return wholeClearTools{p}
	case *anthropicClearThinking:
		return wholeClearThinking{p}
	case *chainPolicy:
		c := &chainPolicy{}
		for _, q := range p.parts {
			c.parts = append(c.parts, wholeOf(q))
		}
		return wholeChain{c}
	}
	return p
}

// TestClearToolUsesIncremental: anthropic-clear-tool-uses keeping its
// state from call to call sends, clears, fires and warns exactly as
// computing every call whole does (wholeClearTools), alone and chained,
// on generated sessions of the shapes of clearSessions: the same
// histories item for item and content for content, each message a new
// copy at the same calls (what the prompt cache sees), the same ids
// cut.
func TestClearToolUsesIncremental(t *testing.T) {
	calls, seeds := 200, 2
	if testing.Short() {
		calls, seeds = 100, 1
	}
	fired, cut := map[string]int{}, map[string]int{}
	for k, tr := range clearSessions(t, calls, seeds) {
		for _, spec := range clearSpecs {
			inc := mustPolicy(t, spec)
			type sent struct {
				step  Step
				items []Item
				msgs  []transcript.Message
			}
			// Every other session, the incremental policy may build in
			// the arrays of what it sent (as the replay command lets it).
			run := func(p Policy, reuse bool) []sent {
				var out []sent
				env := &Env{Transcript: tr, Count: policytest.CacheCount(), Summarizer: &summarize.Mock{}, ReuseSent: reuse}
				policytest.Drive(t, p, tr, env, func(_, _ int, step Step, _ *State) {
					s := sent{step: step, items: slices.Clone(step.History)}
					for _, it := range step.History {
						s.msgs = append(s.msgs, *it.Msg)
					}
					out = append(out, s)
				})
				return out
			}
			got, want := run(inc, k%2 == 1), run(wholeOf(inc), false)
			for c := range want {
				w, g := want[c], got[c]
				if wi, gi := ids(w.items), ids(g.items); !slices.Equal(wi, gi) {
					t.Fatalf("%s on %s, call %d: sent (-whole +incremental):\n%s", spec, tr.ID, c, cmp.Diff(wi, gi))
				}
				for i := range w.items {
					wi, gi := w.items[i], g.items[i]
					if wi.Truncated != gi.Truncated || wi.Summary != gi.Summary || wi.Index() != gi.Index() || !reflect.DeepEqual(w.msgs[i], g.msgs[i]) {
						t.Fatalf("%s on %s, call %d: item %s: whole %+v %+v, incremental %+v %+v", spec, tr.ID, c, wi.ID, wi, w.msgs[i], gi, g.msgs[i])
					}
					if k := wi.Index(); k >= 0 && (wi.Msg == &tr.Messages[k]) != (gi.Msg == &tr.Messages[k]) {
						t.Fatalf("%s on %s, call %d: item %s: the original in one, a copy in the other", spec, tr.ID, c, wi.ID)
					}
					if c > 0 && i < len(want[c-1].items) && (wi.Msg == want[c-1].items[i].Msg) != (gi.Msg == got[c-1].items[i].Msg) {
						t.Fatalf("%s on %s, call %d: item %s: a new copy in one, the previous call's in the other", spec, tr.ID, c, wi.ID)
					}
				}
				w.step.History, g.step.History = nil, nil
				if !reflect.DeepEqual(w.step, g.step) {
					t.Fatalf("%s on %s, call %d: step (-whole +incremental):\n%s", spec, tr.ID, c, cmp.Diff(w.step, g.step))
				}
				if w.step.Fired != nil {
					fired[spec]++
				}
				cut[spec] += len(w.step.Truncated)
			}
			if len(got) != len(want) {
				t.Fatalf("%s on %s: %d calls, whole %d", spec, tr.ID, len(got), len(want))
			}
		}
	}
	// The comparison means something only where the edits run.
	for _, spec := range clearSpecs {
		if fired[spec] == 0 && !strings.HasPrefix(spec, AnthropicClearThinking+":") || cut[spec] == 0 {
			t.Errorf("%s fired %d times and cut %d items: the sessions do not exercise it", spec, fired[spec], cut[spec])
		}
	}
}

// TestClearStateWhole: the count clear-tool-uses keeps of the positions
// of its client history that are not the transcript's messages as
// written says what serveredit.IsWholeHistory finds looking at every item, at every
// call, alone and in chains, on the sessions of clearSessions.
func TestClearStateWhole(t *testing.T) {
	seen := map[bool]int{}
	for _, tr := range clearSessions(t, 100, 1) {
		for _, spec := range clearSpecs {
			if !strings.Contains(spec, AnthropicClearToolUses) {
				continue
			}
			env := &Env{Transcript: tr, Count: policytest.CacheCount(), Summarizer: &summarize.Mock{}}
			policytest.Drive(t, mustPolicy(t, spec), tr, env, func(_, _ int, _ Step, st *State) {
				states := []*State{st}
				if cs, ok := st.Data.(*chainState); ok {
					states = cs.sub
				}
				for _, s := range states {
					ss, _ := s.Data.(*serveredit.State)
					if ss == nil {
						continue
					}
					cs, _ := ss.Own.(*clearState)
					if cs == nil {
						continue
					}
					want := serveredit.IsWholeHistory(env, cs.client)
					if got := cs.whole(env); got != want {
						t.Fatalf("%s on %s, call %d: whole %v, IsWholeHistory %v", spec, tr.ID, env.Call, got, want)
					}
					seen[want]++
				}
			})
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("the sessions give a whole history %d times and another %d times: want both", seen[true], seen[false])
	}
}
