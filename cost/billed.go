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
// the bill by the calls' models, as ccusage's modelBreakdowns. prices
// must not change once used ([pricing.ResolverOf]).
func Billed(t *transcript.Transcript, prices pricing.Prices, model string) (total pricing.Cost, byModel []ModelCost, err error) {
	return billed(t, pricing.ResolverOf(prices), model)
}

// billed is [Billed] through res, which resolves each model name once
// however many transcripts it prices.
func billed(t *transcript.Transcript, res *pricing.Resolver, model string) (total pricing.Cost, byModel []ModelCost, err error) {
	l := Ledger{Prices: res.Prices(), Model: model, resolver: res}
	if err := l.Add(t); err != nil {
		return pricing.Cost{}, nil, err
	}
	return l.Sessions[0].Cost, l.Sessions[0].ByModel, nil
}

// BilledPerCall returns the cost of each call's recorded usage, priced as
// [Billed] prices it, in call order: 0 for a call that recorded none. The
// unattributed usage is in no call's.
func BilledPerCall(t *transcript.Transcript, prices pricing.Prices, model string) ([]pricing.Money, error) {
	return billedPerCall(t, pricing.ResolverOf(prices), model)
}

// billedPerCall is [BilledPerCall] through res.
func billedPerCall(t *transcript.Transcript, res *pricing.Resolver, model string) ([]pricing.Money, error) {
	costs, err := billedCallCosts(t, res, model)
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
func billedCallCosts(t *transcript.Transcript, resolver *pricing.Resolver, model string) ([]pricing.Cost, error) {
	model = fallbackModel(t, model)
	var out []pricing.Cost
	look := lastLookup{resolver: resolver}
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
		p, _, err := look.Lookup(name)
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

// A CrossCheck is the out-of-sample test of the projection a policy is
// priced by: the recorded policy fitted on the first calls (alpha, the
// constant, the provider's cache behaviour), its later calls priced
// without their bill, against their bill ([Options.FitCalls]; by default
// half the calls).
type CrossCheck struct {
	AfterFit     *OutOfSample `json:"after_fit"`
	SimulatedUSD float64      `json:"simulated_usd"`
	BilledUSD    float64      `json:"billed_usd"`
	ErrorPct     float64      `json:"error_pct"`
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
	// Assumptions say, for each model, what was fitted and how the calls
	// after the fit were priced with it.
	Assumptions []string `json:"assumptions,omitempty"`
}

// newOutOfSample compares rc's calls after the fit's with their bill.
func newOutOfSample(rc *RunCost, t *transcript.Transcript, res *pricing.Resolver, model string) (*CrossCheck, error) {
	costs, err := billedCallCosts(t, res, model)
	if err != nil {
		return nil, err
	}
	o := &OutOfSample{FitCalls: rc.fitCalls, Calls: rc.afterCalls, Simulated: *rc.AfterFit, Assumptions: rc.fitAssumptions}
	for i := rc.fitCalls; i < len(costs); i++ {
		o.Billed.Add(costs[i])
	}
	o.ErrorPct = errorPct(o.Simulated.Total(), o.Billed.Total())
	return &CrossCheck{AfterFit: o, SimulatedUSD: o.Simulated.Total().USD(), BilledUSD: o.Billed.Total().USD(), ErrorPct: o.ErrorPct}, nil
}

// A lastLookup looks models up through a Resolver, remembering the last
// name it looked up: the calls of a transcript name few models, one
// after another. It is not safe for concurrent use.
type lastLookup struct {
	resolver *pricing.Resolver
	name     string
	set      bool
	price    pricing.Price
	table    string
	err      error
}

// Lookup is the Resolver's Lookup of model.
func (l *lastLookup) Lookup(model string) (pricing.Price, string, error) {
	if !l.set || model != l.name {
		l.price, l.table, l.err = l.resolver.Lookup(model)
		l.name, l.set = model, true
	}
	return l.price, l.table, l.err
}
