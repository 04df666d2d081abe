package cost

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
)

// A callCache is what the bill says of a recorded call's cache, read
// from the bill and the transcript's markers alone, with no token
// counted.
type callCache struct {
	// ideal is the billed tokens an ideal cache (never expiring, one per
	// model) holds of the call's prompt: the prompt of its model's
	// previous call that recorded one, when nothing that call sent was
	// dropped since (no compaction, no rollback); -1 when none is known.
	ideal int
	// idle is how long after its model's previous call it came (0:
	// unknown or the first), and expired whether that cache's lifetime
	// had run out by then.
	idle    time.Duration
	expired bool
}

// callCaches returns each call's callCache, in call order. A compaction
// or a rollback between two calls changes what was already sent, for
// every model: the call after it has no ideal read known.
func callCaches(pr *pricer) []callCache {
	t := pr.t
	// cut[k]: what the agent sent was changed before message k.
	cut := map[int]bool{}
	for _, c := range t.Compactions {
		cut[c.Index] = true
	}
	for _, rb := range t.Rollbacks {
		cut[rb.Index] = true
	}
	type last struct {
		prompt int // -1: none known
		at     time.Time
	}
	lasts := map[string]*last{}
	out := make([]callCache, len(pr.calls))
	from := 0
	for i, at := range pr.calls {
		for k := from; k <= at; k++ {
			if cut[k] {
				for _, l := range lasts {
					l.prompt = -1
				}
			}
		}
		from = at + 1
		m := &t.Messages[at]
		r := pr.resolve(m)
		l, seen := lasts[r.name]
		if !seen {
			l = &last{prompt: -1}
			lasts[r.name] = l
		}
		c := callCache{ideal: l.prompt}
		if pr.noCache[r.name] {
			c.ideal = -1 // no cache to miss
		}
		if seen && !l.at.IsZero() && !m.Time.IsZero() {
			c.idle = m.Time.Sub(l.at)
		}
		c.expired = seen && r.err == nil && pr.expired(r, l.at, m.Time)
		out[i] = c
		if m.Usage != nil && m.Usage.Prompt() > 0 {
			l.prompt = int(m.Usage.Prompt())
		}
		l.at = m.Time
	}
	return out
}

// missAt says whether a recorded call missed the cache, and by how many
// billed tokens: its billed read falls short of the ideal one (-1: none
// known) by more than 1,024 tokens and a tenth of it (less is the
// provider's granularity: OpenAI caches in 128-token steps). What it
// missed is at most what it did not read.
func missAt(ideal int, bill *transcript.Usage) (missed int, ok bool) {
	if ideal < 0 {
		return 0, false
	}
	d := min(ideal, int(bill.Prompt())) - int(bill.CacheRead)
	if d > max(1024, ideal/10) {
		return d, true
	}
	return 0, false
}

// A CacheMiss is a recorded call at which the provider's cache held less
// of what the agent sent than an ideal cache would have: the prompt its
// model's previous call sent, never expiring.
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

