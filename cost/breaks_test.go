package cost

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// clearOnce is a test policy that sends the whole history but, from call
// at on, message clear cut to one token ("abcd"), as a clearing policy
// replaces an old tool result with a placeholder.
type clearOnce struct{ at, clear int }

func (*clearOnce) Name() string          { return "clear-once" }
func (*clearOnce) Params() window.Values { return window.Values{} }
func (p *clearOnce) Apply(_ context.Context, env *window.Env, _ *window.State, hist []window.Item) (window.Step, error) {
	if env.Call < p.at {
		return window.Step{History: hist}, nil
	}
	out := make([]window.Item, len(hist))
	for i, it := range hist {
		if it.Index() == p.clear {
			m := transcript.Message{Role: it.Msg.Role, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "abcd"}}}
			it = window.Item{ID: it.ID, Msg: &m, Truncated: true}
		}
		out[i] = it
	}
	return window.Step{History: out}, nil
}

// breakRun replays turns user messages of sizes[i] chars4 tokens (10
// past the sizes given), each answered by "ok" (1 token) a minute
// apart, under p, and prices the run at Claude Sonnet 4.5: input $3,
// cache read $0.30, 5-minute cache write $3.75 per million tokens, no
// constant (nothing recorded).
func breakRun(t *testing.T, turns int, sizes []int, p window.Policy) *RunCost {
	return breakRunGap(t, turns, sizes, time.Minute, p)
}

func breakRunGap(t *testing.T, turns int, sizes []int, gap time.Duration, p window.Policy) *RunCost {
	return breakRunOf(t, &transcript.Transcript{ID: "breaks", File: "breaks.jsonl", Models: []string{"claude-sonnet-4-5"}}, turns, sizes,
		func(i int) time.Duration { return time.Duration(i) * gap }, p)
}

// breakRunOf is [breakRunGap] on tr, its messages appended, call i made
// at(i) after the first.
func breakRunOf(t *testing.T, tr *transcript.Transcript, turns int, sizes []int, at func(i int) time.Duration, p window.Policy) *RunCost {
	t.Helper()
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range turns {
		n := 10
		if i < len(sizes) {
			n = sizes[i]
		}
		tr.Messages = append(tr.Messages,
			transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: strings.Repeat("abcd", n)}}},
			transcript.Message{Role: transcript.RoleAssistant, Model: "claude-sonnet-4-5", Time: start.Add(at(i)),
				Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "ok"}}})
	}
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	r := replayerOf(tr)
	run, err := r.Replay(context.Background(), p, replay.Options{Estimators: []estimate.Estimator{e}})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := priceRun(run, run, r, Options{Prices: pricing.Default(), Estimator: e})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// Sonnet 4.5's rates in pico-dollars per token.
const (
	sonnetRead  = 300_000
	sonnetWrite = 3_750_000
)

// TestCacheBreakLoses: a 2,000-token result cleared in front of 100,000
// tokens, three calls before the end. The call writes the 100,002
// tokens after it that the previous call sent (the cut copy, a1, u2)
// again instead of reading them (a2 and u3 are new: written anyway); the 1,999 tokens it removed save a read on each of the three
// calls left. It lost money, and would have needed 576 warm calls.
func TestCacheBreakLoses(t *testing.T) {
	rc := breakRun(t, 6, []int{1000, 2000, 100_000}, &clearOnce{at: 3, clear: 2})
	cost := pricing.Money(100_002 * (sonnetWrite - sonnetRead))
	saved := pricing.Money(1999 * sonnetRead * 3)
	want := []CacheBreak{{Step: 3, Index: 2, Rebilled: 100_002, Cost: cost, Removed: 1999, Saved: saved,
		BreakEven: 576 /* ⌈cost ÷ (1,999 × read)⌉ */, Paid: false}}
	if diff := cmp.Diff(want, rc.Breaks, cmpopts.IgnoreUnexported(CacheBreak{})); diff != "" {
		t.Errorf("breaks (-want +got):\n%s", diff)
	}
	tot := rc.BreakTotals
	if tot.Breaks != 1 || tot.Unpaid != 1 || tot.Net() != saved-cost || tot.Net() >= 0 {
		t.Errorf("totals %+v: want one unpaid break, net %v", tot, saved-cost)
	}
}

// TestCacheBreakOneHour: a session that writes with the 1-hour lifetime
// (Claude Code's) pays the 1-hour write rate, twice the input's, for
// what a break writes again, and a token it removed saves that rate on a
// later call that misses the cache (the last, two hours after the one
// before) and a read on each call that reads; the 5-minute rate values
// the breaks of a session that writes with that lifetime
// (TestCacheBreakLoses).
func TestCacheBreakOneHour(t *testing.T) {
	tr := &transcript.Transcript{ID: "breaks", File: "breaks.jsonl", Models: []string{"claude-sonnet-4-5"},
		Unattributed: &transcript.Usage{CacheWrite: 1000, CacheWrite1h: 1000}}
	at := func(i int) time.Duration {
		if i == 5 {
			return 4*time.Minute + 2*time.Hour
		}
		return time.Duration(i) * time.Minute
	}
	rc := breakRunOf(t, tr, 6, []int{1000, 2000, 100_000}, at, &clearOnce{at: 3, clear: 2})
	const sonnetWrite1h = 6_000_000
	want := []CacheBreak{{Step: 3, Index: 2, Rebilled: 100_002, Cost: pricing.Money(100_002 * (sonnetWrite1h - sonnetRead)), Removed: 1999,
		Saved: pricing.Money(1999 * (2*sonnetRead + sonnetWrite1h)), BreakEven: 951 /* ⌈cost ÷ (1,999 × read)⌉ */, Paid: false}}
	if diff := cmp.Diff(want, rc.Breaks, cmpopts.IgnoreUnexported(CacheBreak{})); diff != "" {
		t.Errorf("breaks (-want +got):\n%s", diff)
	}
}

