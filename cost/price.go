package cost

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
)

// Options configure the pricing of runs.
type Options struct {
	// Prices is the price table (nil: [pricing.Default]).
	Prices pricing.Prices
	// Model prices the calls (default: the transcript's first model).
	Model string
	// CacheSim is CacheAnthropic, CacheOpenAI or CacheNone (default: the
	// model's provider's).
	CacheSim string
	// Estimator counts the prompts; it must be one of the runs'
	// estimators (default: their primary one, when [Replay] makes them).
	Estimator estimate.Estimator
	// Counts is the count cache the runs used.
	Counts *estimate.Cache
}

func (o Options) prices() pricing.Prices {
	if o.Prices == nil {
		return pricing.Default()
	}
	return o.Prices
}

// model returns the model that prices t's calls.
func (o Options) model(t *transcript.Transcript) string {
	if o.Model == "" && len(t.Models) > 0 {
		return t.Models[0]
	}
	return o.Model
}

// RunCost is what one run would have cost.
type RunCost struct {
	Model    string `json:"model"`
	CacheSim string `json:"cache_sim"`
	// Constant is the per-call prompt the transcript does not hold (system
	// prompt, tool schemas), fitted on the recorded usage; 0 without.
	Constant int `json:"constant_tokens"`
	// Usage is the simulated usage summed over calls.
	Usage transcript.Usage `json:"usage"`
	// Calls is the cost of the calls; Summaries that of the summary calls,
	// priced apart.
	Calls     pricing.Cost  `json:"calls"`
	Summaries pricing.Cost  `json:"summaries"`
	Total     pricing.Money `json:"total_pusd"`
	// PerStep is each call's cost, in step order.
	PerStep     []pricing.Money `json:"per_step_pusd"`
	Assumptions []string        `json:"assumptions,omitempty"`
}

// PerStepUSD returns each call's cost in dollars, in step order: the
// cost_usd of the trace's lines ([replay.WriteTrace]).
func (rc *RunCost) PerStepUSD() []float64 {
	out := make([]float64, len(rc.PerStep))
	for i, m := range rc.PerStep {
		out[i] = m.USD()
	}
	return out
}

// Constant fits the per-call prompt a transcript does not hold: the median,
// over the calls with recorded usage, of the recorded prompt minus the
// estimate of what the agent sent (run must be the recorded policy's, or
// none's). It returns 0 when nothing is recorded.
func Constant(run *replay.Run, estimator string) int {
	var d []int
	for _, s := range run.Steps {
		if s.Recorded != nil && s.Recorded.Prompt() > 0 {
			d = append(d, int(s.Recorded.Prompt())-s.Tokens[estimator])
		}
	}
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return max(0, d[len(d)/2])
}

// ErrNoSteps is the error of pricing a run that kept no steps
// ([replay.Options.SummaryOnly]): its calls cannot be priced.
var ErrNoSteps = errors.New("the run kept no steps to price")

// PriceRun prices a run: each call's prompt is the estimate of what the
// policy sent plus constant, split by the cache simulation into uncached
// input, cache reads and cache writes; its output is the recorded output
// (responses are not regenerated); summary calls are priced at their own
// model's input and output rates (a mock summary at the session model's).
// A model with no price is an error [pricing.NotPriced] recognizes.
func PriceRun(run *replay.Run, t *transcript.Transcript, constant int, opt Options) (*RunCost, error) {
	prices := opt.prices()
	price, name, err := prices.Lookup(opt.model(t))
	if err != nil {
		return nil, err
	}
	if opt.Estimator == nil || opt.Counts == nil {
		return nil, fmt.Errorf("pricing %s: no estimator", t.File)
	}
	if len(run.Steps) != run.Summary.Calls {
		return nil, fmt.Errorf("pricing %s under %s: %w", t.File, run.Policy, ErrNoSteps)
	}
	sim := opt.CacheSim
	if sim == "" {
		sim = CacheSimFor(price.Provider)
	}
	rc := &RunCost{Model: name, CacheSim: sim, Constant: constant}
	cache := newPrefixCache()
	// Claude Code writes with the 1-hour lifetime: simulate the lifetime
	// the transcript's writes used, at its price.
	rec := t.Usage()
	oneHour := sim == CacheAnthropic && rec.CacheWrite1h*2 > rec.CacheWrite
	if oneHour {
		cache.ttl = time.Hour
		rc.Assumptions = append(rc.Assumptions, "cache writes use the 1-hour lifetime and price, as the transcript's did")
	}
	times := callTimes(t)
	if len(times) == 0 || times[0].IsZero() {
		rc.Assumptions = append(rc.Assumptions, "the transcript records no times: the cache is assumed never to expire")
	}
	if len(run.Steps) > 0 && run.Steps[0].Recorded != nil && run.Steps[0].Recorded.CacheRead > 0 {
		rc.Assumptions = append(rc.Assumptions, "the first call reads from the cache what it recorded reading (the cache before the session is unknown)")
	}
	counts := replay.NewCounter(opt.Counts, t)
	for i := range run.Steps {
		s := &run.Steps[i]
		var at time.Time
		if i < len(times) {
			at = times[i]
		}
		u := simulate(sim, cache, s, opt.Estimator, counts, constant, at, i == 0)
		if s.Recorded != nil {
			u.Output = s.Recorded.Output
		}
		if oneHour {
			u.CacheWrite1h = u.CacheWrite
		}
		c := price.CallCost(u)
		rc.Usage.Add(u)
		rc.Calls.Add(c)
		rc.PerStep = append(rc.PerStep, c.Total())
		if ev := s.Summary; ev != nil && (ev.Usage.Prompt() > 0 || ev.Usage.Output > 0) {
			sp := price
			if p2, _, err := prices.Lookup(ev.Model); err == nil {
				sp = p2
			}
			rc.Summaries.Add(sp.CallCost(transcript.Usage{Input: ev.Usage.Prompt(), Output: ev.Usage.Output}))
		}
	}
	rc.Total = rc.Calls.Total() + rc.Summaries.Total()
	return rc, nil
}
