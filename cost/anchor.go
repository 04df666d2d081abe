package cost

import (
	"math"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/pricing"
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
	// included), whether the recorded run compacted at it, how long
	// after its group's previous call it came (0: unknown or the first)
	// and whether that cache had expired by then.
	est, read []int
	reset     []bool
	idle      []time.Duration
	expired   []bool
	lastAt    map[string]time.Time
	// limit, when above 0, is how many calls are fitted on.
	limit int
	// fitted holds each group's alpha and constant, fitted once (once)
	// when first asked for.
	fitted map[string]*groupFit
	once   sync.Once
}

// group returns the group of call i: its model's table name ("" when not
// priced).
func (a *anchor) group(i int) string { return a.pr.resolve(a.pr.call(i)).name }

// bill returns the usage call i recorded, nil when none.
func (a *anchor) bill(i int) *transcript.Usage {
	if m := a.pr.call(i); m != nil {
		return m.Usage
	}
	return nil
}

type idealCache struct {
	cache *prefixCache
	hint  int
}

// A groupFit is a model's alpha and constant, and where alpha came from.
type groupFit struct {
	alpha    float64
	constant int
	// pairs is how many prompt growths alpha was fitted on (0: the
	// fallback, 1.0).
	pairs int
	// lost is the share of the ideal reads the provider lost at
	// unexplained misses; gain the share of the rest of the prompt it
	// read anyway at the other calls (DeepSeek's cache holds the
	// previous response too); input the median uncached input of a
	// call.
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
	read, _ := c.cache.send(req, time.Time{}, c.hint)
	c.hint = math.MaxInt
	a.est = append(a.est, est)
	a.read = append(a.read, read)
	a.reset = append(a.reset, s.Summary != nil)
	var at time.Time
	if m := a.pr.call(i); m != nil {
		at = m.Time
	}
	var idle time.Duration
	prev, seen := a.lastAt[key]
	if seen && !prev.IsZero() && !at.IsZero() {
		idle = at.Sub(prev)
	}
	r := a.pr.resolve(a.pr.call(i))
	a.idle = append(a.idle, idle)
	a.expired = append(a.expired, seen && r.err == nil && a.pr.expired(CacheSimFor(r.price.Provider), prev, at))
	if a.lastAt == nil {
		a.lastAt = map[string]time.Time{}
	}
	a.lastAt[key] = at
}

