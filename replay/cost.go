package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
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

// CostOptions configure the pricing of runs.
type CostOptions struct {
	Prices Prices
	// Model prices the calls (default: the transcript's first model).
	Model string
	// CacheSim is CacheAnthropic, CacheOpenAI or CacheNone (default: the
	// model's provider's).
	CacheSim string
	// Estimator counts the prompts (it must be one of the run's
	// estimators); Counts is the cache the run used.
	Estimator estimate.Estimator
	Counts    *estimate.Cache
}

// RunCost is what one run would have cost.
type RunCost struct {
	Model    string `json:"model"`
	CacheSim string `json:"cache_sim"`
	// Constant is the per-call prompt the transcript does not hold (system
	// prompt, tool schemas), fitted on the recorded usage; 0 without.
	Constant int `json:"constant_tokens"`
	// Usage is the simulated usage summed over calls.
	Usage transcript.Usage `json:"usage"`
	// Calls is the cost of the calls; Summaries that of the summary calls,
	// priced apart.
	Calls     Cost  `json:"calls"`
	Summaries Cost  `json:"summaries"`
	Total     Money `json:"total_pusd"`
	// PerStep is each call's cost, in step order.
	PerStep     []Money  `json:"per_step_pusd"`
	Assumptions []string `json:"assumptions,omitempty"`
}

// Constant fits the per-call prompt a transcript does not hold: the median,
// over the calls with recorded usage, of the recorded prompt minus the
// estimate of what the agent sent (run must be the recorded policy's, or
// none's). It returns 0 when nothing is recorded.
func Constant(run *Run, estimator string) int {
	var d []int
	for _, s := range run.Steps {
		if s.Recorded != nil && s.Recorded.Prompt() > 0 {
			d = append(d, int(s.Recorded.Prompt())-s.Tokens[estimator])
		}
	}
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return max(0, d[len(d)/2])
}

// PriceRun prices a run: each call's prompt is the estimate of what the
// policy sent plus constant, split by the cache simulation into uncached
// input, cache reads and cache writes; its output is the recorded output
// (responses are not regenerated); summary calls are priced at their own
// model's input and output rates (a mock summary at the session model's).
func PriceRun(run *Run, t *transcript.Transcript, constant int, opt CostOptions) (*RunCost, error) {
	model := opt.Model
	if model == "" && len(t.Models) > 0 {
		model = t.Models[0]
	}
	if model == "" {
		return nil, fmt.Errorf("the transcript records no model: pass --model")
	}
	price, name, err := opt.Prices.Lookup(model)
	if err != nil {
		return nil, err
	}
	if opt.Estimator == nil || opt.Counts == nil {
		return nil, fmt.Errorf("pricing %s: no estimator", t.File)
	}
	sim := opt.CacheSim
	if sim == "" {
		sim = CacheSimFor(price.Provider)
	}
	rc := &RunCost{Model: name, CacheSim: sim, Constant: constant}
	cache := newPrefixCache()
	// Claude Code writes with the 1-hour lifetime: simulate the lifetime
	// the transcript's writes used, at its price.
	rec := t.Usage()
	oneHour := sim == CacheAnthropic && rec.CacheWrite1h*2 > rec.CacheWrite
	if oneHour {
		cache.ttl = time.Hour
		rc.Assumptions = append(rc.Assumptions, "cache writes use the 1-hour lifetime and price, as the transcript's did")
	}
	times := callTimes(t)
	if len(times) == 0 || times[0].IsZero() {
		rc.Assumptions = append(rc.Assumptions, "the transcript records no times: the cache is assumed never to expire")
	}
	if len(run.Steps) > 0 && run.Steps[0].Recorded != nil && run.Steps[0].Recorded.CacheRead > 0 {
		rc.Assumptions = append(rc.Assumptions, "the first call reads from the cache what it recorded reading (the cache before the session is unknown)")
	}
	counts := newCounter(opt.Counts, t)
	for i, s := range run.Steps {
		var at time.Time
		if i < len(times) {
			at = times[i]
		}
		u := simulate(sim, cache, s, opt, counts, constant, at, i == 0)
		if s.Recorded != nil {
			u.Output = s.Recorded.Output
		}
		if oneHour {
			u.CacheWrite1h = u.CacheWrite
		}
		c := price.CallCost(u)
		rc.Usage.Add(u)
		rc.Calls.Add(c)
		rc.PerStep = append(rc.PerStep, c.Total())
		if ev := s.Summary; ev != nil && (ev.Usage.Prompt() > 0 || ev.Usage.Output > 0) {
			sp := price
			if p2, _, err := opt.Prices.Lookup(ev.Model); err == nil {
				sp = p2
			}
			rc.Summaries.Add(sp.CallCost(transcript.Usage{Input: ev.Usage.Prompt(), Output: ev.Usage.Output}))
		}
	}
	rc.Total = rc.Calls.Total() + rc.Summaries.Total()
	return rc, nil
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

// simulate splits one call's prompt into uncached input, cache reads and
// cache writes, counting what was sent through counts.
func simulate(sim string, cache *prefixCache, s Step, opt CostOptions, counts *counter, constant int, at time.Time, first bool) transcript.Usage {
	total := s.Tokens[opt.Estimator.Name()] + constant
	if sim == CacheNone {
		return transcript.Usage{Input: int64(total)}
	}
	// The constant part (system prompt, tools) leads every request: it is
	// an item of its own at the front of the prefix.
	// A prefix item is a message as sent: its id and its content (a
	// truncated copy keeps the id of the original but not its content).
	ids := make([]string, 1, len(s.sent)+1)
	ids[0] = "#constant"
	cum := make([]int, len(s.sent)+2)
	cum[1] = constant
	for j, it := range s.sent {
		ids = append(ids, fmt.Sprintf("%s@%p", it.ID, it.Msg))
		cum[j+2] = cum[j+1] + counts.Count(opt.Estimator, it)
	}
	read := min(cache.lookup(ids, at), total)
	if first && s.Recorded != nil {
		// What was cached before the session began (a parent session's
		// prefix, a previous run) is unknown: the first call is taken to
		// find what it recorded reading.
		read = min(total, int(s.Recorded.CacheRead))
	}
	cache.store(ids, cum, at)
	switch sim {
	case CacheAnthropic:
		return transcript.Usage{CacheRead: int64(read), CacheWrite: int64(total - read)}
	default: // openai
		cached := 0
		if total >= openAIMinCached && read >= openAIMinCached {
			cached = openAIMinCached + (read-openAIMinCached)/openAIIncrement*openAIIncrement
		}
		return transcript.Usage{Input: int64(total - cached), CacheRead: int64(cached)}
	}
}
