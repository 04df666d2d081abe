package cost

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/cost/internal/prefix"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A CacheBreak is a call at which what is sent first differs from what
// the previous call to the same model sent while its cache was still
// warm: the provider reads the prompt from the cache only up to that
// point, and bills the rest as new. It is what a clearing, a truncation
// or a compaction costs before it saves anything.
//
// The event is judged against one counterfactual: the same run without
// this one change. Cost is what the call paid to write (or send
// uncached) the old content after the break, over reading it; Saved is
// what sending Removed fewer tokens saves from this call to the end of
// the session, each call at its own rates (a cache read where that call
// read from the cache, else a write or uncached input). A later event
// does not reduce an earlier one's savings: each is judged alone.
type CacheBreak struct {
	Step int `json:"step"`
	// Index is the position, in the call's context, of the first item
	// that differs from the previous call's.
	Index int `json:"index"`
	// Rebilled is the tokens of content already sent (as the call now
	// sends it) that the call wrote again after the break instead of
	// reading; Cost is what that cost over reading them. Tokens are the
	// bill's (alpha times the estimate) where the run is priced from the
	// bill, else the estimate's.
	Rebilled int64         `json:"rebilled_tokens"`
	Cost     pricing.Money `json:"cost_pusd"`
	// Removed is the tokens the policy took out of the history it was
	// given at this call (0 when it took out none, or added more than it
	// took); Saved is what not sending them saves, this call and after.
	Removed int64         `json:"removed_tokens"`
	Saved   pricing.Money `json:"saved_pusd"`
	// BreakEven is the calls, counted from this one, after which the
	// savings cover Cost: within the session when Paid, else projected
	// at the cache-read rate a warm call would save (0: never, the event
	// removed nothing).
	BreakEven int  `json:"break_even_calls"`
	Paid      bool `json:"paid"`
	// readRate is what one token read from the cache costs at this call.
	readRate pricing.Money
}

// Net is what the event saved, less what its break cost: negative when
// it lost money.
func (b CacheBreak) Net() pricing.Money { return b.Saved - b.Cost }

// breakUSD is a break's (or their sum's) amounts in dollars, written
// beside the pico-dollars.
type breakUSD struct {
	CostUSD  float64 `json:"cost_usd"`
	SavedUSD float64 `json:"saved_usd"`
}

// MarshalJSON writes the amounts in dollars (cost_usd, saved_usd) beside
// the pico-dollars.
func (b CacheBreak) MarshalJSON() ([]byte, error) {
	type plain CacheBreak
	return json.Marshal(struct {
		plain
		breakUSD
	}{plain(b), breakUSD{b.Cost.USD(), b.Saved.USD()}})
}

// MarshalJSON writes the amounts in dollars (cost_usd, saved_usd) beside
// the pico-dollars.
func (c CacheBreaks) MarshalJSON() ([]byte, error) {
	type plain CacheBreaks
	return json.Marshal(struct {
		plain
		breakUSD
	}{plain(c), breakUSD{c.Cost.USD(), c.Saved.USD()}})
}

// CacheBreaks totals a run's cache breaks.
type CacheBreaks struct {
	Breaks   int           `json:"breaks"`
	Rebilled int64         `json:"rebilled_tokens"`
	Cost     pricing.Money `json:"cost_pusd"`
	Removed  int64         `json:"removed_tokens"`
	Saved    pricing.Money `json:"saved_pusd"`
	// Unpaid counts the breaks that never paid for themselves within the
	// session.
	Unpaid int `json:"unpaid"`
}

// Net is the breaks' savings less their cost.
func (c CacheBreaks) Net() pricing.Money { return c.Saved - c.Cost }

// A breakTracker finds a run's cache breaks call by call and, at the
// end, weighs each against the savings of the calls after it.
type breakTracker struct {
	t     *transcript.Transcript
	est   estimate.Estimator
	count func(estimate.Estimator, window.Item) int
	calls []int // each call's assistant message
	// rates[j] is what one more prompt token would have cost call j.
	rates  []pricing.Money
	events []CacheBreak
	// prevSent is the tokens the previous call sent (any model).
	prevSent int
	// old marks the ids of the previous request after a break, reused.
	old idMarks
}

// idMarks is a set of item ids, emptied in constant time: a transcript
// message's id ("m" and its index) by a stamp at its index, any other
// (a summary's) in a map. Pricing a sliding window marks the whole
// previous request at every call.
type idMarks struct {
	gen    uint32
	stamps []uint32 // stamps[index] == gen: "m<index>" is in the set
	other  map[string]bool
}

