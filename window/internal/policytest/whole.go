package policytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// A WholeChain applies Parts in order at each call, as window's chain
// does, but keeps nothing of the history from call to call: every call
// restores the copies the provider's edits made, from a set of them it
// builds from each server part's history in and out, and tells the
// parts nothing of what changed (no Env.Given, no Env.ChainCut). It is
// the reference the chain, and the provider's edits chained, are held
// to.
type WholeChain struct {
	Parts []policy.Policy
}

// A WholeChainState is a WholeChain's state.
type WholeChainState struct {
	// Sub are the parts' states, in order.
	Sub  []*policy.State
	made map[any]bool
}

// Name is the parts' names joined by "+".
func (c WholeChain) Name() string {
	names := make([]string, len(c.Parts))
	for i, p := range c.Parts {
		names[i] = p.Name()
	}
	return strings.Join(names, "+")
}

// Params are the parts' parameters, each named "policy.param".
func (c WholeChain) Params() policy.Values {
	out := policy.Values{}
	for _, p := range c.Parts {
		for k, v := range p.Params() {
			out[p.Name()+"."+k] = v
		}
	}
	return out
}

// Apply applies the parts in order to the client's history.
func (c WholeChain) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	cs, _ := st.Data.(*WholeChainState)
	if cs == nil {
		cs = &WholeChainState{made: map[any]bool{}}
		for range c.Parts {
			cs.Sub = append(cs.Sub, &policy.State{})
		}
		st.Data = cs
	}
	sub := *env
	sub.ReuseSent = false
	h := serveredit.RestoreCopies(env, cs.made, hist)
	wasCut := map[string]bool{}
	for _, it := range hist {
		if cs.made[it.Msg] {
			wasCut[it.ID] = true
		}
	}
	var step policy.Step
	for i, p := range c.Parts {
		s, err := p.Apply(ctx, &sub, cs.Sub[i], h)
		if err != nil {
			return policy.Step{}, err
		}
		_, server := p.(serveredit.Server)
		if server {
			before := map[any]bool{}
			for _, it := range h {
				before[it.Msg] = true
			}
			for _, it := range s.History {
				if !before[it.Msg] && it.Index() >= 0 {
					cs.made[it.Msg] = true
				}
			}
		}
		for _, id := range s.Evicted {
			if !slices.Contains(step.Evicted, id) {
				step.Evicted = append(step.Evicted, id)
			}
		}
		for _, id := range s.Truncated {
			if !slices.Contains(step.Truncated, id) && !(server && wasCut[id]) {
				step.Truncated = append(step.Truncated, id)
			}
		}
		if s.Summary != nil {
			step.Summary = s.Summary
		}
		if s.Fired != nil {
			step.Fired = s.Fired
		}
		for _, w := range s.Warnings {
			step.Warnings = append(step.Warnings, p.Name()+": "+w)
		}
		h = s.History
	}
	step.History = h
	return step, nil
}

// EditSessions are generated sessions for the checks of the provider's
// edits: tool-heavy and not, with thinking in every assistant message,
// with bills that rise and fall (a trigger fires, stops and fires
// again), and with tool ids used twice, results answering an earlier
// call's id and results before their call.
func EditSessions(t testing.TB, calls, seeds int) []*transcript.Transcript {
	t.Helper()
	var out []*transcript.Transcript
	for seed := range uint64(seeds) {
		for _, ratio := range []float64{1, 0.7} {
			o := fixtures.DefaultGenOptions
			o.Calls, o.Seed, o.ToolRatio = calls, seed+1, ratio
			tr, err := conformance.Generated(o)
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

// SameAsWhole replays tr through inc and through whole, its reference,
// and fails t where a call differs: the histories sent item for item and
// content for content, each message a new copy at the same calls (what
// the prompt cache sees), and the steps (ids cut, firings, warnings).
// With reuse, inc may build in the arrays of what it sent (as the replay
// command lets it). It returns how often the reference fired and how
// many items it cut.
func SameAsWhole(t testing.TB, spec string, tr *transcript.Transcript, inc, whole policy.Policy, reuse bool) (fired, cut int) {
	t.Helper()
	type sent struct {
		step  policy.Step
		items []policy.Item
		msgs  []transcript.Message
	}
	run := func(p policy.Policy, reuse bool) []sent {
		var out []sent
		env := &policy.Env{Transcript: tr, Count: CacheCount(), Summarizer: &summarize.Mock{}, ReuseSent: reuse}
		Drive(t, p, tr, env, func(_, _ int, step policy.Step, _ *policy.State) {
			s := sent{step: step, items: slices.Clone(step.History)}
			for _, it := range step.History {
				s.msgs = append(s.msgs, *it.Msg)
			}
			out = append(out, s)
		})
		return out
	}
	got, want := run(inc, reuse), run(whole, false)
	for c := range want {
		w, g := want[c], got[c]
		if wi, gi := policy.ItemIDs(w.items), policy.ItemIDs(g.items); !slices.Equal(wi, gi) {
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
			fired++
		}
		cut += len(w.step.Truncated)
	}
	if len(got) != len(want) {
		t.Fatalf("%s on %s: %d calls, whole %d", spec, tr.ID, len(got), len(want))
	}
	return fired, cut
}
