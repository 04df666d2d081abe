package reports_test

import (
	"context"
	"fmt"
	"os"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/window"
)

// WriteComparison renders what cost measured: the bill of a recorded
// session and what each policy would have cost, component by component.
func ExampleWriteComparison() {
	tr, err := conformance.Generated(fixtures.DefaultGenOptions) // 50 calls
	if err != nil {
		fmt.Println(err)
		return
	}
	policies, err := window.ParseLabeled([]string{"none", "aidf:max_messages=20"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := replay.NewReplayer(tr)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, _, err := cost.Compare(context.Background(), r, policies, replay.Options{}, cost.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := reports.WriteComparison(os.Stdout, c); err != nil {
		fmt.Println(err)
	}
	// Output:
	// gen.jsonl (f42e06a4-62aa-4c13-a95d-d4c7a152f73b; priced as claude-sonnet-4-5; cache: anthropic; 2,761 tokens per call not in the transcript; alpha 0.977 billed per estimated token (49 growths))
	// +-------------------------+---------+------------+-------------+---------+-----------+---------+----------------+
	// | policy                  | input   | cache read | cache write | output  | summaries | total   | saving vs none |
	// +-------------------------+---------+------------+-------------+---------+-----------+---------+----------------+
	// | none                    | $0.0010 |    $0.1858 |     $0.1448 | $0.0650 |   $0.0000 | $0.3966 |           0.0% |
	// | aidf:max_messages=20    | $0.0010 |    $0.0426 |     $1.0182 | $0.0650 |   $0.0000 | $1.1269 |        -184.1% |
	// | billed (recorded usage) | $0.0010 |    $0.1858 |     $0.1448 | $0.0650 |           | $0.3966 |                |
	// +-------------------------+---------+------------+-------------+---------+-----------+---------+----------------+
	// cache: aidf:max_messages=20: 40 cache breaks re-billed 145,582 tokens ($0.8298); the 19,206 tokens removed saved $0.0995 by the session's end: lost $0.7303; 3 paid for themselves after 16 calls (median); 37 never did within the session (it would have taken 455 warm calls, median)
	// assumption: cache writes use the 1-hour lifetime and price, as the transcript's did
	// assumption: a policy's call is the recorded call less alpha times the estimated tokens it did not send; where the recorded call missed the cache, it reads at most what the provider kept
	// cross-check after the fit: the recorded policy's 25 calls after the first 25, priced without their bill, cost $0.2421 against $0.2433 billed (-0.5%): input $0.0005/$0.0005, cache read $0.1411/$0.1417, cache write $0.0721/$0.0727, output $0.0284/$0.0284
	//   cross-check assumption: claude-sonnet-4-5, fitted on the first 25 calls: alpha 0.982, constant 2664 tokens; the provider's cache missed 0.0% of calls, losing 0.0% of the read at a miss, and read 0.0% of the rest beyond an ideal cache; the later calls are priced from these, without their bill, reading nothing after the cache expired
}
