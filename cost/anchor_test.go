package cost

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/family"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A billedSession is a transcript whose bill is known: turns user
// messages of size chars4 tokens each ("abcd" repeated), each answered
// by "ok" (1 token), a minute apart; call k bills a prompt of constant
// plus alpha times the chars4 estimate of what it sent, reads the whole
// previous prompt from the cache, writes the rest but 3 input tokens,
// and outputs 10. At the calls in misses it reads only the constant,
// after idle (when the value is true) minutes of idleness.
type billedSession struct {
	turns, size, constant int
	alpha                 float64
	misses                map[int]time.Duration
}

func (b billedSession) transcript() *transcript.Transcript {
	tr := &transcript.Transcript{ID: "billed", File: "billed.jsonl", Models: []string{"claude-sonnet-4-5"}, Calls: b.turns}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	est, prev := 0, 0
	for k := range b.turns {
		at = at.Add(time.Minute + b.misses[k])
		est += b.size // the user message; the previous "ok" was added below
		prompt := b.constant + int(math.Round(b.alpha*float64(est)))
		read := prev
		if _, ok := b.misses[k]; ok {
			read = b.constant
		}
		u := &transcript.Usage{Input: 3, CacheRead: int64(read), CacheWrite: int64(prompt - read - 3), Output: 10}
		tr.Messages = append(tr.Messages,
			transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: strings.Repeat("abcd", b.size)}}},
			transcript.Message{Role: transcript.RoleAssistant, Model: "claude-sonnet-4-5", Time: at, Usage: u,
				Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "ok"}}})
		est++ // "ok"
		prev = prompt
	}
	return tr
}

// dropMessage is a test policy that never sends message index: it sends
// strictly less than the agent, and edits nothing it sent.
type dropMessage struct{ index int }

func (*dropMessage) Name() string          { return "drop-message" }
func (*dropMessage) Params() window.Values { return window.Values{} }
func (p *dropMessage) Apply(_ context.Context, _ *window.Env, _ *window.State, hist []window.Item) (window.Step, error) {
	var s window.Step
	for _, it := range hist {
		if it.Index() == p.index {
			s.Evicted = append(s.Evicted, it.ID)
		} else {
			s.History = append(s.History, it)
		}
	}
	return s, nil
}

