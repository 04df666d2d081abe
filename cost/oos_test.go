package cost

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
)

// outOfSample prices the recorded run of every session of 20 calls or
// more under paths with its first half fitted, and returns each
// session's error after the fit, in all and by component (components
// over $0.01).
func outOfSample(t *testing.T, paths ...string) (total []float64, parts map[string][]float64, names []string) {
	t.Helper()
	parts = map[string][]float64{}
	for _, o := range outOfSampleSessions(t, paths...) {
		names = append(names, o.name)
		total = append(total, o.total)
		for k, v := range o.parts {
			parts[k] = append(parts[k], v)
		}
	}
	return total, parts, names
}

// An oosSession is one session's out-of-sample check: its error after
// the fit, in all and by component over $0.01, and what its calls'
// bills show before and after the fit.
type oosSession struct {
	name   string
	calls  int
	total  float64
	parts  map[string]float64
	bought map[string][2]float64 // component: simulated, billed (dollars)
	diag   billDiag
}

// A billDiag is what a session's bills say, call by call, of the two
// halves the cross-check compares: the calls before the fit and after.
type billDiag struct {
	fit, after int
	// missedBefore and missedAfter count the calls whose provider cache
	// held less than an ideal one with no idle expiry to explain it;
	// expiredAfter those after the fit that came after the cache expired.
	missedBefore, missedAfter, expiredAfter int
	// driftPct is how far the later calls' billed prompts are, in all,
	// from what the first half predicts of them: a least-squares line of
	// billed prompt on estimated tokens over the fit's calls.
	driftPct float64
	// hitInputAfter counts the calls after the fit that hit the cache
	// yet billed over 1,000 tokens uncached, hitInputTokens their
	// uncached tokens, hitInputBefore the fit's calls that did.
	hitInputAfter, hitInputTokens, hitInputBefore int
}

// diagnose reads s's bills call by call against the fit of its first
// fit calls.
func diagnose(s *Session, fit int) billDiag {
	d := billDiag{fit: fit, after: s.Transcript.Calls - fit}
	missed := map[int]bool{}
	for _, m := range s.Misses {
		missed[m.Call] = true
	}
	for i, st := range s.Recorded.Steps {
		switch {
		case st.Recorded == nil || missed[i] || st.Recorded.CacheRead == 0 || st.Recorded.Input <= 1000:
		case i < fit:
			d.hitInputBefore++
		default:
			d.hitInputAfter++
			d.hitInputTokens += int(st.Recorded.Input)
		}
	}
	for _, m := range s.Misses {
		switch {
		case m.Cause == "expired" && m.Call >= fit:
			d.expiredAfter++
		case m.Cause == "expired":
		case m.Call < fit:
			d.missedBefore++
		default:
			d.missedAfter++
		}
	}
	var xs, ys []float64
	var after [][2]float64
	for i, st := range s.Recorded.Steps {
		if st.Recorded == nil || st.Recorded.Prompt() == 0 || len(st.Tokens) != 1 {
			continue
		}
		var est int
		for _, v := range st.Tokens {
			est = v
		}
		if i < fit {
			xs, ys = append(xs, float64(est)), append(ys, float64(st.Recorded.Prompt()))
		} else {
			after = append(after, [2]float64{float64(est), float64(st.Recorded.Prompt())})
		}
	}
	if len(xs) < 2 || len(after) == 0 {
		return d
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i] / float64(len(xs))
		my += ys[i] / float64(len(xs))
	}
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	slope := 1.0
	if sxx > 0 {
		slope = sxy / sxx
	}
	var pred, bill float64
	for _, a := range after {
		pred += my + slope*(a[0]-mx)
		bill += a[1]
	}
	if pred > 0 {
		d.driftPct = (bill - pred) / pred * 100
	}
	return d
}