// fit fits each group's alpha and constant on the calls that recorded a
// prompt: alpha by [estimate.Alpha] over the growths between consecutive
// calls of the group with no compaction between them; the constant is
// the median of the billed prompt less alpha times the estimate.
func (a *anchor) fit(f *Fit) {
	a.fitted = map[string]*groupFit{}
	growths := map[string][]estimate.Growth{}
	last := map[string]int{}
	n := len(a.est)
	if a.limit > 0 {
		n = min(n, a.limit)
	}
	for i := range n {
		key := a.group(i)
		if a.reset[i] {
			delete(last, key)
		}
		if !f.has[i] {
			continue
		}
		if j, ok := last[key]; ok {
			growths[key] = append(growths[key], estimate.Growth{Billed: int64(f.prompt(i) - f.prompt(j)), Estimated: int64(a.est[i] - a.est[j])})
		}
		last[key] = i
	}
	for i := range a.est { // every group, fitted on its first n calls
		key := a.group(i)
		if _, ok := a.fitted[key]; ok {
			continue
		}
		g := &groupFit{}
		var ok bool
		if g.alpha, g.pairs, ok = estimate.Alpha(growths[key]); !ok {
			g.pairs = 0
		}
		// Projecting past the fit, the constant is the one since the
		// fit's last compaction: what the agent sends beside the
		// transcript changes with it.
		from := 0
		if a.limit > 0 {
			for j := range n {
				if a.reset[j] && a.group(j) == key {
					from = j
				}
			}
		}
		var d, in []int
		for j := from; j < n; j++ {
			if f.has[j] && a.group(j) == key {
				d = append(d, f.prompt(j)-int(math.Round(g.alpha*float64(a.est[j]))))
				in = append(in, int(a.bill(j).Input))
			}
		}
		g.constant, g.input = median(d), median(in)
		a.fitted[key] = g
	}
	// The provider's cache against an ideal one: what it lost at the
	// misses no idle spell explains, and what it read beyond the ideal
	// read at the other calls that read.
	type tally struct{ ideal, lost, rest, extra int }
	tallies := map[string]*tally{}
	for j := range n {
		key := a.group(j)
		if !f.has[j] || a.expired[j] {
			continue
		}
		t := tallies[key]
		if t == nil {
			t = &tally{}
			tallies[key] = t
		}
		x := a.ideal(j, a.fitted[key], int64(f.prompt(j)))
		t.ideal += x
		if missed, ok := missAt(x, a.bill(j)); ok {
			t.lost += missed
		} else if x > 0 {
			t.rest += max(0, f.prompt(j)-x)
			t.extra += max(0, int(a.bill(j).CacheRead)-x)
		}
	}
	for key, t := range tallies {
		g := a.fitted[key]
		if t.ideal > 0 {
			g.lost = float64(t.lost) / float64(t.ideal)
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

// missAt says whether a recorded call missed the cache, and by how many
// billed tokens: its billed read falls short of the ideal one by more
// than 1,024 tokens and a tenth of it (less is the estimate's noise).
// What it missed is at most what it did not read.
func missAt(ideal int, bill *transcript.Usage) (missed int, ok bool) {
	d := min(ideal, int(bill.Prompt())) - int(bill.CacheRead)
	if d > max(1024, ideal/10) {
		return d, true
	}
	return 0, false
}

// anchoredUsage is the usage of a policy's call: the bill of the
// recorded call less what the policy did not send, with the cache the
// recorded call found. recEst and est are the estimates of what the
// agent and the policy sent; ideal is what an ideal cache read of the
// agent's request (billed tokens), read and hit what the policy's ideal
// cache read of its own (estimated tokens past the constant); writes says
// the provider writes what it does not read (Anthropic), oneHour that it
// writes for an hour when the bill does not say.
//
// The prompt is the billed prompt less alpha times the estimated tokens
// the policy sent fewer than the agent. Where the recorded call missed
// the cache, the policy's read is at most what the provider kept (the
// billed read); elsewhere it is the billed read plus what the policy's
// ideal cache reads beyond the agent's. The rest is written, the
// uncached input kept at the bill's, or is all input (no cache writes).
func anchoredUsage(bill *transcript.Usage, g *groupFit, recEst, est, ideal, read int, hit, writes, oneHour bool) transcript.Usage {
	prompt := max(0, int(bill.Prompt())-int(math.Round(g.alpha*float64(recEst-est))))
	y := idealRead(prompt, est, read, hit, g)
	s := int(bill.CacheRead)
	var r int
	if _, missed := missAt(ideal, bill); missed {
		r = min(y, s)
	} else {
		r = s + y - ideal
	}
	r = max(0, min(r, prompt))
	rest := prompt - r
	u := transcript.Usage{CacheRead: int64(r), Input: int64(rest)}
	if writes {
		in := min(int(bill.Input), rest)
		u.Input, u.CacheWrite = int64(in), int64(rest-in)
		switch {
		case bill.CacheWrite > 0:
			u.CacheWrite1h = u.CacheWrite * bill.CacheWrite1h / bill.CacheWrite
		case oneHour:
			u.CacheWrite1h = u.CacheWrite
		}
	}
	return u
}

// A CacheMiss is a recorded call at which the provider's cache held less
// of what the agent sent than an ideal cache would have: the prefix the
// previous calls sent, never expiring.
type CacheMiss struct {
	// Call is the call's index, Model the model that priced it.
	Call  int    `json:"call"`
	Model string `json:"model"`
	// Missed is the billed tokens an ideal cache would have read that the
	// call did not.
	Missed int64 `json:"missed_tokens"`
	// Cause is "expired" when the model's previous call came longer ago
	// than the cache's lifetime (IdleMinutes before), else "unexplained"
	// (routing, eviction).
	Cause       string  `json:"cause"`
	IdleMinutes float64 `json:"idle_minutes,omitempty"`
	// Cost is what the call cost over reading those tokens.
	Cost pricing.Money `json:"cost_pusd"`
}

// CacheMisses sums a session's misses.
type CacheMisses struct {
	Calls       int           `json:"calls"`
	Expired     int           `json:"expired"`
	Unexplained int           `json:"unexplained"`
	Cost        pricing.Money `json:"cost_pusd"`
	CostUSD     float64       `json:"cost_usd"`
}

// cacheMisses finds the recorded calls that missed the cache (see
// missAt) and what each cost over a hit, at the call's model's price.
func cacheMisses(fit *Fit) ([]CacheMiss, *CacheMisses) {
	if fit == nil || fit.anchor == nil {
		return nil, nil
	}
	a := fit.anchor
	out := []CacheMiss{}
	totals := &CacheMisses{}
	for i := range fit.has {
		m := a.pr.call(i)
		r := a.pr.resolve(m)
		g := fit.groupFit(r.name)
		if r.err != nil || !fit.has[i] || g == nil {
			continue
		}
		bill := m.Usage
		missed, ok := missAt(a.ideal(i, g, bill.Prompt()), bill)
		if !ok {
			continue
		}
		cm := CacheMiss{Call: i, Model: r.name, Missed: int64(missed), Cause: "unexplained"}
		if a.expired[i] {
			cm.Cause, cm.IdleMinutes = "expired", math.Round(a.idle[i].Minutes()*10)/10
			totals.Expired++
		} else {
			totals.Unexplained++
		}
		price := r.price.At(m.Time)
		hit := *bill
		hit.CacheRead += cm.Missed
		w := min(cm.Missed, hit.CacheWrite)
		if hit.CacheWrite > 0 {
			hit.CacheWrite1h -= w * hit.CacheWrite1h / hit.CacheWrite
		}
		hit.CacheWrite -= w
		hit.Input = max(0, hit.Input-(cm.Missed-w))
		cm.Cost = price.CallCost(*bill).Total() - price.CallCost(hit).Total()
		totals.Calls++
		totals.Cost += cm.Cost
		out = append(out, cm)
	}
	totals.CostUSD = totals.Cost.USD()
	return out, totals
}

// projected is the usage of call i, which [Options.FitCalls] prices
// without its bill: the constant plus alpha times the estimate of what
// the policy sent; the policy's ideal read (read, estimated tokens with
// the constant) less the share the provider lost before, plus the share
// of the rest it read anyway before, nothing after the cache expired;
// the rest written but the group's usual uncached input (Anthropic), or
// all input.
func (p *RunPricer) projected(i int, g *modelGroup, s *replay.Step, read int) transcript.Usage {
	gf := g.fit
	prompt := gf.constant + int(math.Round(gf.alpha*float64(s.Tokens[p.reqs.est.Name()])))
	ideal := billedRead(read-g.constant, read > 0, gf)
	r := int(float64(ideal) * (1 - gf.lost))
	if ideal > 0 {
		r += int(gf.gain * float64(max(0, prompt-ideal)))
	}
	if p.pr.fit.anchor.expired[i] {
		r = 0
	}
	r = max(0, min(r, prompt))
	if g.sim != CacheAnthropic {
		return split(g.sim, prompt, r)
	}
	rest := prompt - r
	in := min(gf.input, rest)
	u := transcript.Usage{Input: int64(in), CacheRead: int64(r), CacheWrite: int64(rest - in)}
	if p.pr.oneHour {
		u.CacheWrite1h = u.CacheWrite
	}
	return u
}
