package policy

import "slices"

// A GivenHint tells a part of a chain which items of the history it is
// given may differ from those it was given at the chain's previous call,
// so that the part compares those alone and not every item. The chain
// knows: its first part is given the chain's client history, whose
// positions the chain sets itself (ChainCut.Changed), and each next part
// what the part before it sent, where that part tells what it sent anew
// (see Differing).
type GivenHint struct {
	// Call counts the chain's calls, this one included.
	Call int
	// OK says that the history given is, item for item, the one given
	// at call-1, of length n, but at the positions changed lists
	// (ascending, each once) and past n.
	OK      bool
	N       int
	Changed []int
}

// CallOf returns the chain's call h is given at (0: not in a chain).
func (h *GivenHint) CallOf() int {
	if h == nil {
		return 0
	}
	return h.Call
}

// Differing calls f, in ascending order, with each position i below
// len(prev) at which hist holds another item than prev, the history the
// part was given at its previous call (at: the chain's call then, 0 for
// none); it stops when f returns false. Where h knows what changed
// since, it compares those positions alone.
func (h *GivenHint) Differing(at int, prev, hist []Item, f func(i int, it Item) bool) {
	if h != nil && h.OK && at > 0 && at == h.Call-1 && len(prev) == h.N {
		for _, i := range h.Changed {
			if i < len(prev) && hist[i] != prev[i] && !f(i, hist[i]) {
				return
			}
		}
		return
	}
	for i, was := range prev {
		if it := hist[i]; it != was && !f(i, it) {
			return
		}
	}
}

// A ChainCut tells a part of a chain that is a provider's edit which
// items of the chain's history were the provider's copies, sent cut at
// the previous call: the chain leaves their ids out of what the part
// cuts, and the part may leave them out itself.
type ChainCut struct {
	// Changed lists the positions whose item changed at this call.
	Changed []int
	// WasCut reports whether the chain's item at position i has id id
	// and was sent cut at the previous call.
	WasCut func(i int, id string) bool
}

// Was reports whether the chain's item at position i has id id and was
// sent cut at the previous call.
func (c *ChainCut) Was(i int, id string) bool {
	return c != nil && c.WasCut(i, id)
}

// Note adds to list, the positions (below n) a part checks again for
// what it cuts, those whose Was may have changed at this call.
func (c *ChainCut) Note(list []int, n int) []int {
	if c == nil {
		return list
	}
	for _, i := range c.Changed {
		if i < n {
			list = append(list, i)
		}
	}
	if len(list) > 2*n+64 {
		slices.Sort(list)
		list = slices.Compact(list)
	}
	return list
}