// outOfSampleSessions is outOfSample's check, session by session.
func outOfSampleSessions(t *testing.T, paths ...string) []oosSession {
	t.Helper()
	rec := policies(t, "recorded")
	var out []oosSession
	_, err := transcript.Walk(paths, transcript.Options{Lenient: true}, nil, func(tr *transcript.Transcript) error {
		if tr.Usage().Prompt() == 0 || tr.Calls < projection.MinErrorCalls {
			return nil
		}
		s, err := Replay(context.Background(), replayerOf(tr), rec, replay.Options{}, Options{FitCalls: tr.Calls / 2})
		if err != nil {
			return err
		}
		e, ok := s.CrossCheck.SessionError(tr.Calls)
		if s.NotPriced != nil || !ok {
			return nil
		}
		o := s.CrossCheck.AfterFit
		one := oosSession{name: tr.File, calls: tr.Calls, total: e, parts: map[string]float64{}, bought: map[string][2]float64{},
			diag: diagnose(s, tr.Calls/2)}
		for _, c := range []struct {
			name     string
			sim, bil pricing.Money
		}{{"input", o.Simulated.Input, o.Billed.Input}, {"cache read", o.Simulated.CacheRead, o.Billed.CacheRead},
			{"cache write", o.Simulated.CacheWrite, o.Billed.CacheWrite}, {"output", o.Simulated.Output, o.Billed.Output}} {
			one.bought[c.name] = [2]float64{c.sim.USD(), c.bil.USD()}
			if c.bil.USD() > 0.01 {
				one.parts[c.name] = (float64(c.sim) - float64(c.bil)) / float64(c.bil) * 100
			}
		}
		out = append(out, one)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// medianAbs returns the median and the largest of v's absolute values
// (of an even count, the median is the mean of the middle two).
func medianAbs(v []float64) (med, worst float64) {
	p := projection.MeasureProjectionError(v)
	return p.MedianPct, p.WorstPct
}

// TestOutOfSampleDocumented holds what docs/cost.md says
// of the out-of-sample check to what TestOutOfSample and
// TestOutOfSampleUnseen measure: the corpus's median and worst, in all
// and for cache reads and writes, the four sessions outside it one by
// one, and the eleven's median and worst.
func TestOutOfSampleDocumented(t *testing.T) {
	total, parts, _ := outOfSample(t, "../fixtures/corpus")
	files, err := filepath.Glob("../fixtures/compactions/spotter/*.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	unseen, _, _ := outOfSample(t, files...)
	atMedian := func(v []float64) string {
		m, w := medianAbs(v)
		return fmt.Sprintf("%.1f%% at the median and %.1f%% at worst", m, w)
	}
	writeMed, writeWorst := medianAbs(parts["cache write"])
	each := make([]string, len(unseen))
	for i, e := range unseen {
		each[i] = strings.Replace(fmt.Sprintf("%+.1f%%", e), "-", "−", 1)
	}
	byDoc := map[string][]string{
		"../docs/cost.md": {
			fmt.Sprintf("the error is %s", atMedian(total)),
			fmt.Sprintf("%d sessions, %s", len(total)+len(unseen), atMedian(append(slices.Clone(total), unseen...))),
			fmt.Sprintf("cache reads %s, cache writes %.1f%% and %.1f%%", atMedian(parts["cache read"]), writeMed, writeWorst),
			fmt.Sprintf("lands at %s and %s", strings.Join(each[:len(each)-1], ", "), each[len(each)-1]),
		},
	}
	for doc, phrases := range byDoc {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ")
		for _, p := range phrases {
			if !strings.Contains(text, p) {
				t.Errorf("%s does not say %q", doc, p)
			}
		}
	}
}

// TestOutOfSample: on every corpus session of 20 calls or more, the
// recorded run priced without the bill of its second half lands within
// 5% of it at the median and 15% at worst (measured: 4.2% and 8.4%).
// The error of each component over $0.01 is logged, not held: the
// docs/cost.md says how far those land.
func TestOutOfSample(t *testing.T) {
	total, parts, names := outOfSample(t, "../fixtures/corpus")
	for i, n := range names {
		t.Logf("%+6.1f%% %s", total[i], n)
	}
	med, worst := medianAbs(total)
	t.Logf("cost: %d sessions, median |error| %.1f%%, worst %.1f%%", len(total), med, worst)
	if len(total) < 7 || med > 5 || worst > 15 {
		t.Errorf("%d sessions, median |error| %.1f%%, worst %.1f%%; want 7 or more, at most 5%% and 15%%", len(total), med, worst)
	}
	for k, v := range parts {
		m, w := medianAbs(v)
		t.Logf("%s: %d sessions, median %.1f%%, worst %.1f%% %v", k, len(v), m, w, v)
	}
}

// TestOutOfSampleUnseen runs TestOutOfSample's check on the public
// Claude Code sessions outside the corpus (fixtures/compactions: four
// spotter sessions of 139 to 217 calls, each with a compaction), and
// with the corpus's. They land further out than the corpus's, past the
// corpus's bound of 15% at worst: their caches miss after the fit where
// nothing before it says they would (4d5611e5: an idle expiry and an
// unexplained miss, $0.92), and after a compaction the agent sends
// beside the transcript more than it did (ae4a77f8: 12,300 tokens more
// at its first call after it) or less (8463c716 in the corpus: 12,900
// fewer), which the fit cannot see. Measured: +6.3%, -19.5%, -17.6% and +2.2%; with the
// corpus's seven, 11 sessions, median 4.3%, worst 19.5%. The test holds
// that state, so that a change which moves them is seen: each session
// within 25%, the eleven's median within 5%.
func TestOutOfSampleUnseen(t *testing.T) {
	files, err := filepath.Glob("../fixtures/compactions/spotter/*.jsonl.gz")
	if err != nil || len(files) != 4 {
		t.Fatalf("%d sessions: %v", len(files), err)
	}
	total, parts, names := outOfSample(t, files...)
	for i, n := range names {
		t.Logf("%+6.1f%% %s", total[i], n)
	}
	for k, v := range parts {
		m, w := medianAbs(v)
		t.Logf("%s: %d sessions, median %.1f%%, worst %.1f%% %v", k, len(v), m, w, v)
	}
	med, worst := medianAbs(total)
	t.Logf("unseen: %d sessions, median |error| %.1f%%, worst %.1f%%", len(total), med, worst)
	corpus, _, _ := outOfSample(t, "../fixtures/corpus")
	all := append(slices.Clone(corpus), total...)
	allMed, allWorst := medianAbs(all)
	t.Logf("with the corpus: %d sessions, median |error| %.1f%%, worst %.1f%%", len(all), allMed, allWorst)
	if len(total) != 4 || worst > 25 || allMed > 5 {
		t.Errorf("%d sessions, worst |error| %.1f%%; with the corpus's %d, median %.1f%%: want 4, at most 25%% and 5%%", len(total), worst, len(corpus), allMed)
	}
}

// afterFit replays tr's recorded policy, counted in chars4, fitted on
// its first fitCalls calls, and returns the calls after against their
// bill.
func afterFit(t *testing.T, tr *transcript.Transcript, fitCalls int) *heldOut {
	t.Helper()
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	s, err := Replay(context.Background(), replayerOf(tr), policies(t, "recorded"), replay.Options{Estimators: []estimate.Estimator{e}}, Options{FitCalls: fitCalls})
	if err != nil {
		t.Fatal(err)
	}
	if s.NotPriced != nil || s.CrossCheck == nil || s.CrossCheck.AfterFit == nil {
		t.Fatalf("not priced: %v", s.NotPriced)
	}
	return s.CrossCheck.AfterFit
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
	if o := afterFit(t, tr, 8); math.Abs(o.ErrorPct) > 1 {
		t.Errorf("after the fit: simulated %+v, billed %+v: %+.2f%%", o.Simulated, o.Billed, o.ErrorPct)
	}
}

// TestBedrockMissesRiseWithIdle holds the README's account of the
// worst session before the miss rate depended on idle time: codemie-code
// session-196820da's Bedrock cache missed at 7 of the 23 calls fitted
// on and at 11 of the 24 after them, which came after longer idle
// spells; fitted on the first 23, the chance of a miss after 3 minutes
// idle is above the chance after 10 seconds.
func TestBedrockMissesRiseWithIdle(t *testing.T) {
	tr := corpusFile(t, "codemie-code/tests/integration/session/fixtures/session-196820da.jsonl")
	s, err := Replay(context.Background(), replayerOf(tr), policies(t, "recorded"), replay.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fit := defaultFitCalls(tr)
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
	s, err = Replay(context.Background(), replayerOf(tr), policies(t, "recorded"), replay.Options{}, Options{FitCalls: fit})
	if err != nil {
		t.Fatal(err)
	}
	var g *groupFit
	for _, byGroup := range s.fit.anchor.fitted {
		g = byGroup["claude-sonnet-4-5"]
	}
	if g == nil {
		t.Fatal("no fit of claude-sonnet-4-5")
	}
	short, long := g.misses.At(10*time.Second), g.misses.At(3*time.Minute)
	t.Logf("%v: %.2f after 10 s, %.2f after 3 min", g.misses, short, long)
	if long <= short+0.1 {
		t.Errorf("fitted %v: chance %.2f after 3 minutes, %.2f after 10 seconds; want the first higher by 0.1 or more", g.misses, long, short)
	}
}

// TestOutOfSampleMissesAfterIdle: a provider that loses the whole
// prompt after every idle spell of 4 minutes (within the cache's
// 5-minute lifetime) and never after a minute is projected to go on
// doing so. The calls after the fit have twice the spells of those
// before: the rate by idle time lands within 1% of their bill, where
// the same calls with no times known (a constant rate) land 10% or
// more below it.
func TestOutOfSampleMissesAfterIdle(t *testing.T) {
	spells := map[int]time.Duration{}
	for _, k := range []int{3, 7, 13, 17, 19, 21} {
		spells[k] = 3 * time.Minute
	}
	tr := billedSession{turns: 24, size: 2000, alpha: 1.3, misses: spells}.transcript()
	o := afterFit(t, tr, 12)
	t.Logf("by idle time: %+.2f%%", o.ErrorPct)
	if math.Abs(o.ErrorPct) > 1 {
		t.Errorf("after the fit: simulated %+v, billed %+v: %+.2f%%", o.Simulated, o.Billed, o.ErrorPct)
	}
	if a := strings.Join(o.Assumptions, "\n"); !strings.Contains(a, "more the longer the model sat idle") {
		t.Errorf("assumptions do not say the miss rate rises with idle time:\n%s", a)
	}
	for i := range tr.Messages {
		tr.Messages[i].Time = time.Time{}
	}
	o = afterFit(t, tr, 12)
	t.Logf("no times: %+.2f%%", o.ErrorPct)
	if o.ErrorPct > -10 {
		t.Errorf("no times known: after the fit %+.2f%%, want 10%% or more below the bill", o.ErrorPct)
	}
}

// TestOutOfSampleOpenAIRetention: a gpt-5.x session whose bills read
// the whole previous prompt from the cache after idle spells of 6.5 to
// 10.5 minutes (OpenAI keeps an in-memory entry "typically" 5 to 10
// minutes and at most an hour, developers.openai.com/docs/guides/
// prompt-caching#prompt-cache-retention) is projected to read there:
// the calls after the fit land within 2% of their bill, where a
// 5-minute lifetime priced those prompts whole as uncached input.
func TestOutOfSampleOpenAIRetention(t *testing.T) {
	spells := map[int]time.Duration{13: 5*time.Minute + 30*time.Second, 15: 7 * time.Minute, 17: 9*time.Minute + 30*time.Second}
	tr := openAISession(18, spells)
	o := afterFit(t, tr, 12)
	t.Logf("after the fit: simulated %v, billed %v: %+.2f%%", o.Simulated.Total(), o.Billed.Total(), o.ErrorPct)
	if math.Abs(o.ErrorPct) > 2 {
		t.Errorf("after the fit: simulated %+v, billed %+v: %+.2f%%", o.Simulated, o.Billed, o.ErrorPct)
	}
}

// openAISession is a gpt-5.5 session of turns calls, a minute apart
// but for the spells, each reading the whole previous prompt.
func openAISession(turns int, spells map[int]time.Duration) *transcript.Transcript {
	tr := billedSession{turns: turns, size: 4000, constant: 6000, alpha: 1.0, misses: spells}.transcript()
	prev := int64(0)
	for i := range tr.Messages {
		m := &tr.Messages[i]
		if m.Usage == nil {
			continue
		}
		m.Model = "gpt-5.5"
		prompt := m.Usage.Prompt()
		read := prev / 128 * 128
		m.Usage = &transcript.Usage{Input: prompt - read, CacheRead: read, Output: 10}
		prev = prompt
	}
	tr.Models = []string{"gpt-5.5"}
	return tr
}

// TestExtendedRetentionFromBill: a gpt-5.5 call that reads the previous
// prompt after two idle hours, past the in-memory retention's hour,
// says the agent used the extended retention (24 hours): its cache has
// not expired. With no read there, it has.
func TestExtendedRetentionFromBill(t *testing.T) {
	tr := openAISession(8, map[int]time.Duration{5: 2 * time.Hour})
	call := 5
	if c := callCaches(newPricer(tr, nil, Options{}))[call]; c.expired || c.idle < 2*time.Hour {
		t.Errorf("read after 2 hours: %+v, want not expired", c)
	}
	for i, k := 0, 0; i < len(tr.Messages); i++ {
		if m := &tr.Messages[i]; m.Usage != nil {
			if k == call {
				m.Usage.Input += m.Usage.CacheRead
				m.Usage.CacheRead = 0
			}
			k++
		}
	}
	if c := callCaches(newPricer(tr, nil, Options{}))[call]; !c.expired {
		t.Errorf("nothing read after 2 hours: %+v, want expired", c)
	}
}

// TestNoCacheUse: a Claude session whose bill shows no cache use (cache
// read and write 0 on every call, as through a proxy that strips the
// cache's markers) has no cache misses, and is priced without a prompt
// cache, saying so: the calls after the fit write nothing to a cache and
// land within 1% of their bill.
func TestNoCacheUse(t *testing.T) {
	tr := billedSession{turns: 24, size: 2000, constant: 5000, alpha: 1.3}.transcript()
	for i := range tr.Messages {
		if u := tr.Messages[i].Usage; u != nil {
			tr.Messages[i].Usage = &transcript.Usage{Input: u.Prompt(), Output: u.Output}
		}
	}
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	s, err := Replay(context.Background(), replayerOf(tr), policies(t, "recorded"), replay.Options{Estimators: []estimate.Estimator{e}}, Options{FitCalls: 12})
	if err != nil {
		t.Fatal(err)
	}
	if s.NotPriced != nil || s.CrossCheck == nil || s.CrossCheck.AfterFit == nil {
		t.Fatalf("not priced: %v", s.NotPriced)
	}
	if s.MissTotals.Calls != 0 {
		t.Errorf("%d cache misses (%+v), want none: the bill shows no cache", s.MissTotals.Calls, s.MissTotals)
	}
	o := s.CrossCheck.AfterFit
	if o.Simulated.CacheWrite != 0 || o.Simulated.CacheRead != 0 || math.Abs(o.ErrorPct) > 1 {
		t.Errorf("after the fit: simulated %+v, billed %+v: %+.2f%%", o.Simulated, o.Billed, o.ErrorPct)
	}
	if a := strings.Join(s.Costs[0].Assumptions, "\n"); !strings.Contains(a, "no cache use in the bill: priced without a prompt cache") {
		t.Errorf("assumptions do not say the bill shows no cache use:\n%s", a)
	}
}
