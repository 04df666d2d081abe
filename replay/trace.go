package replay

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// traceLine is one line of the trace, the contract of DESIGN.md §4: fields
// may be added, none may change meaning. cost_usd and retention are added
// by the cost and report work; until then they are absent, not zero.
type traceLine struct {
	Transcript string               `json:"transcript"`
	Policy     string               `json:"policy"`
	Params     window.Values        `json:"params"`
	Step       int                  `json:"step"`
	Appended   []string             `json:"appended"`
	Context    []string             `json:"context"`
	Evicted    []string             `json:"evicted"`
	Truncated  []string             `json:"truncated"`
	Summary    *window.SummaryEvent `json:"summary,omitempty"`
	Messages   int                  `json:"messages"`
	Tokens     map[string]int       `json:"tokens"`
	Recorded   *transcript.Usage    `json:"recorded,omitempty"`
	Warnings   []string             `json:"warnings,omitempty"`
	Violations []Violation          `json:"violations"`
}

// WriteTrace writes one JSON object per call of run, one per line.
func WriteTrace(w io.Writer, run *Run) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, s := range run.Steps {
		err := enc.Encode(traceLine{Transcript: run.Transcript, Policy: run.Policy, Params: run.Params, Step: s.Step,
			Appended: s.Appended, Context: s.Context, Evicted: s.Evicted, Truncated: s.Truncated, Summary: s.Summary,
			Messages: s.Messages, Tokens: s.Tokens, Recorded: s.Recorded, Warnings: s.Warnings, Violations: s.Violation})
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}
