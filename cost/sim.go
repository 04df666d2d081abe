package cost

import (
	"hash/fnv"
	"strconv"
	"time"
	"weak"

	"github.com/ctxbench/ctxbench/cost/internal/prefix"
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

// A requestBuilder makes each step's request from the previous step's:
// the items a step shares in place with the previous context
// ([replay.Step.Kept]) keep their keys and counts — and the chunks that
// hold them — and only the others are keyed and counted.
type requestBuilder struct {
	est   estimate.Estimator
	count func(estimate.Estimator, window.Item) int
	keys  keyer
	prev  prefix.Request
}

// next returns step s's request, the constant leading it.
func (b *requestBuilder) next(s *replay.Step, constant int) prefix.Request {
	sent := s.Sent()
	kept := min(s.Kept(), b.prev.Items(), len(sent))
	r := b.prev.Keep(kept, len(sent), constant, s.Tokens[b.est.Name()]+constant)
	for _, it := range sent[kept:] {
		r.Append(b.keys.key(it), b.count(b.est, it))
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
// shares with, the request sent to the cache before it ([prefix.Cache.Send]).
func simulate(sim string, cache *prefix.Cache, req prefix.Request, hint int, recorded *transcript.Usage, at time.Time, first bool) (u transcript.Usage, shared int) {
	if sim == cacheNone {
		return split(sim, req.Total(), 0), 0
	}
	read, shared := cache.Send(req, at, hint)
	read = min(read, req.Total())
	if first && recorded != nil {
		// What was cached before the session began (a parent session's
		// prefix, a previous run) is unknown: the first call is taken to
		// find what it recorded reading.
		read = min(req.Total(), int(recorded.CacheRead))
	}
	return split(sim, req.Total(), read), shared
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

// newPrefixCache returns an empty cache whose entries live [cacheTTL].
func newPrefixCache() *prefix.Cache { return prefix.New(cacheTTL) }
