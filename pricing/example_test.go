package pricing_test

import (
	"fmt"

	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
)

// A call's cost by component, from the embedded price table: the prompt
// read mostly from the cache, a little written to it.
func ExamplePrice_CallCost() {
	p, ok := pricing.Default()["claude-sonnet-4-5"]
	if !ok {
		fmt.Println("not priced")
		return
	}
	c, err := p.CallCost(transcript.Usage{Input: 1_200, CacheRead: 40_000, CacheWrite: 2_000, Output: 800})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("input $%.4f, cache read $%.4f, cache write $%.4f, output $%.4f\n",
		c.Input.USD(), c.CacheRead.USD(), c.CacheWrite.USD(), c.Output.USD())
	fmt.Println("total", c.Total())
	// Output:
	// input $0.0036, cache read $0.0120, cache write $0.0075, output $0.0120
	// total $0.0351
}
