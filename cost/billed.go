package cost

import (
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
)

// Billed prices the usage a transcript recorded, call by call, as ccusage
// does (input, cache reads, cache writes and output at the model's
// prices), each call at its own model where recorded, else at model.
func Billed(t *transcript.Transcript, prices pricing.Prices, model string) (pricing.Cost, error) {
	var total pricing.Cost
	err := billCalls(t, prices, model, func(c pricing.Cost, _ bool) { total.Add(c) })
	return total, err
}

// BilledPerCall returns the cost of each call's recorded usage, priced as
// [Billed] prices it, in call order: 0 for a call that recorded none.
func BilledPerCall(t *transcript.Transcript, prices pricing.Prices, model string) ([]pricing.Money, error) {
	var out []pricing.Money
	err := billCalls(t, prices, model, func(c pricing.Cost, call bool) {
		if call {
			out = append(out, c.Total())
		}
	})
	return out, err
}

// billCalls calls fn with the cost of each message of t that is a call
// (an assistant message, call true) or records usage.
func billCalls(t *transcript.Transcript, prices pricing.Prices, model string, fn func(c pricing.Cost, call bool)) error {
	for i := range t.Messages {
		m := &t.Messages[i]
		call := m.Role == transcript.RoleAssistant
		if m.Usage == nil {
			if call {
				fn(pricing.Cost{}, true)
			}
			continue
		}
		name := m.Model
		if name == "" || name == "<synthetic>" {
			name = model
		}
		p, _, err := prices.Lookup(name)
		if err != nil {
			return err
		}
		fn(p.CallCost(*m.Usage), call)
	}
	return nil
}

// A CrossCheck compares the simulation of what the agent really sent (the
// recorded policy, priced with the cache simulated) with its bill: how
// far ctxbench's token and cache model is from what the API charged.
type CrossCheck struct {
	SimulatedUSD    float64 `json:"simulated_usd"`
	BilledUSD       float64 `json:"billed_usd"`
	ErrorPct        float64 `json:"error_pct"`
	CacheReadSim    int64   `json:"cache_read_simulated"`
	CacheReadBilled int64   `json:"cache_read_billed"`
	CacheWriteSim   int64   `json:"cache_write_simulated"`
	CacheWriteBill  int64   `json:"cache_write_billed"`
}

// NewCrossCheck compares sim, the recorded policy's run priced, with the
// bill of the usage recorded; summary calls are left out (the agent's own
// compactions are in the bill as calls).
func NewCrossCheck(sim *RunCost, bill pricing.Cost, recorded transcript.Usage) *CrossCheck {
	x := &CrossCheck{SimulatedUSD: sim.Calls.Total().USD(), BilledUSD: bill.Total().USD(),
		CacheReadSim: sim.Usage.CacheRead, CacheReadBilled: recorded.CacheRead, CacheWriteSim: sim.Usage.CacheWrite, CacheWriteBill: recorded.CacheWrite}
	if b := bill.Total(); b > 0 {
		x.ErrorPct = (float64(sim.Calls.Total()) - float64(b)) / float64(b) * 100
	}
	return x
}
