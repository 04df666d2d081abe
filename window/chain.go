package window

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A chain applies policies in order at each call, each to what the one
// before it sends: "anthropic-clear-thinking+anthropic-clear-tool-uses"
// is the request's context_management edits in the order the API applies
// them. Its SPEC is the parts' SPECs joined by "+"; its parameters are
// the parts', each named "policy.param".
//
// The provider's edits (a serverEdit) apply to each request anew: they
// edit the client's history, which keeps every message as the agent
// wrote it. The chain gives them that history: the copies the edits made
// at earlier calls are sent as their originals again before the edits
// run.
type chainPolicy struct {
	parts []Policy
}

// A serverEdit is a policy the provider applies to each request: what it
// sends is a function of the client's history alone, whatever it sent at
// the previous call.
type serverEdit interface {
	serverSide()
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

// chainState is a chain's state: a State per part, and the copies the
// provider's edits made.
type chainState struct {
	sub  []*State
	made map[any]bool
}

func (c *chainPolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	cs, _ := st.data.(*chainState)
	if cs == nil {
		cs = &chainState{made: map[any]bool{}}
		for range c.parts {
			cs.sub = append(cs.sub, &State{})
		}
		st.data = cs
	}
	// The parts must not build in the arrays of what the chain sent.
	sub := *env
	sub.reuseSent = false
	h := restoreServerCopies(env, cs.made, hist)
	// What the provider's edits sent cut at the previous call and cut
	// again is not news.
	wasCut := map[string]bool{}
	for _, it := range hist {
		if cs.made[it.Msg] {
			wasCut[it.ID] = true
		}
	}
	var step Step
	for i, p := range c.parts {
		s, err := p.Apply(ctx, &sub, cs.sub[i], h)
		if err != nil {
			return Step{}, err
		}
		if _, ok := p.(serverEdit); ok {
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
		_, server := p.(serverEdit)
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

// restoreServerCopies returns hist with the copies in made (the
// provider's edits at earlier calls) replaced by their originals: the
// client's history.
func restoreServerCopies(env *Env, made map[any]bool, hist []Item) []Item {
	out := hist
	for k, it := range hist {
		if !made[it.Msg] {
			continue
		}
		if &out[0] == &hist[0] {
			out = slices.Clone(hist)
		}
		out[k] = Original(env.Transcript, it.Index())
	}
	return out
}

// Guarantees: a chain promises that no tool result goes without its
// call when every part does.
func (c *chainPolicy) Guarantees() Guarantees {
	for _, p := range c.parts {
		g, ok := p.(Guarantor)
		if !ok || !g.Guarantees().PairSafe {
			return Guarantees{}
		}
	}
	return Guarantees{PairSafe: true}
}
