package cost_test

import (
	"context"
	"fmt"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

// Compare prices policies on a recorded session: the bill of what it
// recorded, and what each policy would have cost beside sending
// everything, with the provider's prompt cache simulated. A window that
// moves at every call breaks the cache's prefix at every call: here it
// sends fewer tokens and costs more.
func ExampleCompare() {
	tr, err := conformance.Generated(fixtures.DefaultGenOptions) // 50 calls
	if err != nil {
		panic(err)
	}
	policies, err := window.ParseLabeled([]string{"none", "recorded", "aidf:max_messages=20"})
	if err != nil {
		panic(err)
	}
	r, err := replay.NewReplayer(tr)
	if err != nil {
		panic(err)
	}
	c, _, err := cost.Compare(context.Background(), r, policies, replay.Options{}, cost.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("billed %s\n", c.Billed.Total())
	for _, p := range c.Policies {
		fmt.Printf("%-22s %s, saving vs none %.1f%%\n", p.Label, p.Total, 100*(*p.SavingVsNone))
	}
	// Output:
	// billed $0.3966
	// none                   $0.3966, saving vs none 0.0%
	// recorded               $0.3966, saving vs none 0.0%
	// aidf:max_messages=20   $1.1269, saving vs none -184.1%
}
