package replay_test

import (
	"context"
	"fmt"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

// Replay sends a recorded session through a policy, call by call, and
// measures what each call would have sent and which invariants broke.
func ExampleReplay() {
	tr, err := conformance.Generated(fixtures.DefaultGenOptions) // 50 calls, 70% tool use
	if err != nil {
		panic(err)
	}
	for _, spec := range []string{"none", "aidf:max_messages=20", "aidf:max_messages=20,pair_safe=true"} {
		p, err := window.Parse(spec)
		if err != nil {
			panic(err)
		}
		run, err := replay.Replay(context.Background(), tr, p, replay.Options{})
		if err != nil {
			panic(err)
		}
		s := run.Summary
		fmt.Printf("%-36s peak %d messages, %d tokens; violations %v\n",
			spec, s.PeakMessages, s.PeakTokens["cl100k_base"], s.Violations)
	}
	// Output:
	// none                                 peak 114 messages, 22040 tokens; violations map[]
	// aidf:max_messages=20                 peak 21 messages, 7475 tokens; violations map[tool_pairing:33]
	// aidf:max_messages=20,pair_safe=true  peak 24 messages, 7861 tokens; violations map[]
}