func anchoredSession(t *testing.T, b billedSession, ps ...window.Policy) *Session {
	t.Helper()
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	s, err := Replay(context.Background(), replayerOf(b.transcript()), ps, replay.Options{Estimators: []estimate.Estimator{e}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.NotPriced != nil || s.Billed == nil {
		t.Fatalf("not priced: %v", s.NotPriced)
	}
	return s
}

// TestAlphaFit: a session whose billed prompts are 1.3 times the
// estimate plus 5,000 tokens fits alpha 1.3 and a constant of 5,000.
func TestAlphaFit(t *testing.T) {
	s := anchoredSession(t, billedSession{turns: 12, size: 2000, constant: 5000, alpha: 1.3}, policies(t, "none")...)
	m := s.Costs[0].ByModel[0]
	if math.Abs(m.Alpha-1.3) > 0.001 || m.AlphaFittedOn != 11 || m.Constant < 4990 || m.Constant > 5010 {
		t.Errorf("alpha %.4f on %d growths, constant %d; want 1.3 on 11, 5,000", m.Alpha, m.AlphaFittedOn, m.Constant)
	}
}

// TestAlphaFallsBackOnTheFamily: with fewer than 5 prompt growths to fit
// alpha on, a Claude session takes Claude's over the corpus
// (family.ModelAlpha) and says so; a model whose family the corpus
// has too few billed calls of takes 1.
func TestAlphaFallsBackOnTheFamily(t *testing.T) {
	s := anchoredSession(t, billedSession{turns: 4, size: 2000, constant: 5000, alpha: 1.3}, policies(t, "none")...)
	want, _, _, _ := family.ModelAlpha("claude-sonnet-4-5", "chars4")
	if m := s.Costs[0].ByModel[0]; m.Alpha != want || m.AlphaFittedOn != 0 || m.AlphaFamily != "claude" {
		t.Errorf("alpha %v on %d growths, family %q; want %v, claude's", m.Alpha, m.AlphaFittedOn, m.AlphaFamily, want)
	}
	tr := billedSession{turns: 4, size: 2000, constant: 5000, alpha: 1.3}.transcript()
	for i := range tr.Messages {
		if tr.Messages[i].Model != "" {
			tr.Messages[i].Model = "gpt-4.1"
		}
	}
	tr.Models = []string{"gpt-4.1"}
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	s, err := Replay(context.Background(), replayerOf(tr), policies(t, "none"), replay.Options{Estimators: []estimate.Estimator{e}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Costs[0].ByModel[0]; m.Alpha != 1 || m.AlphaFamily != "" {
		t.Errorf("gpt-4.1: alpha %v, family %q; want 1 and none", m.Alpha, m.AlphaFamily)
	}
}

// TestSameAsRecordedIsTheBill: a policy that sends at every call what
// the agent sent costs the bill, component by component; one that sends
// strictly less, editing nothing it sent, costs less at every call from
// the first it left out, and no more anywhere.
func TestSameAsRecordedIsTheBill(t *testing.T) {
	b := billedSession{turns: 12, size: 2000, constant: 5000, alpha: 1.3}
	s := anchoredSession(t, b, append(policies(t, "none"), &dropMessage{index: 4})...)
	if got := s.Costs[0].Calls; got != *s.Billed {
		t.Errorf("none: %+v, bill %+v", got, *s.Billed)
	}
	less := s.Costs[1]
	if less.Total >= s.Billed.Total() {
		t.Errorf("sending less costs %v, the bill %v", less.Total, s.Billed.Total())
	}
	for k, c := range less.PerStep {
		switch {
		case c > s.BilledPerCall[k]:
			t.Errorf("call %d: %v, more than the bill's %v", k, c, s.BilledPerCall[k])
		case k >= 2 && c >= s.BilledPerCall[k]:
			t.Errorf("call %d: %v, not less than the bill's %v", k, c, s.BilledPerCall[k])
		}
	}
}

// TestPolicyInheritsMisses: the calls at which the provider's cache held
// less than an ideal cache — one after 10 idle minutes, one unexplained
// — are named with their cause, and a policy's calls there read at most
// what the provider kept.
func TestPolicyInheritsMisses(t *testing.T) {
	b := billedSession{turns: 12, size: 2000, constant: 5000, alpha: 1.3, misses: map[int]time.Duration{5: 10 * time.Minute, 8: 0}}
	s := anchoredSession(t, b, append(policies(t, "none"), &dropMessage{index: 4})...)
	if len(s.Misses) != 2 || s.Misses[0].Call != 5 || s.Misses[0].Cause != "expired" || s.Misses[0].IdleMinutes != 11 ||
		s.Misses[1].Call != 8 || s.Misses[1].Cause != "unexplained" {
		t.Fatalf("misses %+v", s.Misses)
	}
	if m := s.MissTotals; m.Calls != 2 || m.Expired != 1 || m.Unexplained != 1 || m.Cost <= 0 {
		t.Errorf("totals %+v", m)
	}
	// What a miss cost: the tokens not read, written instead, at Sonnet
	// 4.5's write rate less its read rate.
	if m := s.Misses[0]; m.Cost != pricing.Money(m.Missed*(sonnetWrite-sonnetRead)) {
		t.Errorf("miss at call 5 cost %v for %d tokens", m.Cost, m.Missed)
	}
	if got := s.Costs[0].Calls; got != *s.Billed {
		t.Errorf("none: %+v, bill %+v", got, *s.Billed)
	}
	tr := s.Transcript
	for _, m := range s.Misses {
		kept := tr.Messages[2*m.Call+1].Usage.CacheRead
		if got := s.Costs[1].PerStepUsage[m.Call].CacheRead; got > kept {
			t.Errorf("call %d: the policy read %d, the provider kept %d", m.Call, got, kept)
		}
	}
}

// TestRecordedIsTheBill: on every corpus transcript with usage and a
// price, the recorded policy costs the bill, call by call and component
// by component.
func TestRecordedIsTheBill(t *testing.T) {
	rec := policies(t, "recorded")
	n := 0
	_, err := transcript.Walk([]string{"../fixtures/corpus"}, transcript.Options{Lenient: true}, nil, func(tr *transcript.Transcript) error {
		if tr.Usage().Prompt() == 0 {
			return nil
		}
		s, err := Replay(context.Background(), replayerOf(tr), rec, replay.Options{}, Options{})
		if err != nil {
			return err
		}
		if s.NotPriced != nil || s.Billed == nil {
			return nil
		}
		n++
		if got := s.Costs[0].Calls; got != *s.Billed {
			t.Errorf("%s: recorded %+v, bill %+v", tr.File, got, *s.Billed)
		}
		// The calls no record shows are in the bill but no call's.
		if len(tr.UnattributedByModel) > 0 {
			return nil
		}
		for k, c := range s.Costs[0].PerStep {
			if k < len(s.BilledPerCall) && c != s.BilledPerCall[k] {
				t.Errorf("%s: call %d: recorded %v, bill %v", tr.File, k, c, s.BilledPerCall[k])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Errorf("%d transcripts priced, want the corpus's", n)
	}
}

// TestWhatIfKeepsTheBillsTokens: priced as an OpenAI model, an Anthropic
// session's calls keep their billed tokens and reads, write nothing (the
// provider writes no cache), and the output says so.
func TestWhatIfKeepsTheBillsTokens(t *testing.T) {
	b := billedSession{turns: 12, size: 2000, constant: 5000, alpha: 1.3}
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	s, err := Replay(context.Background(), replayerOf(b.transcript()), policies(t, "none"), replay.Options{Estimators: []estimate.Estimator{e}}, Options{Model: "gpt-4.1"})
	if err != nil {
		t.Fatal(err)
	}
	rc := s.Costs[0]
	if rc.Usage.CacheWrite != 0 || rc.Usage.Prompt() != s.Transcript.Usage().Prompt() || rc.Usage.CacheRead != s.Transcript.Usage().CacheRead {
		t.Errorf("usage %+v, recorded %+v", rc.Usage, s.Transcript.Usage())
	}
	if !slices.Contains(rc.Assumptions, "priced as gpt-4.1: the calls keep the tokens and the cache reads the recorded models billed, at gpt-4.1's prices") {
		t.Errorf("assumptions %q", rc.Assumptions)
	}
}
