package report

import (
	"fmt"
	"io"

	"github.com/ctxbench/ctxbench/window"
)

// WritePolicies writes `ctxbench policies`' text: each policy's summary
// and source, the models it is held to and by what, where it differs on
// purpose, and a table of its parameters (default, valid values,
// meaning); then how a policy is named on the command line.
func WritePolicies(w io.Writer, specs []*window.Spec) error {
	for _, s := range specs {
		fmt.Fprintf(w, "%s: %s\n  source: %s\n", s.Name, s.Summary, s.Source)
		if s.Models != "" {
			fmt.Fprintf(w, "  models: %s, held to it by %s\n", s.Models, s.Held)
		}
		for _, d := range s.Differs {
			fmt.Fprintf(w, "  differs on purpose: %s\n", d)
		}
		if len(s.Params) == 0 {
			fmt.Fprintln(w, "  no parameters")
			fmt.Fprintln(w)
			continue
		}
		t := Table{Header: []string{"parameter", "default", "valid", "meaning"}}
		for _, pa := range s.Params {
			def := pa.Default
			if def == "" {
				def = `""`
			}
			t.Rows = append(t.Rows, []string{pa.Name, def, pa.Range(), pa.Help})
		}
		if err := t.WriteText(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintln(w, "A policy SPEC is NAME or NAME:key=value,key=value (for example aidf:max_messages=30,preserve_last_n=8).")
	return err
}
