package cost

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// script is a test policy that sends, at call k, the items steps[k]
// gives (message indices), with the item of cut[k], if any, in place of
// its original.
type script struct {
	steps [][]int
	cut   map[int]window.Item
}

func (*script) Name() string          { return "script" }
func (*script) Params() window.Values { return window.Values{} }
func (s *script) Apply(_ context.Context, env *window.Env, _ *window.State, _ []window.Item) (window.Step, error) {
	var h []window.Item
	for _, i := range s.steps[env.Call] {
		it := window.Original(env.Transcript, i)
		if c, ok := s.cut[env.Call]; ok && c.ID == it.ID {
			it = c
		}
		h = append(h, it)
	}
	return window.Step{History: h}, nil
}

// simRun replays a transcript of 10 user messages, message i of
// 100×(i+1) chars4 tokens, then a call at each of times, under a policy
// that sends the messages steps gives.
func simRun(t *testing.T, steps [][]int, times []time.Duration, cut map[int]window.Item) (*replay.Run, *transcript.Transcript, Options) {
	t.Helper()
	tr := &transcript.Transcript{ID: "sim", Models: []string{"claude-sonnet-4-5"}}
	for i := range 10 {
		tr.Messages = append(tr.Messages, transcript.Message{Role: transcript.RoleUser,
			Blocks: []transcript.Block{{Type: transcript.BlockText, Text: strings.Repeat("abcd", 100*(i+1))}}})
	}
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for k, d := range times {
		// Each call records a prompt 1,000 tokens over what it sends: the
		// constant the pricing fits.
		sent := int64(1000)
		for _, i := range steps[k] {
			sent += int64(100 * (i + 1))
		}
		tr.Messages = append(tr.Messages, transcript.Message{Role: transcript.RoleAssistant, Time: start.Add(d),
			Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "ok"}}, Usage: &transcript.Usage{Input: sent}})
	}
	e := estimate.MustNew("chars4", 0)
	run, err := replay.Replay(context.Background(), tr, &script{steps, cut}, replay.Options{Estimators: []estimate.Estimator{e}})
	if err != nil {
		t.Fatal(err)
	}
	return run, tr, Options{Prices: pricing.Default(), Estimator: e}
}

