package cost

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/cost/internal/prefix"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// wholeCache is the prefix cache as its contract reads: every request
// compared whole with every live entry. prefixCache.send is held to it.
type wholeCache struct {
	entries []wholeEntry
	last    []string // the keys of the request sent last
	ttl     time.Duration
}

type wholeEntry struct {
	keys    []string
	tokens  []int // tokens[j]: of keys[:j]
	expires time.Time
}

// wholeRequest is step s's request made from its items alone.
func wholeRequest(s *replay.Step, est estimate.Estimator, count func(estimate.Estimator, window.Item) int, constant int) ([]string, []int) {
	var k keyer
	keys, tokens := []string{"#constant"}, []int{0, constant}
	for _, it := range s.Sent() {
		keys = append(keys, k.key(it))
		tokens = append(tokens, tokens[len(tokens)-1]+count(est, it))
	}
	return keys, tokens
}

func (c *wholeCache) send(keys []string, tokens []int, at time.Time) (read, shared int) {
	common := func(a, b []string) int {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n
	}
	if c.last != nil {
		shared = common(c.last, keys)
	}
	c.entries = slices.DeleteFunc(c.entries, func(e wholeEntry) bool {
		return !at.IsZero() && !e.expires.IsZero() && at.After(e.expires)
	})
	bestAt := -1
	for k, e := range c.entries {
		if t := e.tokens[common(e.keys, keys)]; t > read {
			read, bestAt = t, k
		}
	}
	var exp time.Time
	if !at.IsZero() {
		exp = at.Add(c.ttl)
		if bestAt >= 0 {
			c.entries[bestAt].expires = exp
		}
	}
	c.entries = append(c.entries, wholeEntry{keys, tokens, exp})
	if n := len(c.entries) - prefix.MaxEntries; n > 0 {
		c.entries = c.entries[n:]
	}
	c.last = keys
	return read, shared
}

// checkAgainstWhole prices run's requests with the incremental builder
// and cache and with the whole ones, at times (nil: no expiry), and
// reports the first call where they differ.
func checkAgainstWhole(t *testing.T, name string, run *replay.Run, tr *transcript.Transcript, est estimate.Estimator, times []time.Time) {
	t.Helper()
	cnt := replayerOf(tr).Counter()
	reqs := &requestBuilder{est: est, count: cnt}
	fast, whole := newPrefixCache(), &wholeCache{ttl: cacheTTL}
	for i := range run.Steps {
		s := &run.Steps[i]
		req := reqs.next(s, 700)
		keys, tokens := wholeRequest(s, est, cnt, 700)
		var got []string
		for j := range req.Positions() {
			got = append(got, req.Key(j))
			if req.Tokens(j+1) != tokens[j+1] {
				t.Fatalf("%s: call %d: position %d: %d tokens, want %d", name, i, j, req.Tokens(j+1), tokens[j+1])
			}
		}
		if !slices.Equal(got, keys) {
			t.Fatalf("%s: call %d: keys %v, want %v", name, i, got, keys)
		}
		var at time.Time
		if times != nil {
			at = times[i]
		}
		hint := s.Kept() + 1
		if i == 0 {
			hint = 0
		}
		read, shared := fast.Send(req, at, hint)
		wantRead, wantShared := whole.send(keys, tokens, at)
		if read != wantRead || shared != wantShared {
			t.Fatalf("%s: call %d: read %d tokens sharing %d positions with the last request, want %d and %d", name, i, read, shared, wantRead, wantShared)
		}
	}
}

// TestPrefixCacheMatchesWholeComparison: on every corpus transcript under
// policies that append, slide, clear, truncate and summarize, with and
// without expiry, the incremental requests and cache give what comparing
// every request whole gives.
func TestPrefixCacheMatchesWholeComparison(t *testing.T) {
	trs, err := conformance.Corpus("../fixtures/corpus")
	if err != nil {
		t.Fatal(err)
	}
	specs := []string{"none", "aidf:max_messages=12,preserve_first_n=2", "anthropic-clear-tool-uses:trigger=3000,keep=2",
		"claude-code", "codex:context_window=24000", "two-tier", "prune", "opencode"}
	if testing.Short() {
		specs = specs[:3]
	}
	est := estimate.MustNew("chars4", 0)
	for _, spec := range specs {
		p, err := window.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trs {
			run, err := replay.Replay(context.Background(), tr, p, replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: &summarize.Mock{}})
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstWhole(t, spec+" on "+tr.File, run, tr, est, nil)
			checkAgainstWhole(t, spec+" on "+tr.File+" with times", run, tr, est, tr.CallTimes())
		}
	}
}

// TestPrefixCacheRandomContexts: random contexts over a few messages —
// many requests share prefixes with old ones and not with the last —
// at random gaps around the lifetime, past the cache's 64 entries.
func TestPrefixCacheRandomContexts(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 1))
		calls := 150
		var steps [][]int
		var times []time.Duration
		var now time.Duration
		prev := []int{}
		for range calls {
			var s []int
			switch rng.IntN(4) {
			case 0: // extend the previous context
				s = append(slices.Clone(prev), rng.IntN(10))
			case 1: // keep a prefix of it, then new messages
				s = slices.Clone(prev[:rng.IntN(len(prev)+1)])
				for range rng.IntN(3) {
					s = append(s, rng.IntN(10))
				}
			case 2: // the same again
				s = slices.Clone(prev)
			default: // anything
				for range rng.IntN(6) {
					s = append(s, rng.IntN(3))
				}
			}
			steps = append(steps, s)
			prev = s
			now += time.Duration(rng.IntN(8)) * time.Minute
			times = append(times, now)
		}
		run, tr, opt := simRun(t, steps, times, nil)
		name := fmt.Sprintf("seed %d", seed)
		checkAgainstWhole(t, name, run, tr, opt.Estimator, tr.CallTimes())
		checkAgainstWhole(t, name+" without expiry", run, tr, opt.Estimator, nil)
	}
}

// TestPrefixCacheLongContexts: contexts of thousands of items, across
// the requests' chunks, that grow, slide and are edited near their end
// (prune) or anywhere (two-tier), match comparing every request whole.
func TestPrefixCacheLongContexts(t *testing.T) {
	o := fixtures.DefaultGenOptions
	o.Calls = 1500
	if testing.Short() {
		o.Calls = 700
	}
	tr, err := conformance.Generated(o)
	if err != nil {
		t.Fatal(err)
	}
	est := estimate.MustNew("chars4", 0)
	for _, spec := range []string{"none", "prune", "two-tier", "aidf:max_messages=600"} {
		p, err := window.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		run, err := replay.Replay(context.Background(), tr, p, replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: &summarize.Mock{}})
		if err != nil {
			t.Fatal(err)
		}
		if (spec == "none" || spec == "prune") && run.Summary.PeakMessages <= 2*prefix.ChunkSize {
			t.Fatalf("%s: peak %d messages, want contexts across chunks", spec, run.Summary.PeakMessages)
		}
		checkAgainstWhole(t, spec+" (long)", run, tr, est, tr.CallTimes())
	}
}
