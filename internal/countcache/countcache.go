// Package countcache keeps estimators' counts of messages, so that a
// message is counted once per estimator however many steps, policies and
// sweep points of a replay see it.
package countcache

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/imagerule"
	"github.com/ctxbench/ctxbench/transcript"
)

// A Cache remembers message counts, keyed by message identity (its
// address) and estimator, so that a message is counted once per estimator
// however many steps, policies and sweep points see it. It is safe for
// concurrent use. A message must not change while a Cache holds its count.
// The cache does not keep a message alive: a message made during a replay
// (a summary, a truncated copy) and let go is let go of its count too.
type Cache struct {
	mu     sync.RWMutex
	counts map[cacheKey]int
	tables map[tableKey]*Table
	hits   atomic.Int64
	misses atomic.Int64
}

type tableKey struct {
	t   *transcript.Transcript
	est estimate.Estimator
}

type cacheKey struct {
	msg weak.Pointer[transcript.Message]
	est estimate.Estimator
}

// New returns an empty cache.
func New() *Cache {
	return &Cache{counts: make(map[cacheKey]int), tables: make(map[tableKey]*Table)}
}

// A Table holds one estimator's counts of a transcript's messages by
// index, for the runs that read them at every step: an array read
// instead of a hashed lookup. Every run of the transcript shares it; it
// is safe for concurrent use.
type Table struct {
	c      *Cache
	e      estimate.Estimator
	t      *transcript.Transcript
	counts []atomic.Int32 // count + 1; 0: not counted yet
	// images is the rule an exact estimator's counts add the images of
	// the messages by: the transcript's provider's (imagerule.OfTranscript).
	images *imagerule.Rule
}

// Table returns the cache's table of e's counts of t's messages, made on
// first use.
func (c *Cache) Table(e estimate.Estimator, t *transcript.Transcript) *Table {
	k := tableKey{t, e}
	c.mu.RLock()
	tb := c.tables[k]
	c.mu.RUnlock()
	if tb != nil {
		return tb
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if tb = c.tables[k]; tb == nil {
		tb = &Table{c: c, e: e, t: t, counts: make([]atomic.Int32, len(t.Messages))}
		if e.Exact() {
			tb.images = imagerule.OfTranscript(t)
		}
		c.tables[k] = tb
	}
	return tb
}

// Count returns the count of message i, computed on first use: for an
// exact estimator, its text's and its images' by the transcript's image
// rule (imagerule.MessageTokens), what the provider bills for the message; for a
// heuristic, what the heuristic counts. The table holds its own counts: a
// count made through it is not found by [Cache.Count], which is keyed by
// address, so a caller that knows a message's index counts it through the
// table.
func (tb *Table) Count(i int) int {
	if n := tb.counts[i].Load(); n > 0 {
		return int(n - 1)
	}
	m := &tb.t.Messages[i]
	n := tb.e.CountMessage(m) + imagerule.MessageTokens(tb.images, m)
	tb.c.misses.Add(1)
	tb.counts[i].Store(int32(n + 1))
	return n
}

// Count returns e's count of m, computing it on first use.
func (c *Cache) Count(e estimate.Estimator, m *transcript.Message) int {
	k := cacheKey{weak.Make(m), e}
	c.mu.RLock()
	n, ok := c.counts[k]
	c.mu.RUnlock()
	if ok {
		c.hits.Add(1)
		return n
	}
	n = e.CountMessage(m)
	c.misses.Add(1)
	c.mu.Lock()
	if _, ok := c.counts[k]; !ok {
		c.counts[k] = n
		runtime.AddCleanup(m, c.forget, k)
	}
	c.mu.Unlock()
	return n
}

// forget drops the count of a message no longer reachable.
func (c *Cache) forget(k cacheKey) {
	c.mu.Lock()
	delete(c.counts, k)
	c.mu.Unlock()
}

// Stats returns how many counts [Cache.Count] served from the cache, and
// how many counts were computed, through it or a table (two goroutines
// missing the same message at once both compute it).
func (c *Cache) Stats() (hits, misses int64) {
	return c.hits.Load(), c.misses.Load()
}

// Counts returns e's count of every message of t, in order, through t's
// table: each is computed at most once.
func (c *Cache) Counts(e estimate.Estimator, t *transcript.Transcript) []int {
	tb := c.Table(e, t)
	out := make([]int, len(t.Messages))
	for i := range t.Messages {
		out[i] = tb.Count(i)
	}
	return out
}
