package replay

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/ctxbench/ctxbench/window"
)

// traceLine is one line of the trace, the contract of DESIGN.md §4: the
// transcript, the policy and its parameters, then the step's fields.
// Fields may be added, none may change meaning; cost_usd and retention are
// added by the cost and report work, and until then are absent, not zero.
type traceLine struct {
	Transcript string        `json:"transcript"`
	Policy     string        `json:"policy"`
	Params     window.Values `json:"params"`
	*Step
}

// WriteTrace writes one JSON object per call of run, one per line.
func WriteTrace(w io.Writer, run *Run) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range run.Steps {
		if err := enc.Encode(traceLine{Transcript: run.Transcript, Policy: run.Policy, Params: run.Params, Step: &run.Steps[i]}); err != nil {
			return err
		}
	}
	return bw.Flush()
}
