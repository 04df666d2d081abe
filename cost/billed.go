package cost

import (
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
)

// Billed prices the usage a transcript recorded, call by call, as ccusage
// does (input, cache reads, cache writes and output at the model's
// prices), each call at its own model where recorded, else at model (by
// default the transcript's first), at the price in effect when the call
// was made. The usage recorded for a group of calls rather than one
// ([transcript.Transcript.Unattributed]) is priced at model, at its last
// call's date; the usage recorded for a model as a whole
// ([transcript.Transcript.UnattributedByModel]) at that model. ByModel is
// the bill by the calls' models, as ccusage's modelBreakdowns.
func Billed(t *transcript.Transcript, prices pricing.Prices, model string) (total pricing.Cost, byModel []ModelCost, err error) {
	l := Ledger{Prices: prices, Model: model}
	if err := l.Add(t); err != nil {
		return pricing.Cost{}, nil, err
	}
	return l.Sessions[0].Cost, l.Sessions[0].ByModel, nil
}

// billedCalls is [Billed]'s total of the calls t records, without the
// usage of calls no record shows ([transcript.Transcript.UnattributedByModel]):
// the bill a simulation of those calls is held to.
func billedCalls(t *transcript.Transcript, prices pricing.Prices, model string) (pricing.Cost, error) {
	own := *t
	own.UnattributedByModel = nil
	total, _, err := Billed(&own, prices, model)
	return total, err
}

// BilledPerCall returns the cost of each call's recorded usage, priced as
// [Billed] prices it, in call order: 0 for a call that recorded none. The
// unattributed usage is in no call's.
func BilledPerCall(t *transcript.Transcript, prices pricing.Prices, model string) ([]pricing.Money, error) {
	costs, err := billedCallCosts(t, prices, model)
	if err != nil {
		return nil, err
	}
	out := make([]pricing.Money, len(costs))
	for i, c := range costs {
		out[i] = c.Total()
	}
	return out, nil
}

// billedCallCosts is [BilledPerCall] by component.
func billedCallCosts(t *transcript.Transcript, prices pricing.Prices, model string) ([]pricing.Cost, error) {
	model = fallbackModel(t, model)
	var out []pricing.Cost
	resolver := pricing.NewResolver(prices)
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Role != transcript.RoleAssistant {
			continue
		}
		if m.Usage == nil {
			out = append(out, pricing.Cost{})
			continue
		}
		name := m.Model
		if name == "" || name == "<synthetic>" {
			name = model
		}
		p, _, err := resolver.Lookup(name)
		if err != nil {
			return nil, err
		}
		out = append(out, p.At(m.Time).CallCost(*m.Usage))
	}
	return out, nil
}

// fallbackModel returns model, or t's first model when model is "".
func fallbackModel(t *transcript.Transcript, model string) string {
	if model == "" && len(t.Models) > 0 {
		return t.Models[0]
	}
	return model
}

// A CrossCheck compares the simulation of what the agent really sent (the
// recorded policy, priced with the cache simulated) with its bill: how
// far ctxbench's token and cache model is from what the API charged.
type CrossCheck struct {
	// AfterFit, with [Options.FitCalls], compares the calls after the
	// fit's, priced without their bill, with their bill; the fields
	// below are then the same comparison.
	AfterFit        *OutOfSample `json:"after_fit,omitempty"`
	SimulatedUSD    float64      `json:"simulated_usd"`
	BilledUSD       float64      `json:"billed_usd"`
	ErrorPct        float64      `json:"error_pct"`
	CacheReadSim    int64        `json:"cache_read_simulated"`
	CacheReadBilled int64        `json:"cache_read_billed"`
	CacheWriteSim   int64        `json:"cache_write_simulated"`
	CacheWriteBill  int64        `json:"cache_write_billed"`
}

// NewCrossCheck compares sim, the recorded policy's run priced, with the
// bill of the usage recorded; summary calls are left out (the agent's own
// compactions are in the bill as calls).
func NewCrossCheck(sim *RunCost, bill pricing.Cost, recorded transcript.Usage) *CrossCheck {
	return &CrossCheck{SimulatedUSD: sim.Calls.Total().USD(), BilledUSD: bill.Total().USD(), ErrorPct: errorPct(sim.Calls.Total(), bill.Total()),
		CacheReadSim: sim.Usage.CacheRead, CacheReadBilled: recorded.CacheRead, CacheWriteSim: sim.Usage.CacheWrite, CacheWriteBill: recorded.CacheWrite}
}

// errorPct is how far sim is from bill, in percent of bill (0 when
// nothing is billed).
func errorPct(sim, bill pricing.Money) float64 {
	if bill <= 0 {
		return 0
	}
	return (float64(sim) - float64(bill)) / float64(bill) * 100
}

// OutOfSample compares the calls after the fit's ([Options.FitCalls]),
// priced without their bill, with their bill, in all and by component.
type OutOfSample struct {
	FitCalls int `json:"fit_calls"`
	Calls    int `json:"calls"`
	// Simulated and Billed are the costs; ErrorPct how far the first is
	// from the second.
	Simulated pricing.Cost `json:"simulated"`
	Billed    pricing.Cost `json:"billed"`
	ErrorPct  float64      `json:"error_pct"`
}

// newOutOfSample compares rc's calls after the fit's with their bill.
func newOutOfSample(rc *RunCost, t *transcript.Transcript, prices pricing.Prices, model string, fitCalls int) (*CrossCheck, error) {
	costs, err := billedCallCosts(t, prices, model)
	if err != nil {
		return nil, err
	}
	o := &OutOfSample{FitCalls: fitCalls, Calls: rc.afterCalls, Simulated: *rc.AfterFit}
	for i := fitCalls; i < len(costs); i++ {
		o.Billed.Add(costs[i])
	}
	o.ErrorPct = errorPct(o.Simulated.Total(), o.Billed.Total())
	return &CrossCheck{AfterFit: o, SimulatedUSD: o.Simulated.Total().USD(), BilledUSD: o.Billed.Total().USD(), ErrorPct: o.ErrorPct}, nil
}
