package window

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// A chain applies policies in order at each call, each to what the one
// before it sends: "anthropic-clear-thinking+anthropic-clear-tool-uses"
// is the request's context_management edits in the order the API applies
// them. Its SPEC is the parts' SPECs joined by "+"; its parameters are
// the parts', each named "policy.param".
//
// The provider's edits (each a serveredit.Server) apply to each request
// anew: they edit the client's history, which keeps every message as the
// agent wrote it. The chain gives them that history: the copies the edits made
// at earlier calls are sent as their originals again before the edits
// run.
type chainPolicy struct {
	parts []Policy
}

func newChain(names []string, params map[string]string) (Policy, error) {
	if len(names) < 2 {
		return nil, fmt.Errorf("a chain needs two policies or more")
	}
	per := map[string]map[string]string{}
	for _, n := range names {
		if per[n] != nil {
			return nil, fmt.Errorf("policy %s twice in a chain", n)
		}
		per[n] = map[string]string{}
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		n, key, ok := strings.Cut(k, ".")
		if !ok || per[n] == nil {
			return nil, fmt.Errorf("chain %s: parameter %q is not POLICY.PARAM of one of its policies", strings.Join(names, "+"), k)
		}
		per[n][key] = params[k]
	}
	c := &chainPolicy{}
	for _, n := range names {
		p, err := New(n, per[n])
		if err != nil {
			return nil, err
		}
		c.parts = append(c.parts, p)
	}
	return c, nil
}

func (c *chainPolicy) Name() string {
	names := make([]string, len(c.parts))
	for i, p := range c.parts {
		names[i] = p.Name()
	}
	return strings.Join(names, "+")
}

// Params are the parts' parameters, each named "policy.param".
func (c *chainPolicy) Params() Values {
	out := Values{}
	for _, p := range c.parts {
		for k, v := range p.Params() {
			out[p.Name()+"."+k] = v
		}
	}
	return out
}

// chainState is a chain's state: a State per part, and the history
// given at the previous call with the provider's copies restored, kept
// so that a call restores what changed since (an item given that is the
// one given there at the previous call is restored as it was then).
type chainState struct {
	sub []*State
	// servers are the states of the parts that are provider's edits:
	// the copies they made (their made) are what the chain restores.
	servers []*serveredit.State

	tr   *transcript.Transcript
	base *transcript.Message // &tr.Messages[0]: the originals' addresses
	hist []Item              // the history given at the previous call
	// client is hist with the copies restored; cut[i] says hist[i] is
	// one of the copies, cutIDs counts the positions cut of each id.
	client []Item
	cut    []bool
	cutIDs map[string]int
	// count holds how many positions of hist hold each message.
	count map[*transcript.Message]int
	// cc is what the parts that are provider's edits are told of cut.
	cc policy.ChainCut
	// calls counts the chain's calls; given is what each part is told of
	// the history it is given (past the first part, its changed is anew).
	calls int
	given policy.GivenHint
	anew  []int
}

