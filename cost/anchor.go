package cost

import (
	"math"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/cost/internal/prefix"
	"github.com/ctxbench/ctxbench/internal/family"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
)

// An anchor is what pricing a policy against the bill takes from the
// recorded policy's run: for each call, the estimate of what the agent
// sent and what an ideal cache would have read of it; and, per model,
// the billed tokens per estimated token (alpha) and the prompt the
// transcript does not hold (the constant).
type anchor struct {
	// pr resolves each call's model, its group: the pricer's grouping.
	pr   *pricer
	reqs *requestBuilder
	// caches are the ideal caches of the recorded run, by group: they
	// never expire, and position 0 weighs one token (a marker: a read of
	// 0 tokens is no read at all).
	caches map[string]*idealCache
	// Per call: the recorded run's estimate, its ideal read (marker
	// included) and whether the recorded run compacted at it.
	est, read []int
	reset     []bool
	// calls is what the bill says of each call's cache.
	calls []callCache
	// fitted holds, for each number of calls fitted on (0: all) and
	// what-if model, each group's alpha and constant, fitted once when
	// first asked for (mu guards it: the runs' pricers ask at once).
	fitted map[fitKey]map[string]*groupFit
	mu     sync.Mutex
	// spread, when set, is the bill of calls that recorded none of their
	// own, shared out over them ([recordedFit.spreadBill]).
	spread *spread
}

// A fitKey names a fit: on how many calls (0: all), for which what-if
// model ("": each call's own).
type fitKey struct {
	limit int
	model string
}

// group returns the group of call i: its own model's table name (""
// when not priced).
func (a *anchor) group(i int) string { return a.pr.resolve(a.pr.call(i)).name }

// bill returns the usage call i recorded, or its share of a bill
// recorded for the calls together ([spread]); nil when none.
func (a *anchor) bill(i int) *transcript.Usage {
	if a.spread != nil && i < len(a.spread.usage) {
		return &a.spread.usage[i]
	}
	if m := a.pr.call(i); m != nil {
		return m.Usage
	}
	return nil
}

type idealCache struct {
	cache *prefix.Cache
	hint  int
}

// A groupFit is a model's alpha and constant, and where alpha came from.
type groupFit struct {
	alpha    float64
	constant int
	// pairs is how many prompt growths alpha was fitted on (0: too few:
	// the alpha of family over the corpus, or 1 when family is "").
	pairs  int
	family string
	// alphaFrom says where a family's alpha comes from.
	alphaFrom string
	// misses is the chance of an unexplained miss by idle time, and lost
	// the share of the ideal read the provider lost at one; gain is the
	// share of the rest of the prompt it read anyway at the other calls
	// (DeepSeek's cache holds the previous response too); input the
	// median uncached input of a call.
	misses     stats.MissRate
	lost, gain float64
	input      int
}

// add adds the recorded run's step s (call i).
func (a *anchor) add(i int, s *replay.Step, est int) {
	key := a.group(i)
	for _, c := range a.caches {
		c.hint = min(c.hint, s.Kept()+1)
	}
	req := a.reqs.next(s, 1)
	c, ok := a.caches[key]
	if !ok {
		c = &idealCache{cache: newPrefixCache()}
		a.caches[key] = c
	}
	read, _ := c.cache.Send(req, time.Time{}, c.hint)
	c.hint = math.MaxInt
	a.est = append(a.est, est)
	a.read = append(a.read, read)
	a.reset = append(a.reset, s.Summary != nil)
}

// fit fits each group's alpha and constant on the first limit calls (0:
// all) that recorded a prompt: alpha by [family.Alpha] over the
// growths between consecutive calls of the group with no compaction
// between them; the constant is the median of the billed prompt less
// alpha times the estimate.
func (a *anchor) fit(f *recordedFit, limit int, group func(call int) string) map[string]*groupFit {
	n := len(a.est)
	if limit > 0 {
		n = min(n, limit)
	}
	growths := a.growths(f, n, group)
	fitted := map[string]*groupFit{}
	for i := range a.est { // every group, fitted on its first n calls
		key := group(i)
		if _, ok := fitted[key]; !ok {
			fitted[key] = a.fitGroup(f, key, growths[key], n, limit > 0, group)
		}
	}
	a.fitCache(f, fitted, n, limit > 0, group)
	return fitted
}

