package report_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/window"
)

// TestBuilderSummary: a report of a generated session under two
// policies: the pipeline replays and prices it, the builder keeps what
// the report draws, and the summary prints each policy's totals. (The
// pipeline is internal/batch, which a library user cannot import: this
// is a test, not an Example.)
func TestBuilderSummary(t *testing.T) {
	ctx := context.Background()
	policies, err := window.ParseLabeled([]string{"none", "aidf:max_messages=20"})
	if err != nil {
		t.Fatal(err)
	}
	b := &report.Builder{Policies: policies}
	p := batch.New(batch.Spec{Policies: policies, Runs: b.AddRuns})
	o := fixtures.DefaultGenOptions
	o.Calls = 60
	tr, err := conformance.Generated(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Add(ctx, tr, p.Prepare(tr)); err != nil {
		t.Fatal(err)
	}
	sweep, err := p.Finish()
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Finish(sweep)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b2 strings.Builder
	if err := r.WriteSummary(&b2); err != nil {
		t.Fatal(err)
	}
	const want = `+----------------------+-------------+--------------+---------+-------------+------------------------+-----------------------+----------------+------------+-----------------+
| policy               | transcripts | input tokens | of none | peak tokens | cost (priced sessions) | probes                | mean retention | violations | worst retention |
+----------------------+-------------+--------------+---------+-------------+------------------------+-----------------------+----------------+------------+-----------------+
| none                 |           1 |      753,654 |  100.0% |      25,022 |                $0.5010 |  100% (0 of 177 lost) |         100.0% |          0 |          100.0% |
| aidf:max_messages=20 |           1 |      204,475 |   27.1% |       7,475 |                $1.2928 | 28% (127 of 177 lost) |          50.1% |         38 |           10.3% |
+----------------------+-------------+--------------+---------+-------------+------------------------+-----------------------+----------------+------------+-----------------+
`
	if diff := cmp.Diff(want, b2.String()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}