func (c *chainPolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	cs, _ := st.Data.(*chainState)
	if cs == nil {
		cs = &chainState{}
		cs.cc.WasCut = cs.wasCut
		for _, p := range c.parts {
			s := &State{}
			cs.sub = append(cs.sub, s)
			if _, ok := p.(serveredit.Server); ok {
				ss := serveredit.Of(env, s)
				ss.Log = true
				cs.servers = append(cs.servers, ss)
			}
		}
		st.Data = cs
	}
	// When something reads what the chain sent after the call, the parts
	// must not build in its arrays, nor it be the chain's own.
	sub := *env
	n := len(cs.client)
	cs.sync(env, hist)
	cs.calls++
	cs.given = policy.GivenHint{Call: cs.calls, OK: true, N: n, Changed: cs.cc.Changed}
	sub.Given = &cs.given
	h := slices.Clip(cs.client)
	if !env.ReuseSent {
		h = slices.Clone(cs.client)
	}
	var step Step
	for i, p := range c.parts {
		_, server := p.(serveredit.Server)
		sub.ChainCut = nil
		if server {
			sub.ChainCut = &cs.cc
		}
		s, err := p.Apply(ctx, &sub, cs.sub[i], h)
		if err != nil {
			return Step{}, err
		}
		for _, id := range s.Evicted {
			if !slices.Contains(step.Evicted, id) {
				step.Evicted = append(step.Evicted, id)
			}
		}
		// What the provider's edits sent cut at the previous call and
		// cut again is not news.
		for _, id := range s.Truncated {
			if !slices.Contains(step.Truncated, id) && !(server && cs.cutIDs[id] > 0) {
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
		cs.tell(p, cs.sub[i])
	}
	step.History = h
	// A copy made at this call that is in the history given is to be
	// restored where it is given again: the next call looks at each item.
	stale := false
	for _, ss := range cs.servers {
		for _, m := range ss.Added {
			if m, ok := m.(*transcript.Message); ok && cs.count[m] > 0 {
				stale = true
			}
		}
		ss.Added = ss.Added[:0]
	}
	if stale {
		cs.reset(env.Transcript)
	}
	return step, nil
}

// tell makes cs.given what the part after p, which sent its history
// with state st, is told of it.
func (cs *chainState) tell(p Policy, st *State) {
	g := &cs.given
	g.OK = false
	if t, ok := p.(serveredit.AnewTeller); ok {
		var changed []int
		changed, g.N, g.OK = t.SentAnew(st, cs.calls)
		cs.anew = append(cs.anew[:0], changed...)
		slices.Sort(cs.anew)
		cs.anew = slices.Compact(cs.anew)
		g.Changed = cs.anew
	}
}

// made reports whether m is one of the copies the provider's edits made.
func (cs *chainState) made(m *transcript.Message) bool {
	for _, ss := range cs.servers {
		if ss.Made[m] {
			return true
		}
	}
	return false
}

// reset empties cs's history for transcript t.
func (cs *chainState) reset(t *transcript.Transcript) {
	cs.tr, cs.base = t, nil
	if len(t.Messages) > 0 {
		cs.base = &t.Messages[0]
	}
	cs.hist, cs.client, cs.cut = cs.hist[:0], cs.client[:0], cs.cut[:0]
	cs.cutIDs, cs.count = map[string]int{}, map[*transcript.Message]int{}
}

// sync brings cs to the history hist.
func (cs *chainState) sync(env *Env, hist []Item) {
	t := env.Transcript
	if cs.tr != t || len(t.Messages) > 0 && cs.base != &t.Messages[0] || len(hist) < len(cs.hist) {
		cs.reset(t)
	}
	cs.cc.Changed = cs.cc.Changed[:0]
	for i, was := range cs.hist {
		if it := hist[i]; it != was {
			cs.drop(i)
			cs.set(i, it)
		}
	}
	for i := len(cs.hist); i < len(hist); i++ {
		cs.hist, cs.client, cs.cut = append(cs.hist, Item{}), append(cs.client, Item{}), append(cs.cut, false)
		cs.set(i, hist[i])
	}
}

// drop takes position i's item out of the counts.
func (cs *chainState) drop(i int) {
	m := cs.hist[i].Msg
	if cs.count[m]--; cs.count[m] == 0 {
		delete(cs.count, m)
	}
	if id := cs.hist[i].ID; cs.cut[i] {
		if cs.cutIDs[id]--; cs.cutIDs[id] == 0 {
			delete(cs.cutIDs, id)
		}
	}
}

// set puts it at position i: the client's history has the original
// there where it is one of the copies.
func (cs *chainState) set(i int, it Item) {
	cs.hist[i], cs.client[i], cs.cut[i] = it, it, cs.made(it.Msg)
	cs.cc.Changed = append(cs.cc.Changed, i)
	cs.count[it.Msg]++
	if cs.cut[i] {
		cs.client[i] = Original(cs.tr, it.Index())
		cs.cutIDs[it.ID]++
	}
}

// Guarantees: a chain promises that no tool result goes without its
// call when every part does.
func (c *chainPolicy) Guarantees() Guarantees {
	for _, p := range c.parts {
		g, ok := p.(policy.Guarantor)
		if !ok || !g.Guarantees().PairSafe {
			return Guarantees{}
		}
	}
	return Guarantees{PairSafe: true}
}

// wasCut reports whether the chain's item at position i has id id and
// was sent cut at the previous call.
func (cs *chainState) wasCut(i int, id string) bool {
	return i < len(cs.hist) && cs.cut[i] && cs.hist[i].ID == id
}
