package cost

import "github.com/ctxbench/ctxbench/transcript"

// Recorded prices the recorded policy alone, labelled label: what the
// agent really sent costs the bill, call by call ([billedCost]), so nothing
// is replayed and no token counted. Beside it are the bill and the
// cache misses the bill shows against an ideal cache ([CacheMiss]); what
// only a replay gives — alpha, the constant, the cache breaks of the
// agent's own compactions, the saving against none — is left out.
//
// The options' Model, CacheSim and FitCalls are not used: a what-if
// model, a simulated cache and an out-of-sample test price without the
// bill, which [Compare] does. A transcript that cannot be priced
// returns a nil Comparison and the error [pricing.NotPriced] recognizes.
func Recorded(t *transcript.Transcript, label string, opt Options) (*Comparison, error) {
	e, err := (&Ledger{Prices: opt.prices()}).Entry(t)
	if err != nil {
		return nil, err
	}
	return e.Recorded(t, label, opt)
}

// Recorded returns what the function [Recorded] returns for t, priced
// from e: the entry of t that a [Ledger] of opt's prices, with no model
// and no days of its own, made ([Ledger.Entry]), so that a caller that
// keeps such a ledger prices each call once. An entry of another transcript, or one that left calls out, is
// an error.
func (e *LedgerEntry) Recorded(t *transcript.Transcript, label string, opt Options) (*Comparison, error) {
	b, err := billFrom(t, e)
	if err != nil {
		return nil, err
	}
	bill, byModel := b.total, b.byModel
	rc := &RunCost{CacheSim: cacheBill, Usage: t.Usage(), Calls: bill, Total: bill.Total(), ByModel: byModel,
		PerStep: b.perCall(), PerStepUsage: make([]transcript.Usage, 0, len(b.calls)), Breaks: []CacheBreak{}}
	for i := range t.Messages { // each call's usage is its bill's
		if m := &t.Messages[i]; m.Role == transcript.RoleAssistant {
			var u transcript.Usage
			if m.Usage != nil {
				u = *m.Usage
			}
			rc.PerStepUsage = append(rc.PerStepUsage, u)
		}
	}
	for _, mu := range t.UnattributedByModel {
		rc.Usage.Add(mu.Usage)
	}
	most := 0
	for _, m := range byModel {
		if rc.Model == "" || m.Calls > most {
			rc.Model, most = m.Model, m.Calls
		}
	}
	pr := newPricer(t, nil, opt)
	c := &Comparison{File: t.File, ID: t.ID, Policies: []PolicyCost{{Label: label, RunCost: rc, TotalUSD: rc.Total.USD()}},
		Billed: &Bill{Cost: bill, TotalUSD: bill.Total().USD(), ReportedUSD: t.ReportedCostUSD, ByModel: byModel}}
	if c.Misses, c.CacheMisses, err = cacheMisses(pr, callCaches(pr)); err != nil {
		return nil, err
	}
	return c, nil
}

// cacheBill is the CacheSim of a run priced from the bill alone
// ([Recorded]): what the provider really read and wrote.
const cacheBill = "the bill's"

// FromBill reports whether the run was priced from the bill alone
// ([Recorded]), its cache what the provider really read and wrote,
// rather than simulated.
func (rc *RunCost) FromBill() bool { return rc.CacheSim == cacheBill }
