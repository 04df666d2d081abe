package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctxbench/ctxbench/window"
)

// traceLine is one line of the trace, the contract of DESIGN.md §4: the
// transcript, the policy and its parameters, then the step's fields, and
// the call's cost. Fields may be added, none may change meaning; cost_usd
// is absent, not zero, when the run is not priced.
type traceLine struct {
	Transcript string        `json:"transcript"`
	Policy     string        `json:"policy"`
	Params     window.Values `json:"params"`
	*Step
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// WriteTrace writes one JSON object per call of run, one per line.
// costUSD, if not nil, is each call's cost in dollars, in step order (the
// engine does not price: package cost does); a line's cost_usd is its
// call's, without the summary call its step may make.
func WriteTrace(w io.Writer, run *Run, costUSD []float64) error {
	if costUSD != nil && len(costUSD) != len(run.Steps) {
		return fmt.Errorf("tracing %s: %d calls priced for %d steps", run.Transcript, len(costUSD), len(run.Steps))
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range run.Steps {
		l := traceLine{Transcript: run.Transcript, Policy: run.Policy, Params: run.Params, Step: &run.Steps[i]}
		if costUSD != nil {
			l.CostUSD = &costUSD[i]
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return bw.Flush()
}
