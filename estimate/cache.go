package estimate

import (
	"sync"
	"sync/atomic"

	"github.com/ctxbench/ctxbench/transcript"
)

// A Cache remembers message counts, keyed by message identity (its
// address) and estimator, so that a message is counted once per estimator
// however many steps, policies and sweep points see it. It is safe for
// concurrent use. A message must not change while a Cache holds its count.
type Cache struct {
	mu     sync.RWMutex
	counts map[cacheKey]int
	hits   atomic.Int64
	misses atomic.Int64
}

type cacheKey struct {
	msg *transcript.Message
	est Estimator
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{counts: make(map[cacheKey]int)} }

// Count returns e's count of m, computing it on first use.
func (c *Cache) Count(e Estimator, m *transcript.Message) int {
	k := cacheKey{m, e}
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
	c.counts[k] = n
	c.mu.Unlock()
	return n
}

// Stats returns how many counts were served from the cache and how many
// were computed (two goroutines missing the same message at once both
// compute it).
func (c *Cache) Stats() (hits, misses int64) {
	return c.hits.Load(), c.misses.Load()
}

// Counts returns e's count of every message of t, in order, computing each
// at most once.
func (c *Cache) Counts(e Estimator, t *transcript.Transcript) []int {
	out := make([]int, len(t.Messages))
	for i := range t.Messages {
		out[i] = c.Count(e, &t.Messages[i])
	}
	return out
}
