package cost

import (
	"hash/fnv"
	"slices"
	"strconv"
	"time"
	"weak"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// Cache simulations.
const (
	// cacheAnthropic: the client marks the end of each request as a cache
	// breakpoint; the longest prefix, on message boundaries, shared with a
	// previous request still alive (5 minutes, refreshed on use) is read
	// from the cache, the rest written.
	cacheAnthropic = "anthropic"
	// cacheOpenAI: automatic for prompts of 1,024 tokens or more; the
	// shared prefix is cached in 128-token increments from 1,024, with no
	// write cost.
	cacheOpenAI = "openai"
	// cacheNone: every prompt token is uncached input.
	cacheNone = "none"
)

// Cache parameters.
const (
	cacheTTL        = 5 * time.Minute
	openAIMinCached = 1024
	openAIIncrement = 128
)

// cacheSimFor returns the simulation a provider's cache follows.
func cacheSimFor(provider string) string {
	switch provider {
	case "anthropic":
		return cacheAnthropic
	case "openai", "gemini", "deepseek", "azure", "vertex_ai":
		return cacheOpenAI
	}
	return cacheNone
}

// A prefixCache holds the requests whose prefixes the provider keeps, in
// the order they were sent: the longest prefix a new request shares with
// a live one is read from the cache.
//
// It finds that prefix without comparing whole requests: each entry
// remembers how many positions it shares with the request sent last, so
// a new request is compared with the last one (from where the run's
// contexts are known to agree, see [replay.Step.Kept]) and every other
// entry's shared prefix follows from its own and that one. Only an entry
// that diverged from the last request at the same place as the new one
// is compared further, from that place. So a call costs what changed,
// not the size of its prompt, and the result is the same as comparing
// every entry whole (TestPrefixCacheMatchesWholeComparison).
type prefixCache struct {
	entries []cacheEntry
	latest  request // the request stored last (live or not)
	stored  bool    // whether latest is set
	ttl     time.Duration
}

type cacheEntry struct {
	req request
	// shared is the positions req shares with the cache's latest.
	shared  int
	expires time.Time
}

// maxCacheEntries bounds the requests a cache holds: old entries are long
// expired in practice.
const maxCacheEntries = 64

func newPrefixCache() *prefixCache { return &prefixCache{ttl: cacheTTL} }

// send looks req up and stores it, at at (zero: no expiry). It returns
// the tokens of the longest prefix of req shared with a live entry —
// refreshing that entry's lifetime — and the positions req shares with
// the request sent before it (live or not; 0 for the first). hint is a
// number of positions req is known to share with that request.
func (c *prefixCache) send(req request, at time.Time, hint int) (read, shared int) {
	if c.stored {
		shared = extendShared(&c.latest, &req, min(hint, c.latest.positions(), req.positions()))
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
		if t := e.req.tokens(n); t > best {
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
	c.entries = append(c.entries, cacheEntry{req: req, shared: req.positions(), expires: exp})
	if n := len(c.entries) - maxCacheEntries; n > 0 {
		c.entries = append(c.entries[:0], c.entries[n:]...)
	}
	c.latest, c.stored = req, true
	return best, shared
}

// extendShared returns how many positions a and b share, given that
// they share the first n.
func extendShared(a, b *request, n int) int {
	for n < a.positions() && n < b.positions() && a.same(b, n) {
		n++
	}
	return n
}

// A request is one call's prompt as the cache sees it: position 0 is the
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
type request struct {
	chunks []*chunk
	n      int // items
	// constant is the tokens of position 0; total of the whole prompt.
	constant int
	total    int
}

// chunkSize is the items of a chunk.
const chunkSize = 512

// A chunk holds up to chunkSize consecutive items of requests: each
// one's key and the tokens of the request's items up to and including
// it. Items are only appended: the requests that share a chunk read the
// ones they hold, which are never written again.
type chunk struct {
	keys []string
	cum  []int
}

// positions returns the request's positions, the constant's included.
func (r *request) positions() int { return r.n + 1 }

// item returns the chunk and index of item i.
func (r *request) item(i int) (*chunk, int) { return r.chunks[i/chunkSize], i % chunkSize }

// same reports whether r and o hold the same thing at position j.
func (r *request) same(o *request, j int) bool { return j == 0 || r.key(j) == o.key(j) }

// tokens returns the tokens of r's first n positions.
func (r *request) tokens(n int) int {
	if n <= 1 {
		return r.constant * n
	}
	c, k := r.item(n - 2)
	return r.constant + c.cum[k]
}

// key returns the key of position j.
func (r *request) key(j int) string {
	if j == 0 {
		return "#constant"
	}
	c, k := r.item(j - 1)
	return c.keys[k]
}

// A requestBuilder makes each step's request from the previous step's:
// the items a step shares in place with the previous context
// ([replay.Step.Kept]) keep their keys and counts — and the chunks that
// hold them — and only the others are keyed and counted.
type requestBuilder struct {
	est   estimate.Estimator
	count func(estimate.Estimator, window.Item) int
	keys  keyer
	prev  request
}

// next returns step s's request, the constant leading it.
func (b *requestBuilder) next(s *replay.Step, constant int) request {
	sent := s.Sent()
	kept := min(s.Kept(), b.prev.n, len(sent))
	// The chunks of the kept items: shared, but for a last one that
	// others wrote past the kept items in, which is copied.
	full := kept / chunkSize
	chunks := make([]*chunk, full, (len(sent)+chunkSize-1)/chunkSize+1)
	copy(chunks, b.prev.chunks[:full])
	if part := kept % chunkSize; part > 0 {
		c := b.prev.chunks[full]
		if len(c.keys) != part {
			c = &chunk{keys: slices.Clone(c.keys[:part]), cum: slices.Clone(c.cum[:part])}
		}
		chunks = append(chunks, c)
	}
	r := request{chunks: chunks, n: kept, constant: constant, total: s.Tokens[b.est.Name()] + constant}
	sum := 0
	if kept > 0 {
		c, k := r.item(kept - 1)
		sum = c.cum[k]
	}
	for _, it := range sent[kept:] {
		if r.n%chunkSize == 0 {
			r.chunks = append(r.chunks, &chunk{})
		}
		c := r.chunks[r.n/chunkSize]
		sum += b.count(b.est, it)
		c.keys, c.cum = append(c.keys, b.keys.key(it)), append(c.cum, sum)
		r.n++
	}
	b.prev = r
	return r
}

// A keyer names the items of requests for the cache: an original message
// by its id, a copy or a synthetic message by its id and a hash of its
// content — what the provider compares — so that the same content sent
// again is read, whichever copy holds it, and a cut copy is not its
// original. It remembers each copy's hash while the copy lives (a policy
// that makes a summary at every call lets go of each).
type keyer struct {
	hashes map[weak.Pointer[transcript.Message]]string
}

func (k *keyer) key(it window.Item) string {
	if !it.Truncated && !it.Synthetic() {
		return it.ID
	}
	w := weak.Make(it.Msg)
	h, ok := k.hashes[w]
	if !ok {
		h = contentHash(it.Msg)
		if k.hashes == nil {
			k.hashes = map[weak.Pointer[transcript.Message]]string{}
		}
		k.hashes[w] = h
	}
	return it.ID + "@" + h
}

// contentHash is a hash of what a message sends: its role and blocks.
func contentHash(m *transcript.Message) string {
	h := fnv.New64a()
	sep := []byte{0}
	h.Write([]byte(m.Role))
	for _, b := range m.Blocks {
		for _, f := range []string{string(b.Type), b.Text, b.ID, b.Name, string(b.Input), string(b.Raw), strconv.FormatBool(b.IsError)} {
			h.Write(sep)
			h.Write([]byte(f))
		}
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// simulate splits one call's prompt into uncached input, cache reads and
// cache writes: what it reads is the longest prefix a live request
// shares with it (on the first call, what it recorded reading).
//
// hint and shared are the positions req is known to share with, and
// shares with, the request sent to the cache before it ([prefixCache.send]).
func simulate(sim string, cache *prefixCache, req request, hint int, recorded *transcript.Usage, at time.Time, first bool) (u transcript.Usage, shared int) {
	if sim == cacheNone {
		return split(sim, req.total, 0), 0
	}
	read, shared := cache.send(req, at, hint)
	read = min(read, req.total)
	if first && recorded != nil {
		// What was cached before the session began (a parent session's
		// prefix, a previous run) is unknown: the first call is taken to
		// find what it recorded reading.
		read = min(req.total, int(recorded.CacheRead))
	}
	return split(sim, req.total, read), shared
}

// split is the usage of a prompt of total tokens of which the cache
// holds a prefix of read tokens, as sim bills it.
func split(sim string, total, read int) transcript.Usage {
	switch sim {
	case cacheAnthropic:
		return transcript.Usage{CacheRead: int64(read), CacheWrite: int64(total - read)}
	case cacheOpenAI:
		cached := 0
		if total >= openAIMinCached && read >= openAIMinCached {
			cached = openAIMinCached + (read-openAIMinCached)/openAIIncrement*openAIIncrement
		}
		return transcript.Usage{Input: int64(total - cached), CacheRead: int64(cached)}
	}
	return transcript.Usage{Input: int64(total)}
}
