package countcache_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/transcript"
)

func TestCacheCountsOnce(t *testing.T) {
	tr := readCorpus(t, "spotter/tool_heavy.jsonl")
	c := countcache.New()
	var wg sync.WaitGroup
	for _, name := range []string{"chars4", "cl100k_base"} {
		e := estimate.MustNew(name, estimate.OverheadNone)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range tr.Messages {
					if got, want := c.Count(e, &tr.Messages[i]), e.CountMessage(&tr.Messages[i]); got != want {
						t.Errorf("%s message %d: cached %d, direct %d", name, i, got, want)
					}
				}
			}()
		}
	}
	wg.Wait()
	hits, misses := c.Stats()
	if n := int64(2 * len(tr.Messages)); misses < n || misses > 8*n || hits+misses != 16*int64(len(tr.Messages)) {
		t.Errorf("hits %d, misses %d for %d messages × 2 estimators × 8 readers", hits, misses, len(tr.Messages))
	}
	// Sequentially, every later count is a hit.
	c2 := countcache.New()
	e := estimate.MustNew("o200k_base", estimate.OverheadNone)
	for range 3 {
		for i := range tr.Messages {
			c2.Count(e, &tr.Messages[i])
		}
	}
	if hits, misses := c2.Stats(); misses != int64(len(tr.Messages)) || hits != 2*int64(len(tr.Messages)) {
		t.Errorf("sequential: %d hits, %d misses, want %d and %d", hits, misses, 2*len(tr.Messages), len(tr.Messages))
	}
}

// TestTableCountsOnce: a table's counts, read by eight goroutines at once,
// are the estimator's, each message counted at least once and at most
// once per reader; Counts and a table made again for the same transcript
// and estimator read the same counts without computing them again.
func TestTableCountsOnce(t *testing.T) {
	tr := readCorpus(t, "spotter/tool_heavy.jsonl")
	c := countcache.New()
	n := int64(len(tr.Messages))
	for _, name := range []string{"chars4", "cl100k_base"} {
		e := estimate.MustNew(name, estimate.OverheadNone)
		_, before := c.Stats()
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				tb := c.Table(e, tr)
				for i := range tr.Messages {
					if got, want := tb.Count(i), e.CountMessage(&tr.Messages[i]); got != want {
						t.Errorf("%s message %d: table %d, direct %d", name, i, got, want)
					}
				}
			})
		}
		wg.Wait()
		if _, after := c.Stats(); after-before < n || after-before > 8*n {
			t.Errorf("%s: %d counts computed for %d messages × 8 readers", name, after-before, n)
		}
		_, before = c.Stats()
		got := c.Counts(e, tr)
		for i := range tr.Messages {
			if want := c.Table(e, tr).Count(i); got[i] != want {
				t.Errorf("%s message %d: Counts %d, table %d", name, i, got[i], want)
			}
		}
		if _, after := c.Stats(); after != before {
			t.Errorf("%s: %d messages counted again by a later reader", name, after-before)
		}
	}
}

// BenchmarkCachedRecount is a replay's common case: counts of messages
// already seen.
func BenchmarkCachedRecount(b *testing.B) {
	tr := readCorpus(b, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	c := countcache.New()
	e := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	c.Counts(e, tr)
	b.ResetTimer()
	for b.Loop() {
		c.Counts(e, tr)
	}
}

// BenchmarkFirstCounts is the first count of every message of a
// 5,000-call generated session by eight goroutines at once, with the four
// heuristic estimators, as a replay's runs make them: through the cache's
// address-keyed map, and through per-transcript tables. The heuristics
// cost little themselves, so what is measured is the way to the count.
func BenchmarkFirstCounts(b *testing.B) {
	o := fixtures.DefaultGenOptions
	o.Calls = 5000
	tr, err := conformance.Generated(o)
	if err != nil {
		b.Fatal(err)
	}
	var ests []estimate.Estimator
	for _, name := range []string{"chars4", "gemini", "gemini-2025-11", "gemini-2026-05"} {
		ests = append(ests, estimate.MustNew(name, estimate.OverheadNone))
	}
	run := func(b *testing.B, count func(c *countcache.Cache, e estimate.Estimator, i int)) {
		for b.Loop() {
			c := countcache.New()
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for _, e := range ests {
						for i := range tr.Messages {
							count(c, e, i)
						}
					}
				})
			}
			wg.Wait()
		}
	}
	b.Run("map", func(b *testing.B) {
		run(b, func(c *countcache.Cache, e estimate.Estimator, i int) { c.Count(e, &tr.Messages[i]) })
	})
	b.Run("table", func(b *testing.B) {
		run(b, func(c *countcache.Cache, e estimate.Estimator, i int) { c.Table(e, tr).Count(i) })
	})
}

func readCorpus(t testing.TB, name string) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile(filepath.Join("../../fixtures/corpus", name), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}
