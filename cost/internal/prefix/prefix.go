// Package prefix is the prompt cache a provider keeps, as cost simulates
// it: requests of named positions with token counts, and the longest
// prefix a new request shares with one still alive.
package prefix

import (
	"slices"
	"time"
)

// A Cache holds the requests whose prefixes the provider keeps, in
// the order they were sent: the longest prefix a new request shares with
// a live one is read from the cache.
//
// It finds that prefix without comparing whole requests: each entry
// remembers how many positions it shares with the request sent last, so
// a new request is compared with the last one (from where the run's
// contexts are known to agree: the hint [Cache.Send] is given) and every other
// entry's shared prefix follows from its own and that one. Only an entry
// that diverged from the last request at the same place as the new one
// is compared further, from that place. So a call costs what changed,
// not the size of its prompt, and the result is the same as comparing
// every entry whole (cost's TestPrefixCacheMatchesWholeComparison).
type Cache struct {
	entries []cacheEntry
	latest  Request // the request stored last (live or not)
	stored  bool    // whether latest is set
	ttl     time.Duration
}

type cacheEntry struct {
	req Request
	// shared is the positions req shares with the cache's latest.
	shared  int
	expires time.Time
}

// MaxEntries bounds the requests a cache holds: old entries are long
// expired in practice.
const MaxEntries = 64

// New returns an empty cache whose entries live ttl after they were
// last sent or read.
func New(ttl time.Duration) *Cache { return &Cache{ttl: ttl} }

// Send looks req up and stores it, at at (zero: no expiry). It returns
// the tokens of the longest prefix of req shared with a live entry —
// refreshing that entry's lifetime — and the positions req shares with
// the request sent before it (live or not; 0 for the first). hint is a
// number of positions req is known to share with that request.
func (c *Cache) Send(req Request, at time.Time, hint int) (read, shared int) {
	if c.stored {
		shared = extendShared(&c.latest, &req, min(hint, c.latest.Positions(), req.Positions()))
	}
	live := c.entries[:0]
	for _, e := range c.entries {
		if !at.IsZero() && !e.expires.IsZero() && at.After(e.expires) {
			continue // expired
		}
		live = append(live, e)
	}
	clear(c.entries[len(live):])
	c.entries = live
	best, bestAt := 0, -1
	for k := range c.entries {
		e := &c.entries[k]
		// e and req agree with latest up to e.shared and shared: below the
		// smaller of the two they agree with each other, and there they
		// differ, unless both left latest at the same place.
		n := min(e.shared, shared)
		if e.shared == shared {
			n = extendShared(&e.req, &req, n)
		}
		e.shared = n // with req, the latest from here on
		if t := e.req.Tokens(n); t > best {
			best, bestAt = t, k
		}
	}
	if bestAt >= 0 && !at.IsZero() {
		c.entries[bestAt].expires = at.Add(c.ttl)
	}
	var exp time.Time
	if !at.IsZero() {
		exp = at.Add(c.ttl)
	}
	c.entries = append(c.entries, cacheEntry{req: req, shared: req.Positions(), expires: exp})
	if n := len(c.entries) - MaxEntries; n > 0 {
		c.entries = append(c.entries[:0], c.entries[n:]...)
	}
	c.latest, c.stored = req, true
	return best, shared
}

// extendShared returns how many positions a and b share, given that
// they share the first n.
func extendShared(a, b *Request, n int) int {
	for n < a.Positions() && n < b.Positions() && a.same(b, n) {
		n++
	}
	return n
}

// A Request is one call's prompt as the cache sees it: position 0 is the
// constant part (system prompt, tools), which leads every request; then
// a position per item sent, named by a key — an original message by its
// id, a copy or a synthetic message by its id and its content (a
// truncated copy keeps the id of its original but not its content).
//
// Its items are in chunks that requests share: a request that keeps the
// start of the one before and changes the rest holds the same chunks up
// to the change, so the 64 requests a cache keeps of a long context that
// a policy edits near its end (prune, truncation) hold it about once, not
// 64 times, and building one costs what changed.
type Request struct {
	chunks []*chunk
	n      int // items
	// constant is the tokens of position 0; total of the whole prompt.
	constant int
	total    int
}

// ChunkSize is the items of a chunk.
const ChunkSize = 512

// A chunk holds up to ChunkSize consecutive items of requests: each
// one's key and the tokens of the request's items up to and including
// it. Items are only appended: the requests that share a chunk read the
// ones they hold, which are never written again.
type chunk struct {
	keys []string
	cum  []int
}

// Positions returns the request's positions, the constant's included.
func (r *Request) Positions() int { return r.n + 1 }

// item returns the chunk and index of item i.
func (r *Request) item(i int) (*chunk, int) { return r.chunks[i/ChunkSize], i % ChunkSize }

// same reports whether r and o hold the same thing at position j.
func (r *Request) same(o *Request, j int) bool { return j == 0 || r.Key(j) == o.Key(j) }

// Tokens returns the tokens of r's first n positions.
func (r *Request) Tokens(n int) int {
	if n <= 1 {
		return r.constant * n
	}
	c, k := r.item(n - 2)
	return r.constant + c.cum[k]
}

// Key returns the key of position j.
func (r *Request) Key(j int) string {
	if j == 0 {
		return "#constant"
	}
	c, k := r.item(j - 1)
	return c.keys[k]
}

// Items returns the request's items, the constant not counted.
func (r *Request) Items() int { return r.n }

// Total returns the tokens of the whole prompt.
func (r *Request) Total() int { return r.total }

// Keep returns a request of r's first kept items (at most r's), led by a
// constant of constant tokens, of total tokens in all once its items
// are appended ([Request.Append]); items is how many it is to hold. The
// chunks of the kept items are shared with r, but for a last one that
// others wrote past the kept items in, which is copied.
func (r *Request) Keep(kept, items, constant, total int) Request {
	full := kept / ChunkSize
	chunks := make([]*chunk, full, (items+ChunkSize-1)/ChunkSize+1)
	copy(chunks, r.chunks[:full])
	if part := kept % ChunkSize; part > 0 {
		c := r.chunks[full]
		if len(c.keys) != part {
			c = &chunk{keys: slices.Clone(c.keys[:part]), cum: slices.Clone(c.cum[:part])}
		}
		chunks = append(chunks, c)
	}
	return Request{chunks: chunks, n: kept, constant: constant, total: total}
}

// Append adds an item named key of tokens tokens at the request's end.
func (r *Request) Append(key string, tokens int) {
	sum := 0
	if r.n > 0 {
		c, k := r.item(r.n - 1)
		sum = c.cum[k]
	}
	if r.n%ChunkSize == 0 {
		r.chunks = append(r.chunks, &chunk{})
	}
	c := r.chunks[r.n/ChunkSize]
	c.keys, c.cum = append(c.keys, key), append(c.cum, sum+tokens)
	r.n++
}

// TTL returns how long an entry lives after it was last sent or read.
func (c *Cache) TTL() time.Duration { return c.ttl }

// SetTTL sets how long the entries stored from now on live, and those
// refreshed.
func (c *Cache) SetTTL(ttl time.Duration) { c.ttl = ttl }
