package cost

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
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
// the bounds measured (median |error| 4.3%, worst 22.0%), so that a
// change that makes it worse fails. The median of 5% holds; its
// worst of 15% does not: codemie-code session-196820da's Bedrock cache
// missed at 11 of the 24 calls after the fit, at 7 of the 23 before.
func TestOutOfSample(t *testing.T) {
	total, parts, names := outOfSample(t)
	for i, n := range names {
		t.Logf("%+6.1f%% %s", total[i], n)
	}
	med, worst := medianAbs(total)
	t.Logf("cost: %d sessions, median |error| %.1f%%, worst %.1f%%", len(total), med, worst)
	if len(total) < 7 || med > 5 || worst > 23 {
		t.Errorf("%d sessions, median |error| %.1f%%, worst %.1f%%; want 7 or more, at most 5%% and 23%%", len(total), med, worst)
	}
	for k, v := range parts {
		m, w := medianAbs(v)
		t.Logf("%s: %d sessions, median %.1f%%, worst %.1f%% %v", k, len(v), m, w, v)
	}
}

// TestOutOfSampleReadsBeyondIdeal: a provider that reads from its cache
// half of what the previous request did not hold (DeepSeek's cache holds
// the previous response too) is projected to go on doing so: the calls
// after the fit land within 1% of their bill, where an ideal cache's
// read alone would bill half the new tokens again as uncached input.
func TestOutOfSampleReadsBeyondIdeal(t *testing.T) {
	tr := billedSession{turns: 16, size: 2000, constant: 5000, alpha: 1.3}.transcript()
	prev := int64(0)
	for i := range tr.Messages {
		m := &tr.Messages[i]
		if m.Usage == nil {
			continue
		}
		m.Model = "deepseek-chat"
		prompt := m.Usage.Prompt()
		read := prev + (prompt-prev)/2
		if prev == 0 {
			read = 0
		}
		m.Usage = &transcript.Usage{Input: prompt - read, CacheRead: read, Output: 10}
		prev = prompt
	}
	tr.Models = []string{"deepseek-chat"}
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	s, err := Replay(context.Background(), tr, policies(t, "recorded"), replay.Options{Estimators: []estimate.Estimator{e}}, Options{FitCalls: 8})
	if err != nil {
		t.Fatal(err)
	}
	if s.NotPriced != nil || s.CrossCheck == nil || s.CrossCheck.AfterFit == nil {
		t.Fatalf("not priced: %v", s.NotPriced)
	}
	o := s.CrossCheck.AfterFit
	if math.Abs(o.ErrorPct) > 1 {
		t.Errorf("after the fit: simulated %+v, billed %+v: %+.2f%%", o.Simulated, o.Billed, o.ErrorPct)
	}
}

// TestWorstSessionMissRate holds the reason README and TestOutOfSample
// give for the worst out-of-sample error: codemie-code session-196820da's
// Bedrock cache missed at 7 of the 23 calls fitted on and at 11 of the 24
// after them.
func TestWorstSessionMissRate(t *testing.T) {
	tr := corpusFile(t, "codemie-code/tests/integration/session/fixtures/session-196820da.jsonl")
	s, err := Replay(context.Background(), tr, policies(t, "recorded"), replay.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fit := DefaultFitCalls(tr)
	before, after := 0, 0
	for _, m := range s.Misses {
		if m.Call < fit {
			before++
		} else {
			after++
		}
	}
	if fit != 23 || tr.Calls != 47 || before != 7 || after != 11 {
		t.Errorf("%d calls, fitted on %d: %d misses before, %d after; want 47, 23, 7 and 11", tr.Calls, fit, before, after)
	}
}
