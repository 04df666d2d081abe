package estimate_test

import (
	"fmt"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// The same text counted by the chars/4 heuristic and by OpenAI's
// cl100k_base encoding, and a message with the per-message overhead.
func ExampleNew() {
	text := "Read the failing test, then fix the off-by-one in the pager."
	for _, name := range []string{"chars4", "cl100k_base"} {
		e, err := estimate.New(name, estimate.OverheadNone)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d tokens (exact %v)\n", e.Name(), e.Count(text), e.Exact())
	}
	e := estimate.MustNew("cl100k_base", estimate.OverheadOpenAI)
	m := transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: text}}}
	fmt.Printf("as a message: %d tokens\n", e.CountMessage(&m))
	// Output:
	// chars4: 15 tokens (exact false)
	// cl100k_base: 15 tokens (exact true)
	// as a message: 19 tokens
}
