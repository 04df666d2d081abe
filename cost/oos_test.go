package cost

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
)

// outOfSample prices the recorded run of every corpus session of 20
// calls or more with its first half fitted, and returns each session's
// error after the fit, in all and by component (components over $0.01).
func outOfSample(t *testing.T) (total []float64, parts map[string][]float64, names []string) {
	t.Helper()
	rec := policies(t, "recorded")
	parts = map[string][]float64{}
	_, err := transcript.Walk([]string{"../fixtures/corpus"}, transcript.Options{Lenient: true}, nil, func(tr *transcript.Transcript) error {
		if tr.Usage().Prompt() == 0 || tr.Calls < 20 {
			return nil
		}
		s, err := Replay(context.Background(), tr, rec, replay.Options{}, Options{FitCalls: tr.Calls / 2})
		if err != nil {
			return err
		}
		if s.NotPriced != nil || s.CrossCheck == nil || s.CrossCheck.AfterFit == nil {
			return nil
		}
		o := s.CrossCheck.AfterFit
		names = append(names, tr.File)
		total = append(total, o.ErrorPct)
		for _, c := range []struct {
			name     string
			sim, bil pricing.Money
		}{{"input", o.Simulated.Input, o.Billed.Input}, {"cache read", o.Simulated.CacheRead, o.Billed.CacheRead},
			{"cache write", o.Simulated.CacheWrite, o.Billed.CacheWrite}, {"output", o.Simulated.Output, o.Billed.Output}} {
			if c.bil.USD() > 0.01 {
				parts[c.name] = append(parts[c.name], (float64(c.sim)-float64(c.bil))/float64(c.bil)*100)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, parts, names
}

func medianAbs(v []float64) (med, worst float64) {
	a := make([]float64, len(v))
	for i, x := range v {
		a[i] = math.Abs(x)
	}
	slices.Sort(a)
	if len(a) == 0 {
		return 0, 0
	}
	return a[len(a)/2], a[len(a)-1]
}

// TestOutOfSample: on every corpus session of 20 calls or more, the
// recorded run priced without the bill of its second half lands within
// the bounds measured when --fit-calls was built (median |error| 7.1%,
// worst 22.3%: the 5% and 15% are not met yet), so that a change
// that makes it worse fails.
func TestOutOfSample(t *testing.T) {
	total, parts, names := outOfSample(t)
	for i, n := range names {
		t.Logf("%+6.1f%% %s", total[i], n)
	}
	med, worst := medianAbs(total)
	t.Logf("cost: %d sessions, median |error| %.1f%%, worst %.1f%%", len(total), med, worst)
	if len(total) < 7 || med > 7.5 || worst > 23 {
		t.Errorf("%d sessions, median |error| %.1f%%, worst %.1f%%; want 7 or more, at most 7.5%% and 23%%", len(total), med, worst)
	}
	for k, v := range parts {
		m, w := medianAbs(v)
		t.Logf("%s: %d sessions, median %.1f%%, worst %.1f%% %v", k, len(v), m, w, v)
	}
}
