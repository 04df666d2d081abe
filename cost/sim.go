package cost

import (
	"hash/fnv"
	"strconv"
	"time"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// Cache simulations.
const (
	// CacheAnthropic: the client marks the end of each request as a cache
	// breakpoint; the longest prefix, on message boundaries, shared with a
	// previous request still alive (5 minutes, refreshed on use) is read
	// from the cache, the rest written.
	CacheAnthropic = "anthropic"
	// CacheOpenAI: automatic for prompts of 1,024 tokens or more; the
	// shared prefix is cached in 128-token increments from 1,024, with no
	// write cost.
	CacheOpenAI = "openai"
	// CacheNone: every prompt token is uncached input.
	CacheNone = "none"
)

// Cache parameters.
const (
	cacheTTL        = 5 * time.Minute
	openAIMinCached = 1024
	openAIIncrement = 128
)

// CacheSimFor returns the simulation a provider's cache follows.
func CacheSimFor(provider string) string {
	switch provider {
	case "anthropic":
		return CacheAnthropic
	case "openai", "gemini", "deepseek", "azure", "vertex_ai":
		return CacheOpenAI
	}
	return CacheNone
}

// callTimes returns the time of each call (its assistant message).
func callTimes(t *transcript.Transcript) []time.Time {
	var out []time.Time
	for i := range t.Messages {
		if t.Messages[i].Role == transcript.RoleAssistant {
			out = append(out, t.Messages[i].Time)
		}
	}
	return out
}

// prefixCache holds the requests whose prefixes the provider keeps.
type prefixCache struct {
	entries []cacheEntry
	ttl     time.Duration
}

type cacheEntry struct {
	ids     []string
	cum     []int // cum[j]: tokens of ids[:j]
	expires time.Time
}

func newPrefixCache() *prefixCache { return &prefixCache{ttl: cacheTTL} }

// lookup returns the tokens of the longest prefix of ids shared with a
// live entry, refreshing that entry; at may be zero (no expiry).
func (c *prefixCache) lookup(ids []string, at time.Time) int {
	best, bestAt := 0, -1
	live := c.entries[:0]
	for _, e := range c.entries {
		if !at.IsZero() && !e.expires.IsZero() && at.After(e.expires) {
			continue // expired
		}
		live = append(live, e)
	}
	c.entries = live
	for k, e := range c.entries {
		n := 0
		for n < len(e.ids) && n < len(ids) && e.ids[n] == ids[n] {
			n++
		}
		if e.cum[n] > best {
			best, bestAt = e.cum[n], k
		}
	}
	if bestAt >= 0 && !at.IsZero() {
		c.entries[bestAt].expires = at.Add(c.ttl)
	}
	return best
}

func (c *prefixCache) store(ids []string, cum []int, at time.Time) {
	var exp time.Time
	if !at.IsZero() {
		exp = at.Add(c.ttl)
	}
	c.entries = append(c.entries, cacheEntry{ids: ids, cum: cum, expires: exp})
	if len(c.entries) > 64 { // old entries are long expired in practice
		c.entries = c.entries[len(c.entries)-64:]
	}
}

// A request is one call's prompt as the cache sees it: a key per item
// — the constant part first, then each message as sent, its id and its
// content (a truncated copy keeps the id of the original but not its
// content) — and the tokens before each key.
type request struct {
	ids   []string
	cum   []int // cum[j]: tokens of ids[:j]
	total int
}

// newRequest returns step s's prompt: the estimate of what it sent plus
// the constant (system prompt, tools), which leads every request. keys
// names the items (nil: a namer of its own).
func newRequest(s *replay.Step, est estimate.Estimator, counts window.Counter, constant int, keys *keyer) request {
	if keys == nil {
		keys = &keyer{}
	}
	sent := s.Sent()
	ids := make([]string, 1, len(sent)+1)
	ids[0] = "#constant"
	cum := make([]int, len(sent)+2)
	cum[1] = constant
	for j, it := range sent {
		ids = append(ids, keys.key(it))
		cum[j+2] = cum[j+1] + counts.Count(est, it)
	}
	return request{ids: ids, cum: cum, total: s.Tokens[est.Name()] + constant}
}

// A keyer names the items of requests for the cache: an original message
// by its id, a copy or a synthetic message by its id and a hash of its
// content — what the provider compares — so that the same content sent
// again is read, whichever copy holds it, and a cut copy is not its
// original. It remembers each copy's hash.
type keyer struct {
	hashes map[*transcript.Message]string
}

func (k *keyer) key(it window.Item) string {
	if !it.Truncated && !it.Synthetic() {
		return it.ID
	}
	h, ok := k.hashes[it.Msg]
	if !ok {
		h = contentHash(it.Msg)
		if k.hashes == nil {
			k.hashes = map[*transcript.Message]string{}
		}
		k.hashes[it.Msg] = h
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
func simulate(sim string, cache *prefixCache, req request, recorded *transcript.Usage, at time.Time, first bool) transcript.Usage {
	if sim == CacheNone {
		return split(sim, req.total, 0)
	}
	read := min(cache.lookup(req.ids, at), req.total)
	if first && recorded != nil {
		// What was cached before the session began (a parent session's
		// prefix, a previous run) is unknown: the first call is taken to
		// find what it recorded reading.
		read = min(req.total, int(recorded.CacheRead))
	}
	cache.store(req.ids, req.cum, at)
	return split(sim, req.total, read)
}

// split is the usage of a prompt of total tokens of which the cache
// holds a prefix of read tokens, as sim bills it.
func split(sim string, total, read int) transcript.Usage {
	switch sim {
	case CacheAnthropic:
		return transcript.Usage{CacheRead: int64(read), CacheWrite: int64(total - read)}
	case CacheOpenAI:
		cached := 0
		if total >= openAIMinCached && read >= openAIMinCached {
			cached = openAIMinCached + (read-openAIMinCached)/openAIIncrement*openAIIncrement
		}
		return transcript.Usage{Input: int64(total - cached), CacheRead: int64(cached)}
	}
	return transcript.Usage{Input: int64(total)}
}