// growths returns each group's prompt growths between consecutive calls
// of the first n that recorded a prompt, with no compaction between.
func (a *anchor) growths(f *recordedFit, n int, group func(call int) string) map[string][]family.Growth {
	growths := map[string][]family.Growth{}
	last := map[string]int{}
	for i := range n {
		key := group(i)
		if a.reset[i] {
			delete(last, key)
		}
		if !f.has[i] {
			continue
		}
		if j, ok := last[key]; ok {
			growths[key] = append(growths[key], family.Growth{Billed: int64(f.prompt(i) - f.prompt(j)), Estimated: int64(a.est[i] - a.est[j])})
		}
		last[key] = i
	}
	return growths
}

// fitGroup fits group key's alpha on its growths (too few: the family's
// over the corpus, else 1) and its constant and uncached input, the
// medians over its first n calls; limited (a fit on the first calls
// alone), the constant is the one since the fit's last compaction: what
// the agent sends beside the transcript changes with it.
func (a *anchor) fitGroup(f *recordedFit, key string, growths []family.Growth, n int, limited bool, group func(call int) string) *groupFit {
	g := &groupFit{}
	var ok bool
	if sp := a.spread; sp != nil {
		// The prompts were shared out by an alpha, not billed: their
		// growths measure nothing.
		g.alpha, g.family, g.alphaFrom = sp.alpha, sp.family, sp.from
	} else if g.alpha, g.pairs, ok = family.Alpha(growths); !ok {
		g.pairs, g.alpha = 0, 1
		if fa, family, from, ok := family.ModelAlpha(key, f.estimator); ok {
			g.alpha, g.family, g.alphaFrom = fa, family, from
		}
	}
	from := 0
	if limited {
		for j := range n {
			if a.reset[j] && group(j) == key {
				from = j
			}
		}
	}
	var d, in []int
	for j := from; j < n; j++ {
		if f.has[j] && group(j) == key {
			d = append(d, f.prompt(j)-int(math.Round(g.alpha*float64(a.est[j]))))
			in = append(in, int(a.bill(j).Input))
		}
	}
	g.constant, g.input = stats.MedianFloor(d), stats.MedianFloor(in)
	return g
}

// cacheTally is a group's provider cache against an ideal one over the
// fit's calls: what it lost at the misses no idle spell explains, and
// what it read beyond the ideal read at the other calls that read.
type cacheTally struct {
	missedIdeal, lost, rest, extra int
	obs                            []stats.MissObs
}

// fitCache fits each group's cache losses and gains on the first n
// calls; limited, also its miss rate (only the calls after a fit are
// priced by a rate).
func (a *anchor) fitCache(f *recordedFit, fitted map[string]*groupFit, n int, limited bool, group func(call int) string) {
	tallies := map[string]*cacheTally{}
	for j := range n {
		key := group(j)
		x := a.calls[j].ideal
		if !f.has[j] || a.calls[j].expired || x <= 0 {
			continue
		}
		t := tallies[key]
		if t == nil {
			t = &cacheTally{}
			tallies[key] = t
		}
		missed, ok := missAt(x, a.bill(j))
		t.obs = append(t.obs, stats.MissObs{Idle: a.calls[j].idle, Missed: ok, Weight: float64(x)})
		if ok {
			t.missedIdeal += x
			t.lost += missed
		} else {
			t.rest += max(0, f.prompt(j)-x)
			t.extra += max(0, int(a.bill(j).CacheRead)-x)
		}
	}
	for key, t := range tallies {
		g := fitted[key]
		if limited {
			g.misses = stats.FitMissRate(t.obs)
		}
		if t.missedIdeal > 0 {
			g.lost = float64(t.lost) / float64(t.missedIdeal)
		}
		if t.rest > 0 {
			g.gain = min(1, float64(t.extra)/float64(t.rest))
		}
	}
}

// ideal returns what an ideal cache would have read of the recorded
// run's call i, in billed tokens.
//
// It is measured from the bill, not built up from the constant: the
// billed prompt less alpha times the estimate of what the call sent
// beyond the prefix an ideal cache holds, so that a system prompt that
// changes during the session (after a compaction, say) is no miss.
func (a *anchor) ideal(i int, g *groupFit, prompt int64) int {
	return idealRead(int(prompt), a.est[i], a.read[i]-1, a.read[i] > 0, g)
}

