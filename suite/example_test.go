package suite_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ctxbench/ctxbench/suite"
)

// A suite checked against its baseline: the report's failing cases, and
// the metrics that changed beyond their tolerance.
func Example() {
	cfg, err := suite.LoadConfig("testdata/ctxbench.yaml")
	if err != nil {
		log.Fatal(err)
	}
	base, err := suite.LoadBaseline(cfg.BaselinePath())
	if err != nil {
		log.Fatal(err)
	}
	rep, err := suite.Check(context.Background(), cfg, base, suite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d of %d cases fail\n", rep.Failed(), len(rep.Cases))
	for _, c := range rep.Cases {
		for _, d := range c.Deltas {
			if d.Verdict != suite.Within {
				fmt.Printf("%s | %s: %s %g → %g, %s\n", c.File, c.Policy, d.Metric, d.Base, d.Now, d.Verdict)
			}
		}
		for _, b := range c.Budgets {
			fmt.Printf("%s | %s: %s\n", c.File, c.Policy, b)
		}
	}
	// Output:
	// 2 of 4 cases fail
	// ../../fixtures/corpus/spotter/subagent.jsonl | none: 31 is over the budget 30 (max_messages)
	// ../../fixtures/corpus/spotter/tool_heavy.jsonl | none: input_tokens 1400 → 1469, worse
}
