package jsonstream

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type doc struct {
	Name  string `json:"name"`
	Items any    `json:"items"`
	Runs  []run  `json:"runs"`
	Tail  []int  `json:"tail"`
}

type run struct {
	Label string `json:"label"`
	Steps any    `json:"steps"`
}

// TestWriteEqualsWholeEncoding: a document written with its arrays
// streamed is, compact and indented, the bytes encoding/json writes of it
// whole, nested streams, empty ones and strings that look like markers
// included.
func TestWriteEqualsWholeEncoding(t *testing.T) {
	steps := [][]map[string]any{{{"a": 1, "b": []int{1, 2}}, {"a": 2, "html": "<&>"}}, {}, {{"x": "\u0000jsonstream:0\u0000"}}}
	whole := doc{Name: "n <x>", Items: []string{"i", "j"}, Tail: []int{3}}
	for k, st := range steps {
		whole.Runs = append(whole.Runs, run{Label: string(rune('a' + k)), Steps: st})
	}
	for _, indent := range []bool{false, true} {
		var d Document
		streamed := doc{Name: whole.Name, Tail: whole.Tail}
		streamed.Items = d.Stream(func(emit func([]byte) error) error {
			for _, s := range []string{"i", "j"} {
				b, _ := json.Marshal(s)
				if err := emit(b); err != nil {
					return err
				}
			}
			return nil
		})
		for k, st := range steps {
			streamed.Runs = append(streamed.Runs, run{Label: whole.Runs[k].Label, Steps: d.Stream(func(emit func([]byte) error) error {
				for _, s := range st {
					var b bytes.Buffer
					enc := json.NewEncoder(&b)
					enc.SetEscapeHTML(false)
					if err := enc.Encode(s); err != nil {
						return err
					}
					if err := emit(bytes.TrimSuffix(b.Bytes(), []byte("\n"))); err != nil {
						return err
					}
				}
				return nil
			})})
		}
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if indent {
			enc.SetIndent("", "  ")
		}
		if err := enc.Encode(whole); err != nil {
			t.Fatal(err)
		}
		if err := d.Write(&got, streamed, indent); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("indent %v (-whole +streamed):\n%s", indent, diff)
		}
	}
}
