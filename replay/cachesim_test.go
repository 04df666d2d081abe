package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// simRun builds a run whose steps send the given message indices; message
// i has 100×(i+1) chars4 tokens. Call k happens at times[k].
func simRun(t *testing.T, steps [][]int, times []time.Duration) (*Run, *transcript.Transcript, CostOptions) {
	t.Helper()
	tr := &transcript.Transcript{ID: "sim", Models: []string{"claude-sonnet-4-5"}}
	for i := range 10 {
		tr.Messages = append(tr.Messages, transcript.Message{Role: transcript.RoleUser,
			Blocks: []transcript.Block{{Type: transcript.BlockText, Text: strings.Repeat("abcd", 100*(i+1))}}})
	}
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for _, d := range times {
		tr.Messages = append(tr.Messages, transcript.Message{Role: transcript.RoleAssistant, Time: start.Add(d),
			Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "ok"}}})
	}
	e := estimate.MustNew("chars4", 0)
	counts := estimate.NewCache()
	run := &Run{}
	for k, idx := range steps {
		s := Step{Step: k, Tokens: map[string]int{}}
		for _, i := range idx {
			it := window.Original(tr, i)
			s.sent = append(s.sent, it)
			s.Context = append(s.Context, it.ID)
			s.Tokens["chars4"] += counts.Count(e, it.Msg)
		}
		run.Steps = append(run.Steps, s)
	}
	return run, tr, CostOptions{Prices: DefaultPrices(), Estimator: e, Counts: counts}
}

func TestCacheSimulation(t *testing.T) {
	type split struct{ in, read, write int64 }
	usages := func(rc *RunCost, run *Run, tr *transcript.Transcript, opt CostOptions) []split {
		var out []split
		cache := newPrefixCache()
		times := callTimes(tr)
		for i, s := range run.Steps {
			u := simulate(opt.CacheSim, cache, s, opt, newCounter(opt.Counts, tr), rc.Constant, times[i], i == 0)
			out = append(out, split{u.Input, u.CacheRead, u.CacheWrite})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		sim   string
		steps [][]int
		times []time.Duration
		want  []split
	}{
		{"anthropic: a growing history is read, the new part written", CacheAnthropic,
			[][]int{{0, 1}, {0, 1, 2}, {0, 1, 2, 3}}, []time.Duration{0, time.Minute, 2 * time.Minute},
			[]split{{0, 0, 1000 + 300}, {0, 1000 + 300, 300}, {0, 1000 + 600, 400}}},
		{"anthropic: a trim in the middle writes everything after it", CacheAnthropic,
			[][]int{{0, 1, 2}, {0, 2, 3}}, []time.Duration{0, time.Minute},
			[]split{{0, 0, 1000 + 600}, {0, 1000 + 100, 300 + 400}}},
		{"anthropic: after 5 minutes unused the cache has expired", CacheAnthropic,
			[][]int{{0, 1}, {0, 1, 2}}, []time.Duration{0, 6 * time.Minute},
			[]split{{0, 0, 1300}, {0, 0, 1600}}},
		{"anthropic: use refreshes the lifetime", CacheAnthropic,
			[][]int{{0}, {0, 1}, {0, 1, 2}}, []time.Duration{0, 4 * time.Minute, 8 * time.Minute},
			[]split{{0, 0, 1100}, {0, 1100, 200}, {0, 1300, 300}}},
		{"openai: 1,024 tokens at least, in 128-token steps, no writes", CacheOpenAI,
			[][]int{{0, 1}, {0, 1, 2}}, []time.Duration{0, time.Minute},
			[]split{{1300, 0, 0}, {1600 - 1280, 1280, 0}}},
		{"none", CacheNone, [][]int{{0}, {0, 1}}, []time.Duration{0, time.Minute}, []split{{1100, 0, 0}, {1300, 0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, tr, opt := simRun(t, tc.steps, tc.times)
			opt.CacheSim = tc.sim
			rc := &RunCost{Constant: 1000}
			if diff := cmp.Diff(tc.want, usages(rc, run, tr, opt), cmp.AllowUnexported(split{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// PriceRun agrees with the splits, priced.
			priced, err := PriceRun(run, tr, 1000, opt)
			if err != nil {
				t.Fatal(err)
			}
			var want Cost
			p, _, _ := opt.Prices.Lookup("claude-sonnet-4-5")
			for _, s := range tc.want {
				want.Add(p.CallCost(transcript.Usage{Input: s.in, CacheRead: s.read, CacheWrite: s.write}))
			}
			if priced.Calls != want {
				t.Errorf("priced %+v, want %+v", priced.Calls, want)
			}
		})
	}
}

// TestCacheSimTruncation: a message truncated between calls is new
// content: what follows it is written again, never read at the old size.
func TestCacheSimTruncation(t *testing.T) {
	run, tr, opt := simRun(t, [][]int{{0, 1, 2}, {0, 1, 2}}, []time.Duration{0, time.Minute})
	opt.CacheSim = CacheAnthropic
	cut := window.Item{ID: "m1", Truncated: true, Msg: &transcript.Message{Role: transcript.RoleUser,
		Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "abcd"}}}}
	s := &run.Steps[1]
	s.sent[1] = cut
	s.Tokens["chars4"] = 100 + 1 + 300
	cache := newPrefixCache()
	times := callTimes(tr)
	for i, st := range run.Steps {
		u := simulate(CacheAnthropic, cache, st, opt, newCounter(opt.Counts, tr), 0, times[i], false)
		if u.CacheWrite < 0 || u.CacheRead > int64(st.Tokens["chars4"]) {
			t.Errorf("step %d: %+v", i, u)
		}
		if i == 1 && (u.CacheRead != 100 || u.CacheWrite != 301) {
			t.Errorf("after the truncation: read %d, wrote %d; want 100 and 301", u.CacheRead, u.CacheWrite)
		}
	}
}
