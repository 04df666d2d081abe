package cost

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

// A Comparison is what each policy would have cost on one transcript,
// against sending everything and against the bill: `ctxbench cost`'s
// result for a transcript.
type Comparison struct {
	File     string       `json:"file"`
	ID       string       `json:"id"`
	Policies []PolicyCost `json:"policies"`
	// Billed is the recorded usage priced (nil: none recorded), and
	// CrossCheck the recorded policy's simulation against it.
	Billed     *Bill       `json:"billed,omitempty"`
	CrossCheck *CrossCheck `json:"cross_check,omitempty"`
	// CacheMisses sums the recorded calls at which the provider's cache
	// held less than an ideal one (Misses lists them): every policy's
	// calls inherit them.
	CacheMisses *CacheMisses `json:"cache_misses,omitempty"`
	Misses      []CacheMiss  `json:"misses,omitempty"`
}

// A PolicyCost is one policy's cost on a transcript.
type PolicyCost struct {
	Label string `json:"label"`
	*RunCost
	TotalUSD float64 `json:"total_usd"`
	// SavingVsNone is 1 − this total / none's total (0 when none costs
	// nothing); nil when none was not replayed ([Recorded]).
	SavingVsNone *float64 `json:"saving_vs_none,omitempty"`
}

// A Bill is a transcript's recorded usage priced, and the cost the agent
// itself reported, where it did.
type Bill struct {
	pricing.Cost
	TotalUSD    float64 `json:"total_usd"`
	ReportedUSD float64 `json:"reported_usd,omitempty"`
	// ByModel is the bill by the model of the calls.
	ByModel []ModelCost `json:"by_model"`
}

// MarshalJSON writes the components as [pricing.Cost] does, beside the
// bill's other fields (the embedded Cost's own method would drop them).
func (b Bill) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		pricing.CostJSON
		TotalUSD    float64     `json:"total_usd"`
		ReportedUSD float64     `json:"reported_usd,omitempty"`
		ByModel     []ModelCost `json:"by_model"`
	}{b.Cost.JSON(), b.TotalUSD, b.ReportedUSD, b.ByModel})
}

// Compare prices the policies on r's transcript ([Replay]) beside none,
// the baseline
// of each policy's saving (replayed once, whether or not the policies
// list it). A transcript that cannot be priced returns a nil Comparison
// and the Session, whose NotPriced says why.
func Compare(ctx context.Context, r *replay.Replayer, policies []window.Labeled, ropt replay.Options, opt Options) (*Comparison, *Session, error) {
	t := r.Transcript()
	ps := make([]window.Policy, 0, len(policies)+1)
	for _, lp := range policies {
		ps = append(ps, lp.Policy)
	}
	none := slices.IndexFunc(ps, func(p window.Policy) bool { return p.Name() == "none" })
	if none < 0 {
		p, err := window.Parse("none")
		if err != nil {
			return nil, nil, err
		}
		ps, none = append(ps, p), len(ps)
	}
	s, err := Replay(ctx, r, ps, ropt, opt)
	if err != nil || s.NotPriced != nil {
		return nil, s, err
	}
	c := &Comparison{File: t.File, ID: t.ID, CrossCheck: s.CrossCheck, CacheMisses: s.MissTotals, Misses: s.Misses}
	base := s.Costs[none].Total
	for k, lp := range policies {
		rc := s.Costs[k]
		saving := 0.0
		if base > 0 {
			saving = 1 - float64(rc.Total)/float64(base)
		}
		pc := PolicyCost{Label: lp.Label, RunCost: rc, TotalUSD: rc.Total.USD(), SavingVsNone: &saving}
		c.Policies = append(c.Policies, pc)
	}
	if s.Billed != nil {
		c.Billed = &Bill{Cost: *s.Billed, TotalUSD: s.Billed.Total().USD(), ReportedUSD: t.ReportedCostUSD, ByModel: s.BilledByModel}
	}
	return c, s, nil
}
