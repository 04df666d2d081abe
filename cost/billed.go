package cost

import (
	"fmt"

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
// must not change once used (internal/resolve).
func billedCost(t *transcript.Transcript, prices pricing.Prices, model string) (total pricing.Cost, byModel []ModelCost, err error) {
	b, err := billOf(t, prices, model)
	return b.total, b.byModel, err
}

// A billedUsage is a transcript's recorded usage priced once: in all and by
// model ([billedCost]), and call by call, each call's cost by component in
// call order (zero for a call that recorded none).
type billedUsage struct {
	total   pricing.Cost
	byModel []ModelCost
	calls   []pricing.Cost
}

// billOf prices t's recorded usage at prices, model pricing the calls
// that record none: one ledger entry, its items read back call by call.
func billOf(t *transcript.Transcript, prices pricing.Prices, model string) (billedUsage, error) {
	e, err := (&Ledger{Prices: prices, Model: model}).Entry(t)
	if err != nil {
		return billedUsage{}, err
	}
	return billFrom(t, e)
}

// billFrom reads t's bill back from e, t's ledger entry: in all, by
// model, and call by call. An entry that is not t's, or left some of its
// calls out (a ledger with days), is an error.
func billFrom(t *transcript.Transcript, e *LedgerEntry) (billedUsage, error) {
	// The entry holds an item for each message with usage, in order, and
	// then the usage no call recorded.
	var b billedUsage
	k := 0
	for i := range t.Messages {
		m := &t.Messages[i]
		var c pricing.Cost
		if m.Usage != nil {
			if e.ID != t.ID || e.File != t.File || k >= len(e.Items) || !e.Items[k].Call {
				return billedUsage{}, fmt.Errorf("%s: the ledger entry does not hold every call of the transcript", t.File)
			}
			c = e.Items[k].Cost
			k++
		}
		if m.Role == transcript.RoleAssistant {
			b.calls = append(b.calls, c)
		}
	}
	var l Ledger
	if err := l.AddEntry(e); err != nil {
		return billedUsage{}, err
	}
	b.total, b.byModel = l.Sessions[0].Cost, l.Sessions[0].ByModel
	return b, nil
}

// perCall is each call's cost in all.
func (b billedUsage) perCall() []pricing.Money {
	out := make([]pricing.Money, len(b.calls))
	for i, c := range b.calls {
		out[i] = c.Total()
	}
	return out
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
	AfterFit     *heldOut `json:"after_fit"`
	SimulatedUSD float64  `json:"simulated_usd"`
	BilledUSD    float64  `json:"billed_usd"`
	ErrorPct     float64  `json:"error_pct"`
}

// errorPct is how far sim is from bill, in percent of bill (0 when
// nothing is billed).
func errorPct(sim, bill pricing.Money) float64 {
	if bill <= 0 {
		return 0
	}
	return (float64(sim) - float64(bill)) / float64(bill) * 100
}

// heldOut compares the calls after the fit's ([Options.FitCalls]),
// priced without their bill, with their bill, in all and by component.
type heldOut struct {
	FitCalls int `json:"fit_calls"`
	// Calls are the calls after the fit compared with their bill;
	// Unbilled the calls after the fit whose bill records no prompt (a
	// Codex rollout's last turn with no token_count after it), left out
	// of both sides.
	Calls    int `json:"calls"`
	Unbilled int `json:"unbilled_calls,omitempty"`
	// Simulated and Billed are the costs; ErrorPct how far the first is
	// from the second.
	Simulated pricing.Cost `json:"simulated"`
	Billed    pricing.Cost `json:"billed"`
	ErrorPct  float64      `json:"error_pct"`
	// Assumptions say, for each model, what was fitted and how the calls
	// after the fit were priced with it.
	Assumptions []string `json:"assumptions,omitempty"`
}

// newHeldOut compares rc's calls after the fit's with their bill,
// costs (each call's, in call order), or returns the error of their sum
// past what Money holds.
func newHeldOut(rc *RunCost, costs []pricing.Cost) (*CrossCheck, error) {
	o := &heldOut{FitCalls: rc.fitCalls, Calls: rc.afterCalls - len(rc.afterUnbilled), Unbilled: len(rc.afterUnbilled),
		Simulated: *rc.AfterFit, Assumptions: rc.fitAssumptions}
	skip := rc.afterUnbilled // in call order
	for i := rc.fitCalls; i < len(costs); i++ {
		if len(skip) > 0 && skip[0] == i {
			skip = skip[1:]
			continue
		}
		if err := o.Billed.Add(costs[i]); err != nil {
			return nil, fmt.Errorf("the bill of the calls after the fit's: %w", err)
		}
	}
	o.ErrorPct = errorPct(o.Simulated.Total(), o.Billed.Total())
	return &CrossCheck{AfterFit: o, SimulatedUSD: o.Simulated.Total().USD(), BilledUSD: o.Billed.Total().USD(), ErrorPct: o.ErrorPct}, nil
}