// idealRead is what an ideal cache reads of a prompt of billed tokens
// whose estimate is est, of which it holds the first read estimated
// tokens (hit false: nothing): the prompt less alpha times the rest.
func idealRead(prompt, est, read int, hit bool, g *groupFit) int {
	if !hit {
		return 0
	}
	return max(0, prompt-int(math.Round(g.alpha*float64(est-read))))
}

// billedRead converts a read of est estimated tokens past the constant
// into billed tokens: none when nothing was read, else the constant
// and alpha times the rest.
func billedRead(est int, hit bool, g *groupFit) int {
	if !hit {
		return 0
	}
	return g.constant + int(math.Round(g.alpha*float64(est)))
}

// An anchoredCall is what [anchoredUsage] prices a policy's call from,
// beside the recorded call's bill.
type anchoredCall struct {
	// recEst and est are the estimates of what the agent and the policy
	// sent.
	recEst, est int
	// ideal is what an ideal cache reads of the agent's request (billed
	// tokens, measured as [anchor.ideal] does), missed whether the
	// recorded call missed the cache ([missAt]).
	ideal  int
	missed bool
	// read and hit are the policy's ideal cache read of its own
	// (estimated tokens past the constant; hit false: nothing read).
	read int
	hit  bool
	// writes says the provider writes what it does not read (Anthropic),
	// oneHour that it writes for an hour ([pricer.oneHourWrites]) when
	// the bill does not say.
	writes, oneHour bool
}

// anchoredUsage is the usage of policy call c: the bill of the recorded
// call less what the policy did not send, with the cache the recorded
// call found.
//
// The prompt is the billed prompt less alpha times the estimated tokens
// the policy sent fewer than the agent. Where the recorded call missed
// the cache, the policy's read is at most what the provider kept (the
// billed read); elsewhere it is the billed read plus what the policy's
// ideal cache reads beyond the agent's. The rest is written, the
// uncached input kept at the bill's, or is all input (no cache writes).
func anchoredUsage(bill *transcript.Usage, g *groupFit, c anchoredCall) transcript.Usage {
	prompt := max(0, int(bill.Prompt())-int(math.Round(g.alpha*float64(c.recEst-c.est))))
	y := idealRead(prompt, c.est, c.read, c.hit, g)
	s := int(bill.CacheRead)
	var r int
	if c.missed {
		r = min(y, s)
	} else {
		r = s + y - c.ideal
	}
	r = max(0, min(r, prompt))
	rest := prompt - r
	u := transcript.Usage{CacheRead: int64(r), Input: int64(rest)}
	if c.writes {
		in := min(int(bill.Input), rest)
		u.Input, u.CacheWrite = int64(in), int64(rest-in)
		switch {
		case bill.CacheWrite > 0:
			u.CacheWrite1h = u.CacheWrite * bill.CacheWrite1h / bill.CacheWrite
		case c.oneHour:
			u.CacheWrite1h = u.CacheWrite
		}
	}
	return u
}

// projected is the usage of call i, which [Options.FitCalls] prices
// without its bill: the constant plus alpha times the estimate of what
// the policy sent; the policy's ideal read (read, estimated tokens with
// the constant) less its expected loss: the chance of a miss after the
// call's idle time times the share lost at a miss before; plus the
// share of the rest it read anyway before, nothing after the cache
// expired;
// the rest written but the group's usual uncached input (Anthropic), or
// all input.
func (p *runPricer) projected(i int, g *modelGroup, s *replay.Step, read int) transcript.Usage {
	gf := g.fit
	prompt := gf.constant + int(math.Round(gf.alpha*float64(s.Tokens[p.reqs.est.Name()])))
	ideal := billedRead(read-g.constant, read > 0, gf)
	c := p.pr.fit.anchor.calls[i]
	r := int(float64(ideal) * (1 - gf.lost*gf.misses.At(c.idle)))
	if ideal > 0 {
		r += int(gf.gain * float64(max(0, prompt-ideal)))
	}
	if c.expired {
		r = 0
	}
	r = max(0, min(r, prompt))
	if g.sim != cacheAnthropic {
		return split(g.sim, prompt, r)
	}
	rest := prompt - r
	in := min(gf.input, rest)
	u := transcript.Usage{Input: int64(in), CacheRead: int64(r), CacheWrite: int64(rest - in)}
	if p.pr.oneHourWrites(g.sim) {
		u.CacheWrite1h = u.CacheWrite
	}
	return u
}