// reset empties the set.
func (m *idMarks) reset() {
	if m.gen++; m.gen == 0 { // wrapped: old stamps could match again
		clear(m.stamps)
		m.gen = 1
	}
	clear(m.other)
}

func (m *idMarks) add(id string) {
	if i, ok := messageIndex(id); ok {
		if i >= len(m.stamps) {
			m.stamps = append(m.stamps, make([]uint32, i+1-len(m.stamps))...)
		}
		m.stamps[i] = m.gen
		return
	}
	if m.other == nil {
		m.other = map[string]bool{}
	}
	m.other[id] = true
}

func (m *idMarks) has(id string) bool {
	if i, ok := messageIndex(id); ok {
		return i < len(m.stamps) && m.stamps[i] == m.gen
	}
	return m.other[id]
}

// messageIndex reads the index of a transcript message's id, "m<index>"
// (an index past 2²⁴ is left to the map: a stamp per message up to it).
func messageIndex(id string) (int, bool) {
	if len(id) < 2 || len(id) > 9 || id[0] != 'm' || id[1] == '0' && len(id) > 2 {
		return 0, false
	}
	n := 0
	for i := 1; i < len(id); i++ {
		c := id[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n < 1<<24
}

// lastRequest is the request a model group sent last, and when.
type lastRequest struct {
	req prefix.Request
	at  time.Time
}

// observe looks at call k: req is what it sent to group g, sharing its
// first shared positions with g's previous request, u its usage, price
// its price, oneHour whether g writes for an hour
// ([pricer.oneHourWrites]); anchored, when set, says u was priced from
// the bill (in billed tokens, alpha per estimated token), else u was
// simulated over req. It records a break when g's previous request is
// still warm and req does not extend it.
//
// An error is a cost past what a bill can be: the call's, or the
// counterfactual's.
func (b *breakTracker) observe(k int, s *replay.Step, at time.Time, g *modelGroup, req prefix.Request, shared int, u transcript.Usage, price pricing.Price, oneHour bool, anchored *groupFit) error {
	r := price.RatesFor(u.Prompt())
	rate := r.CacheRead
	if u.CacheRead == 0 {
		switch {
		case oneHour:
			rate = r.CacheWrite1h
		case g.sim == cacheAnthropic:
			rate = r.CacheWrite5m
		default:
			rate = r.Input
		}
	}
	b.rates = append(b.rates, rate)
	sent := s.Tokens[b.est.Name()]
	removed := max(0, b.given(k, s)-sent)
	if anchored != nil {
		removed = int(math.Round(anchored.alpha * float64(removed)))
	}
	b.prevSent = sent
	last := g.last
	g.last = &lastRequest{req: req, at: at}
	if last == nil || g.sim == cacheNone || !warm(last.at, at, g.cache.TTL()) {
		return nil
	}
	n := shared
	if n == last.req.Positions() {
		return nil // the previous request is a prefix: nothing broke
	}
	// What the call sent after the break that the last request held: a
	// request holds each item once, and the two agree before n, so only
	// the last request's items from n on can be among those after it.
	old := &b.old
	old.reset()
	for j := max(n, 1); j < last.req.Positions(); j++ {
		old.add(baseID(last.req.Key(j)))
	}
	var rebilled int
	for j := max(n, 1); j < req.Positions(); j++ {
		if old.has(baseID(req.Key(j))) {
			rebilled += req.Tokens(j+1) - req.Tokens(j)
		}
	}
	// The counterfactual: the same call reading what it wrote again.
	var cf transcript.Usage
	if anchored != nil {
		// Priced from the bill: move the old content, in billed tokens,
		// from what the call wrote (or sent uncached) to what it read.
		rebilled = int(math.Round(anchored.alpha * float64(rebilled)))
		cf = u
		if g.sim == cacheAnthropic {
			rebilled = min(rebilled, int(u.CacheWrite))
			if u.CacheWrite > 0 {
				cf.CacheWrite1h -= int64(rebilled) * u.CacheWrite1h / u.CacheWrite
			}
			cf.CacheWrite -= int64(rebilled)
		} else {
			rebilled = min(rebilled, int(u.Input))
			cf.Input -= int64(rebilled)
		}
		cf.CacheRead += int64(rebilled)
	} else {
		if g.sim == cacheAnthropic {
			rebilled = min(rebilled, int(u.CacheWrite))
		} else {
			rebilled = min(rebilled, int(u.Input))
		}
		cf = split(g.sim, req.Total(), min(req.Total(), int(u.CacheRead)+rebilled))
		cf.Output = u.Output
		if oneHour {
			u.CacheWrite1h, cf.CacheWrite1h = u.CacheWrite, cf.CacheWrite
		}
	}
	broke, err := price.CallCost(u)
	var kept pricing.Cost
	if err == nil {
		kept, err = price.CallCost(cf)
	}
	if err != nil {
		return b.error(k, "the cache break", err)
	}
	ev := CacheBreak{Step: k, Index: max(n-1, 0), Rebilled: int64(rebilled),
		Cost: broke.Total() - kept.Total(), Removed: int64(removed), readRate: r.CacheRead}
	b.events = append(b.events, ev)
	return nil
}

// error names call k's record in err, the error of what.
func (b *breakTracker) error(k int, what string, err error) error {
	where := b.t.File
	if k < len(b.calls) {
		where = b.t.Messages[b.calls[k]].Pos.String()
	}
	return fmt.Errorf("%s: %s: %w", where, what, err)
}

// given returns the tokens of the history the policy was given at call
// k: what call k−1 sent, that call's assistant message, and the turn.
func (b *breakTracker) given(k int, s *replay.Step) int {
	if k == 0 {
		return s.Tokens[b.est.Name()]
	}
	n := b.prevSent
	if k-1 < len(b.calls) {
		n += b.count(b.est, window.Original(b.t, b.calls[k-1]))
	}
	for _, id := range s.Appended {
		if i, err := strconv.Atoi(strings.TrimPrefix(id, "m")); err == nil && i < len(b.t.Messages) {
			n += b.count(b.est, window.Original(b.t, i))
		}
	}
	return n
}

// warm reports whether a request made at then is still cached at now.
func warm(then, now time.Time, ttl time.Duration) bool {
	return then.IsZero() || now.IsZero() || !now.After(then.Add(ttl))
}

// baseID returns the item id of a request key ("m12@0x…" → "m12").
func baseID(key string) string {
	id, _, _ := strings.Cut(key, "@")
	return id
}

// finish weighs each break against the calls from it to the end, and
// returns the breaks and their totals, or the error of an amount past
// what Money holds, naming the break's call.
func (b *breakTracker) finish() ([]CacheBreak, CacheBreaks, error) {
	// suffix[j] is what one token costs over calls j… (suffix[len] = 0),
	// or -1 from where the sum passes what Money holds.
	suffix := make([]pricing.Money, len(b.rates)+1)
	for j := len(b.rates) - 1; j >= 0; j-- {
		var err error
		if suffix[j], err = suffix[j+1].Plus(b.rates[j]); err != nil || suffix[j+1] < 0 {
			suffix[j] = -1
		}
	}
	var tot CacheBreaks
	for i := range b.events {
		ev := &b.events[i]
		k, per := ev.Step, pricing.Money(ev.Removed)
		var err error
		if suffix[k] < 0 {
			err = &pricing.AmountError{Sum: true}
		} else {
			ev.Saved, err = per.Times(int64(suffix[k]))
		}
		// The first c with per × (suffix[k] − suffix[k+c]) ≥ Cost: no
		// more than Saved.
		switch {
		case err != nil:
		case ev.Saved >= ev.Cost:
			ev.Paid = true
			ev.BreakEven = sort.Search(len(b.rates)-k, func(c int) bool {
				return per*(suffix[k]-suffix[k+c+1]) >= ev.Cost
			}) + 1
		case per > 0 && ev.readRate > 0:
			var step pricing.Money
			if step, err = per.Times(int64(ev.readRate)); err == nil {
				ev.BreakEven = int(ev.Cost / step) // Cost > Saved ≥ 0
				if ev.Cost%step != 0 {
					ev.BreakEven++
				}
			}
		}
		if err == nil {
			tot.Cost, err = tot.Cost.Plus(ev.Cost)
		}
		if err == nil {
			tot.Saved, err = tot.Saved.Plus(ev.Saved)
		}
		if err == nil { // Net, the event's and the totals', fits too
			if _, err = ev.Saved.Plus(-ev.Cost); err == nil {
				_, err = tot.Saved.Plus(-tot.Cost)
			}
		}
		if err != nil {
			return nil, CacheBreaks{}, b.error(k, "the cache break's savings", err)
		}
		tot.Breaks++
		tot.Rebilled += ev.Rebilled
		tot.Removed += ev.Removed
		if !ev.Paid {
			tot.Unpaid++
		}
	}
	return b.events, tot, nil
}