// TestCacheBreakWins: a 20,000-token result cleared in front of 30,000
// tokens with 22 calls left. The 30,002 tokens written again (the cut
// copy, a1, u2) cost 30,002 × (write − read); the 19,999 tokens removed
// save 19,999 reads a call, which covers it on the 18th call.
func TestCacheBreakWins(t *testing.T) {
	rc := breakRun(t, 25, []int{1000, 20_000, 30_000}, &clearOnce{at: 3, clear: 2})
	cost := pricing.Money(30_002 * (sonnetWrite - sonnetRead))
	want := []CacheBreak{{Step: 3, Index: 2, Rebilled: 30_002, Cost: cost, Removed: 19_999,
		Saved: pricing.Money(19_999 * sonnetRead * 22), BreakEven: 18, Paid: true}}
	if diff := cmp.Diff(want, rc.Breaks, cmpopts.IgnoreUnexported(CacheBreak{})); diff != "" {
		t.Errorf("breaks (-want +got):\n%s", diff)
	}
	if tot := rc.BreakTotals; tot.Unpaid != 0 || tot.Net() <= 0 {
		t.Errorf("totals %+v: want the break paid and a positive net", tot)
	}
}

// TestCacheBreakNeedsWarmCache: a change after the cache expired, or to
// a history only appended to, is no break.
func TestCacheBreakNeedsWarmCache(t *testing.T) {
	if rc := breakRun(t, 6, []int{1000, 2000, 100_000}, &clearOnce{at: 99, clear: 2}); len(rc.Breaks) != 0 {
		t.Errorf("a history only appended to broke the cache: %+v", rc.Breaks)
	}
	// The same clearing with the calls 6 minutes apart: the 5-minute
	// cache has expired, everything is written anyway.
	if rc := breakRunGap(t, 6, []int{1000, 2000, 100_000}, 6*time.Minute, &clearOnce{at: 3, clear: 2}); len(rc.Breaks) != 0 {
		t.Errorf("a change to an expired cache broke it: %+v", rc.Breaks)
	}
	if rc := breakRunGap(t, 6, []int{1000, 2000, 100_000}, 5*time.Minute, &clearOnce{at: 3, clear: 2}); len(rc.Breaks) != 1 {
		t.Errorf("5 minutes apart, the cache is warm: want one break, got %+v", rc.Breaks)
	}
}

// TestAnchoredBreakCost: a break in a run priced from the bill costs what
// writing the old content again costs over reading it, in billed tokens:
// never less than nothing. Before, the counterfactual was simulated over
// the estimate (with its constant) while the call was in billed tokens,
// and aidf's first breaks on this session "cost" -$0.1658 and -$0.1409.
func TestAnchoredBreakCost(t *testing.T) {
	tr := corpusFile(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	s, err := Replay(context.Background(), replayerOf(tr), policies(t, "aidf:max_messages=10"), replay.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := pricing.Default().Lookup("claude-opus-4-6")
	if err != nil {
		t.Fatal(err)
	}
	rates := p.At(time.Time{}).RatesFor(0)
	rc := s.Costs[0]
	if len(rc.Breaks) < 10 {
		t.Fatalf("%d breaks; want aidf's many", len(rc.Breaks))
	}
	for _, b := range rc.Breaks {
		u := rc.PerStepUsage[b.Step]
		if u.Prompt() >= int64(p.LongContextThreshold()) {
			continue
		}
		// The session writes with the 1-hour lifetime.
		if want := pricing.Money(b.Rebilled) * (rates.CacheWrite1h - rates.CacheRead); b.Cost != want || b.Cost < 0 {
			t.Errorf("break at call %d: %d tokens written again cost %v over reading them; want %v", b.Step, b.Rebilled, b.Cost, want)
		}
	}
}

// TestIDMarks: the set of ids a break is weighed with holds what was
// added since it was last emptied, whatever the kind of id, and
// emptying it survives its stamps wrapping around.
func TestIDMarks(t *testing.T) {
	var m idMarks
	m.reset()
	for _, id := range []string{"m0", "m7", "s1", "m012", "m", "m99999999"} {
		m.add(id)
	}
	for id, want := range map[string]bool{"m0": true, "m7": true, "s1": true, "m012": true, "m": true, "m99999999": true, "m12": false, "m1": false, "s2": false} {
		if m.has(id) != want {
			t.Errorf("has(%q) = %v, want %v", id, !want, want)
		}
	}
	m.reset()
	if m.has("m7") || m.has("s1") || m.has("m99999999") {
		t.Error("emptied, the set still holds ids")
	}
	m.add("m3")
	m.gen = math.MaxUint32
	m.add("m5")
	m.reset()
	if m.has("m3") || m.has("m5") {
		t.Error("after the stamps wrapped, the set still holds ids")
	}
	if _, ok := messageIndex("m" + strings.Repeat("9", 8)); ok {
		t.Error("an index past 2^24 is a message index")
	}
}
