// Package client holds what the policies modelling an agent's or an
// SDK's own history share: the history a client keeps apart from what it
// sends, and the tool-name lists their parameters give.
package client

import (
	"strings"

	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// A History is the history an agent keeps apart from what it sends:
// every message the policy has been given, none edited, less the turns
// the user rolled back. A policy whose source derives what it sends anew
// from every message at each call (the ralph loop, an application that
// calls pruneMessages) keeps one, since the history the replay gives it
// is what it sent before plus the turn since.
type History struct {
	Items []policy.Item
	IDs   []string // the ids of Items
	Gen   int      // how many times a rollback made Items anew
	last  int      // the index of the newest original in Items (-1: none)
	next  int      // the Next of the previous call
}

// NewHistory returns an empty History.
func NewHistory() History { return History{last: -1} }

// Follow brings h up to the history before this call: the originals at
// the end of hist beyond the newest h holds, less the turns the user
// rolled back since the previous call. It returns the items it added, or
// with rebuilt true all of h's when a rollback made them anew.
func (h *History) Follow(env *policy.Env, hist []policy.Item) (added []policy.Item, rebuilt bool) {
	if env != nil && env.Transcript != nil {
		for _, rb := range env.Transcript.Rollbacks {
			if rb.Index <= h.next || rb.Index > env.Next {
				continue
			}
			kept := make([]policy.Item, 0, len(h.Items))
			h.IDs = make([]string, 0, len(h.Items))
			for _, it := range h.Items {
				if i := it.Index(); i < 0 || !rb.Drops(i) {
					kept = append(kept, it)
					h.IDs = append(h.IDs, it.ID)
				}
			}
			h.Items, rebuilt = kept, true
			h.Gen++
		}
		h.next = env.Next
	}
	k := len(hist)
	for k > 0 && hist[k-1].Index() > h.last {
		k--
	}
	from := len(h.Items)
	for _, it := range hist[k:] {
		h.Items = append(h.Items, it)
		h.IDs = append(h.IDs, it.ID)
		h.last = it.Index()
	}
	if rebuilt {
		return h.Items, true
	}
	return h.Items[from:], false
}

// NameSet reads names separated by |.
func NameSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, n := range strings.Split(s, "|") {
		if n = strings.TrimSpace(n); n != "" {
			out[n] = true
		}
	}
	return out
}
