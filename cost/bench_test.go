package cost

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

// BenchmarkPriceRun prices runs of generated sessions of 1,000 and 4,000
// calls under none (a context that grows with every call) and a sliding
// window. "whole" is the reference it replaced: every request built from
// its items and compared whole with every live entry of the cache (time
// quadratic in the calls under none); "incremental" is priceRun's.
func BenchmarkPriceRun(b *testing.B) {
	e := estimate.MustNew("cl100k_base", 0)
	for _, calls := range []int{1000, 4000} {
		o := fixtures.DefaultGenOptions
		o.Calls = calls
		tr, err := conformance.Generated(o)
		if err != nil {
			b.Fatal(err)
		}
		r := replayerOf(tr)
		ropt := replay.Options{Estimators: []estimate.Estimator{e}}
		rec, err := r.Replay(context.Background(), must(window.Parse("recorded"))(b), ropt)
		if err != nil {
			b.Fatal(err)
		}
		for _, spec := range []string{"none", "aidf:max_messages=30"} {
			run, err := r.Replay(context.Background(), must(window.Parse(spec))(b), ropt)
			if err != nil {
				b.Fatal(err)
			}
			opt := Options{Estimator: e}
			b.Run(fmt.Sprintf("%s/calls=%d/incremental", spec, calls), func(b *testing.B) {
				for b.Loop() {
					if _, err := priceRun(run, rec, r, opt); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/calls=%d/whole", spec, calls), func(b *testing.B) {
				times := tr.CallTimes()
				cnt := r.Counter()
				for b.Loop() {
					wholeSim(run, e, cnt, times)
				}
			})
		}
	}
}

// wholeSim simulates the cache over run's calls as the reference does,
// and returns the tokens read.
func wholeSim(run *replay.Run, e estimate.Estimator, cnt func(estimate.Estimator, window.Item) int, times []time.Time) int {
	c := &wholeCache{ttl: cacheTTL}
	read := 0
	for i := range run.Steps {
		keys, tokens := wholeRequest(&run.Steps[i], e, cnt, 0)
		r, _ := c.send(keys, tokens, times[i])
		read += r
	}
	return read
}
