package cost

import (
	"encoding/json"
	"fmt"
	"math"
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
