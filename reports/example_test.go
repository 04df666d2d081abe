package reports_test

import (
	"context"
	"fmt"
	"os"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/window"
)

// A report of a generated session under two policies: the pipeline
// replays and prices it, the builder keeps what the report draws, and
// the summary prints each policy's totals.
func Example() {
	ctx := context.Background()
	policies, err := window.ParseLabeled([]string{"none", "aidf:max_messages=20"})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := &reports.Builder{Policies: policies}
	p := batch.New(batch.Spec{Policies: policies, Runs: b.AddRuns})
	o := fixtures.DefaultGenOptions
	o.Calls = 60
	t, err := fixtures.GenerateTranscript(o)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Add(ctx, t, p.Prepare(t)); err != nil {
		fmt.Println(err)
		return
	}
	sweep, err := p.Finish()
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := b.Finish(sweep)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	if err := r.WriteSummary(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// +----------------------+-------------+--------------+---------+-------------+------------------------+-----------------------+----------------+------------+-----------------+
	// | policy               | transcripts | input tokens | of none | peak tokens | cost (priced sessions) | probes                | mean retention | violations | worst retention |
	// +----------------------+-------------+--------------+---------+-------------+------------------------+-----------------------+----------------+------------+-----------------+
	// | none                 |           1 |      753,654 |  100.0% |      25,022 |                $0.5010 |  100% (0 of 177 lost) |         100.0% |          0 |          100.0% |
	// | aidf:max_messages=20 |           1 |      204,475 |   27.1% |       7,475 |                $1.2928 | 28% (127 of 177 lost) |          50.1% |         38 |           10.3% |
	// +----------------------+-------------+--------------+---------+-------------+------------------------+-----------------------+----------------+------------+-----------------+
}