func TestCacheSimulation(t *testing.T) {
	type split struct{ in, read, write int64 }
	usages := func(rc *RunCost, run *replay.Run, tr *transcript.Transcript, opt Options) []split {
		var out []split
		cache := newPrefixCache()
		times := tr.CallTimes()
		reqs := &requestBuilder{est: opt.Estimator, count: replayerOf(tr).Counter()}
		for i := range run.Steps {
			u, _ := simulate(opt.CacheSim, cache, reqs.next(&run.Steps[i], rc.Constant), 0, run.Steps[i].Recorded, times[i], i == 0)
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
		{"anthropic: a growing history is read, the new part written", cacheAnthropic,
			[][]int{{0, 1}, {0, 1, 2}, {0, 1, 2, 3}}, []time.Duration{0, time.Minute, 2 * time.Minute},
			[]split{{0, 0, 1000 + 300}, {0, 1000 + 300, 300}, {0, 1000 + 600, 400}}},
		{"anthropic: a trim in the middle writes everything after it", cacheAnthropic,
			[][]int{{0, 1, 2}, {0, 2, 3}}, []time.Duration{0, time.Minute},
			[]split{{0, 0, 1000 + 600}, {0, 1000 + 100, 300 + 400}}},
		{"anthropic: after 5 minutes unused the cache has expired", cacheAnthropic,
			[][]int{{0, 1}, {0, 1, 2}}, []time.Duration{0, 6 * time.Minute},
			[]split{{0, 0, 1300}, {0, 0, 1600}}},
		{"anthropic: use refreshes the lifetime", cacheAnthropic,
			[][]int{{0}, {0, 1}, {0, 1, 2}}, []time.Duration{0, 4 * time.Minute, 8 * time.Minute},
			[]split{{0, 0, 1100}, {0, 1100, 200}, {0, 1300, 300}}},
		{"openai: 1,024 tokens at least, in 128-token steps, no writes", cacheOpenAI,
			[][]int{{0, 1}, {0, 1, 2}}, []time.Duration{0, time.Minute},
			[]split{{1300, 0, 0}, {1600 - 1280, 1280, 0}}},
		{"none", cacheNone, [][]int{{0}, {0, 1}}, []time.Duration{0, time.Minute}, []split{{1100, 0, 0}, {1300, 0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, tr, opt := simRun(t, tc.steps, tc.times, nil)
			opt.CacheSim = tc.sim
			rc := &RunCost{Constant: 1000}
			if diff := cmp.Diff(tc.want, usages(rc, run, tr, opt), cmp.AllowUnexported(split{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// priceRun agrees with the splits, priced, with the constant
			// it fits: 1,000.
			priced, err := priceRun(run, run, replayerOf(tr), opt)
			if err != nil {
				t.Fatal(err)
			}
			var want pricing.Cost
			p, _, _ := opt.Prices.Lookup("claude-sonnet-4-5")
			for _, s := range tc.want {
				c, err := p.CallCost(transcript.Usage{Input: s.in, CacheRead: s.read, CacheWrite: s.write})
				if err == nil {
					err = want.Add(c)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if priced.Calls != want || priced.Constant != 1000 {
				t.Errorf("priced %+v with constant %d, want %+v and 1000", priced.Calls, priced.Constant, want)
			}
		})
	}
}

// TestCacheSimTruncation: a message truncated between calls is new
// content: what follows it is written again, never read at the old size.
func TestCacheSimTruncation(t *testing.T) {
	cut := window.Item{ID: "m1", Truncated: true, Msg: &transcript.Message{Role: transcript.RoleUser,
		Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "abcd"}}}}
	run, tr, opt := simRun(t, [][]int{{0, 1, 2}, {0, 1, 2}}, []time.Duration{0, time.Minute}, map[int]window.Item{1: cut})
	if got := run.Steps[1].Tokens["chars4"]; got != 100+1+300 {
		t.Fatalf("the step with the truncated copy counts %d tokens, want 401", got)
	}
	cache := newPrefixCache()
	times := tr.CallTimes()
	reqs := &requestBuilder{est: opt.Estimator, count: replayerOf(tr).Counter()}
	for i := range run.Steps {
		st := &run.Steps[i]
		u, _ := simulate(cacheAnthropic, cache, reqs.next(st, 0), 0, st.Recorded, times[i], false)
		if u.CacheWrite < 0 || u.CacheRead > int64(st.Tokens["chars4"]) {
			t.Errorf("step %d: %+v", i, u)
		}
		if i == 1 && (u.CacheRead != 100 || u.CacheWrite != 301) {
			t.Errorf("after the truncation: read %d, wrote %d; want 100 and 301", u.CacheRead, u.CacheWrite)
		}
	}
}

// TestCacheSplitBoundaries: OpenAI caches a prompt of 1,024 tokens or
// more, from 1,024 in 128-token increments; Anthropic reads whatever
// prefix the cache holds.
func TestCacheSplitBoundaries(t *testing.T) {
	for _, tc := range []struct {
		sim         string
		total, read int
		want        transcript.Usage
	}{
		{cacheOpenAI, 1023, 1023, transcript.Usage{Input: 1023}},
		{cacheOpenAI, 1024, 1023, transcript.Usage{Input: 1024}},
		{cacheOpenAI, 1024, 1024, transcript.Usage{CacheRead: 1024}},
		{cacheOpenAI, 2000, 1151, transcript.Usage{Input: 2000 - 1024, CacheRead: 1024}},
		{cacheOpenAI, 2000, 1152, transcript.Usage{Input: 2000 - 1152, CacheRead: 1152}},
		{cacheAnthropic, 1023, 1000, transcript.Usage{CacheRead: 1000, CacheWrite: 23}},
		{cacheNone, 1024, 1024, transcript.Usage{Input: 1024}},
	} {
		if got := split(tc.sim, tc.total, tc.read); got != tc.want {
			t.Errorf("%s: %d tokens, %d cached before: got %+v, want %+v", tc.sim, tc.total, tc.read, got, tc.want)
		}
	}
}
