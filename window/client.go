package window

// A clientHistory is the history an agent keeps apart from what it sends:
// every message the policy has been given, none edited, less the turns
// the user rolled back. A policy whose source derives what it sends anew
// from every message at each call (the ralph loop, an application that
// calls pruneMessages) keeps one, since the history the replay gives it
// is what it sent before plus the turn since.
type clientHistory struct {
	items []Item
	ids   []string // the ids of items
	last  int      // the index of the newest original in items (-1: none)
	next  int      // the Next of the previous call
	gen   int      // how many times a rollback made items anew
}

func newClientHistory() clientHistory { return clientHistory{last: -1} }

// follow brings h up to the history before this call: the originals at
// the end of hist beyond the newest h holds, less the turns the user
// rolled back since the previous call. It returns the items it added, or
// with rebuilt true all of h's when a rollback made them anew.
func (h *clientHistory) follow(env *Env, hist []Item) (added []Item, rebuilt bool) {
	if env != nil && env.Transcript != nil {
		for _, rb := range env.Transcript.Rollbacks {
			if rb.Index <= h.next || rb.Index > env.Next {
				continue
			}
			kept := make([]Item, 0, len(h.items))
			h.ids = make([]string, 0, len(h.items))
			for _, it := range h.items {
				if i := it.Index(); i < 0 || !rb.Drops(i) {
					kept = append(kept, it)
					h.ids = append(h.ids, it.ID)
				}
			}
			h.items, rebuilt = kept, true
			h.gen++
		}
		h.next = env.Next
	}
	k := len(hist)
	for k > 0 && hist[k-1].Index() > h.last {
		k--
	}
	from := len(h.items)
	for _, it := range hist[k:] {
		h.items = append(h.items, it)
		h.ids = append(h.ids, it.ID)
		h.last = it.Index()
	}
	if rebuilt {
		return h.items, true
	}
	return h.items[from:], false
}