// MarshalJSON writes the cost in dollars (cost_usd) beside the
// pico-dollars.
func (m CacheMiss) MarshalJSON() ([]byte, error) {
	type plain CacheMiss
	return json.Marshal(struct {
		plain
		CostUSD float64 `json:"cost_usd"`
	}{plain(m), m.Cost.USD()})
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
// missAt) and what each cost over a hit, at the call's model's price; a
// call, a hit or their sum past what a bill can be is an error naming
// the call.
func cacheMisses(pr *pricer, caches []callCache) ([]CacheMiss, *CacheMisses, error) {
	out := []CacheMiss{}
	totals := &CacheMisses{}
	for i, c := range caches {
		m := pr.call(i)
		r := pr.resolve(m)
		bill := m.Usage
		if r.err != nil || bill == nil {
			continue
		}
		missed, ok := missAt(c.ideal, bill)
		if !ok {
			continue
		}
		cm := CacheMiss{Call: i, Model: r.name, Missed: int64(missed), Cause: "unexplained"}
		if c.expired {
			cm.Cause, cm.IdleMinutes = "expired", math.Round(c.idle.Minutes()*10)/10
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
		missCost, err := price.CallCost(*bill)
		var hitCost pricing.Cost
		if err == nil {
			hitCost, err = price.CallCost(hit)
		}
		if err == nil {
			cm.Cost, err = missCost.Total().Plus(-hitCost.Total())
		}
		if err == nil {
			totals.Cost, err = totals.Cost.Plus(cm.Cost)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: the cache miss: %w", m.Pos, err)
		}
		totals.Calls++
		out = append(out, cm)
	}
	totals.CostUSD = totals.Cost.USD()
	return out, totals, nil
}

// A missRate is the chance that a call misses its model's cache, as a
// function of how long the model sat idle before it: logit(chance) = a +
// b·ln(idle in seconds), b ≥ 0 (an entry the provider may evict before
// its lifetime ends is likelier gone the longer it sat unused; a call
// routed to a replica without it misses whatever the idle time). With b
// = 0, or the idle time unknown, the chance is mean, the share of the
// fit's calls that missed.
type missRate struct {
	mean, a, b float64
}

// String says the rate as the assumption lines do.
func (r missRate) String() string {
	if r.b == 0 {
		return fmt.Sprintf("missed %.1f%% of calls", r.mean*100)
	}
	half := time.Duration(math.Exp(-r.a/r.b) * float64(time.Second))
	return fmt.Sprintf("missed %.1f%% of calls, more the longer the model sat idle (one in two after %s)", r.mean*100, half.Round(time.Second))
}

// at returns the chance of a miss after idle (0: unknown).
func (r missRate) at(idle time.Duration) float64 {
	if r.b == 0 || idle <= 0 {
		return r.mean
	}
	return 1 / (1 + math.Exp(-(r.a + r.b*math.Log(idle.Seconds()))))
}

// A missObs is one call of a fit: how long its model sat idle before it
// (0: unknown), whether it missed, and its weight: the tokens an ideal
// cache would have read.
type missObs struct {
	idle   time.Duration
	missed bool
	weight float64
}

// fitMissRate fits a missRate to obs by maximum likelihood, each call
// weighed by the tokens at stake: b over a grid from 0 to 8 in steps of
// a quarter (8: the chance goes from 1 in 9 to 8 in 9 as the idle time
// grows by two thirds; a steeper rise, from a fit on few calls, is not
// believed), a for each b by Newton's method. A b above 0 is kept only
// when it is likelier than 0 by more than a rounding error, so that idle
// times that say nothing fit a constant rate. Calls are pooled by idle
// time to 5%, so that the fit's work does not grow with the calls.
func fitMissRate(obs []missObs) missRate {
	type pool struct{ lnIdle, missed, hit float64 }
	pools := map[int]*pool{}
	var keys []int
	var total, missed float64
	for _, o := range obs {
		total += o.weight
		if o.missed {
			missed += o.weight
		}
		if o.idle <= 0 {
			continue
		}
		k := int(math.Round(math.Log(o.idle.Seconds()) * 20))
		p := pools[k]
		if p == nil {
			p = &pool{lnIdle: float64(k) / 20}
			pools[k] = p
			keys = append(keys, k)
		}
		if o.missed {
			p.missed += o.weight
		} else {
			p.hit += o.weight
		}
	}
	if total <= 0 {
		return missRate{}
	}
	r := missRate{mean: missed / total}
	var known, knownMissed float64
	for _, p := range pools {
		known += p.missed + p.hit
		knownMissed += p.missed
	}
	if knownMissed == 0 || knownMissed == known {
		return r
	}
	slices.Sort(keys)
	var meanLn float64
	for _, k := range keys {
		meanLn += pools[k].lnIdle * (pools[k].missed + pools[k].hit) / known
	}
	// Weights of mean 1, so that the likelihood is as sure as the calls
	// are many.
	scale := float64(len(obs)) / total
	chance := func(a, b, lnIdle float64) float64 { return 1 / (1 + math.Exp(-(a + b*lnIdle))) }
	loglik := func(a, b float64) float64 {
		var l float64
		for _, k := range keys {
			p, c := pools[k], chance(a, b, pools[k].lnIdle)
			if p.missed > 0 { // 0 · log 0 would be NaN
				l += scale * p.missed * math.Log(c)
			}
			if p.hit > 0 {
				l += scale * p.hit * math.Log1p(-c)
			}
		}
		return l
	}
	// bestA solves d loglik / da = Σ missed − Σ (missed + hit)·chance = 0
	// by Newton's method: loglik is concave in a, and some calls missed
	// and some did not, so the root exists.
	bestA := func(b float64) float64 {
		a := math.Log(knownMissed/(known-knownMissed)) - b*meanLn
		for range 100 {
			var d, dd float64
			for _, k := range keys {
				p := pools[k]
				c := chance(a, b, p.lnIdle)
				d += p.missed - (p.missed+p.hit)*c
				dd += (p.missed + p.hit) * c * (1 - c)
			}
			if dd == 0 { // every chance is 0 or 1 to the float: as far as it goes
				break
			}
			step := max(-5, min(5, d/dd))
			a += step
			if math.Abs(step) < 1e-9 {
				break
			}
		}
		return a
	}
	best, bestB := loglik(bestA(0), 0), 0.0
	for step := 1; step <= 32; step++ {
		b := float64(step) / 4
		if l := loglik(bestA(b), b); l > best+1e-9 {
			best, bestB = l, b
		}
	}
	if bestB > 0 {
		r.a, r.b = bestA(bestB), bestB
	}
	return r
}
