package estimate_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// fixedEstimator counts every text as a fixed number of tokens per
// character, so expected statistics can be worked out by hand.
type fixedEstimator struct {
	name  string
	per   int
	exact bool
}

func (f fixedEstimator) Name() string       { return f.name }
func (f fixedEstimator) Exact() bool        { return f.exact }
func (f fixedEstimator) Count(s string) int { return len(s) * f.per }
func (f fixedEstimator) CountMessage(m *transcript.Message) int {
	n := 0
	for _, b := range m.Blocks {
		n += f.Count(b.Text)
	}
	return n
}

func TestSummarizeByHand(t *testing.T) {
	msg := func(role transcript.Role, text string, u *transcript.Usage) transcript.Message {
		return transcript.Message{Role: role, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: text}}, Usage: u}
	}
	tr := &transcript.Transcript{ID: "t", Messages: []transcript.Message{
		msg(transcript.RoleUser, "aaaa", nil),                                            // exact 4, half 8? see below
		msg(transcript.RoleAssistant, "bb", &transcript.Usage{Input: 100, CacheRead: 0}), // call 1: prompt 100
		msg(transcript.RoleUser, "cccccc", nil),                                          //
		msg(transcript.RoleAssistant, "d", &transcript.Usage{Input: 10, CacheRead: 110}), // call 2: prompt 120, delta 20
	}}
	exact := fixedEstimator{"exact", 1, true}
	double := fixedEstimator{"double", 2, false}
	c := analyzed(tr, []estimate.Estimator{double, exact})
	a := estimate.AccuracyOf([]*estimate.Counts{c}, []string{"double"}, []string{"exact"}, true)
	// Every message is over-counted by 100%.
	want := estimate.ErrorStats{Heuristic: "double", Exact: "exact", Samples: 4, MeanPct: 100, MeanAbs: 100,
		P50Abs: 100, P90Abs: 100, P99Abs: 100, MaxAbs: 100, TotalPct: 100, HeuristicTotal: 26, ExactTotal: 13}
	if diff := cmp.Diff(want, a.Errors[0]); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	// Call 2 appended "bb" and "cccccc": exact 8 tokens against 20 billed.
	b := a.Billed
	if b == nil || b.Calls != 1 || b.BilledTokens != 20 {
		t.Fatalf("billed: %+v", b)
	}
	got := map[string]estimate.BilledEstimate{}
	for _, be := range b.Estimators {
		got[be.Estimator] = be
	}
	ex := got["exact"]
	if ex.Tokens != 8 || math.Abs(ex.Ratio-2.5) > 1e-9 || math.Abs(ex.MeanAbsPct-60) > 1e-9 {
		t.Errorf("exact against billed: %+v, want 8 tokens, ratio 2.5, 60%% off", ex)
	}
	// The constant: call 1 prompt 100 − prefix 4 = 96; call 2: 120 − 12 = 108; median of two is the upper.
	if ex.Constant == nil || *ex.Constant != 108 {
		t.Errorf("constant %v, want 108", ex.Constant)
	}
}

func TestPercentiles(t *testing.T) {
	// Ten messages with errors 10%, 20%, …, 100% (heuristic = exact × (1+k/10)).
	c := &estimate.Counts{Estimators: []string{"h", "x"}}
	for k := 1; k <= 10; k++ {
		c.Messages = append(c.Messages, estimate.MessageCounts{Counts: []int{10 + k, 10}})
	}
	a := estimate.AccuracyOf([]*estimate.Counts{c}, []string{"h"}, []string{"x"}, false)
	s := a.Errors[0]
	got := []float64{s.P50Abs, s.P90Abs, s.P99Abs, s.MaxAbs, s.MeanPct}
	if diff := cmp.Diff([]float64{50, 90, 100, 100, 55}, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("p50, p90, p99, max, mean (-want +got):\n%s", diff)
	}
}

// TestAnalyzeCorpus runs the analysis on a real session with usage and a
// compaction: every compared call grew the prompt, and the JSON form holds
// every field the report documents.
func TestAnalyzeCorpus(t *testing.T) {
	tr := readCorpus(t, "ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt")
	var ests []estimate.Estimator
	for _, n := range estimate.Names() {
		ests = append(ests, estimate.MustNew(n, estimate.OverheadNone))
	}
	c := analyzed(tr, ests)
	if len(c.Calls) != tr.Calls {
		t.Errorf("%d calls with usage, transcript has %d calls", len(c.Calls), tr.Calls)
	}
	compared := 0
	for _, call := range c.Calls {
		if call.Compared {
			compared++
		}
		if call.Compared && call.Delta <= 0 {
			t.Errorf("call at message %d: the prompt did not grow (%d) and no compaction was recorded", call.Message, call.Delta)
		}
	}
	// 39 calls: the first and the one after the compaction are not
	// compared.
	if compared != len(c.Calls)-2 {
		t.Errorf("%d calls compared out of %d", compared, len(c.Calls))
	}
	a := estimate.AccuracyOf([]*estimate.Counts{c}, []string{"chars4", "gemini"}, []string{"cl100k_base", "o200k_base"}, true)
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.Unmarshal(raw, &doc)
	for _, k := range []string{"messages", "totals", "errors", "by_kind", "by_script", "billed"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("accuracy JSON lacks %q", k)
		}
	}
	// This session is largely Japanese: chars/4 under-counts its
	// high-non-ASCII messages.
	for _, s := range a.ByScript {
		if s.Bucket == estimate.ScriptBuckets[3].Name && s.Heuristic == "chars4" && s.Exact == "cl100k_base" && s.TotalPct > -30 {
			t.Errorf("chars4 on >=30%% non-ASCII messages: %+.1f%%, expected a large under-count", s.TotalPct)
		}
	}
	for _, be := range a.Billed.Estimators {
		if be.Constant == nil || *be.Constant < 0 {
			t.Errorf("%s: constant %v, want the non-negative size of what the transcript lacks", be.Estimator, be.Constant)
		}
	}
}

// TestDropsEarlierThinking: the models Anthropic's docs name, in every id
// form ctxbench reads, and the providers whose reasoning ends with its
// turn.
func TestDropsEarlierThinking(t *testing.T) {
	for model, want := range map[string]bool{
		"claude-3-7-sonnet-20250219":                   true,
		"claude-3-haiku-20240307":                      true,
		"claude-opus-4-20250514":                       true,
		"claude-opus-4-1-20250805":                     true,
		"claude-opus-4-5-20251101":                     false,
		"claude-opus-4-6":                              false,
		"claude-opus-5":                                false,
		"claude-sonnet-4-20250514":                     true,
		"claude-sonnet-4-5-20250929":                   true,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0": true,
		"claude-sonnet-4-5@20250929":                   true,
		"anthropic/claude-sonnet-4-6":                  false,
		"claude-sonnet-5":                              false,
		"claude-haiku-4-5-20251001":                    true,
		"claude-haiku-5":                               false,
		"deepseek-reasoner":                            true,
		"gpt-5-codex":                                  true,
		"openai/o3":                                    true,
		"gemini-2.5-pro":                               false,
		"gpt-4o":                                       false,
		"":                                             false,
	} {
		if got := estimate.DropsEarlierThinking(model); got != want {
			t.Errorf("DropsEarlierThinking(%q) = %v, want %v", model, got, want)
		}
	}
}

// TestDroppedThinking works a session out by hand: the API bills each
// prompt as the transcript holds it, less the thinking of the turns that
// ended when the model drops it. Over every call, less that thinking, the
// estimate equals the bill; the call at which a turn's long thinking is
// dropped shrinks and is counted apart. A model that keeps its thinking
// drops none.
func TestDroppedThinking(t *testing.T) {
	const system = 50
	think := func(s string) transcript.Block { return transcript.Block{Type: transcript.BlockThinking, Text: s} }
	text := func(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }
	result := transcript.Block{Type: transcript.BlockToolResult, Text: "rrrr"}
	session := func(model string, drops bool) *transcript.Transcript {
		// Each call's prompt: the system prompt and the messages before it,
		// less, when the model drops it, the thinking of turns that ended.
		ms := []transcript.Message{
			{Role: transcript.RoleUser, Blocks: []transcript.Block{text("aaaaaaaaaa")}},                             // 10
			{Role: transcript.RoleAssistant, Blocks: []transcript.Block{think(strings.Repeat("t", 40)), text("b")}}, // call 1: 50+10
			{Role: transcript.RoleUser, Blocks: []transcript.Block{result}},                                         // 4, same turn
			{Role: transcript.RoleAssistant, Blocks: []transcript.Block{think("tt"), text("cc")}},                   // call 2: 60+41+4 = 105
			{Role: transcript.RoleUser, Blocks: []transcript.Block{text("next")}},                                   // 4, a new turn
			{Role: transcript.RoleAssistant, Blocks: []transcript.Block{text("dd")}},                                // call 3
			{Role: transcript.RoleUser, Blocks: []transcript.Block{text("more!")}},                                  // 5
			{Role: transcript.RoleAssistant, Blocks: []transcript.Block{text("e")}},                                 // call 4
		}
		prompt, thinkingEnded, thinkingTurn := system, 0, 0
		for i := range ms {
			m := &ms[i]
			if m.Role == transcript.RoleUser && m.Blocks[0].Type != transcript.BlockToolResult {
				thinkingEnded += thinkingTurn
				thinkingTurn = 0
			}
			n := 0
			for _, b := range m.Blocks {
				n += len(b.Text)
			}
			if m.Role == transcript.RoleAssistant {
				p := prompt
				if drops {
					p -= thinkingEnded
				}
				m.Model, m.Usage = model, &transcript.Usage{Input: int64(p)}
				for _, b := range m.Blocks {
					if b.Type == transcript.BlockThinking {
						thinkingTurn += len(b.Text)
					}
				}
			}
			prompt += n
		}
		return &transcript.Transcript{ID: model, Messages: ms, Models: []string{model}}
	}
	exact := fixedEstimator{"exact", 1, true}
	for _, c := range []struct {
		model           string
		drops           bool
		shrank, dropped int64
	}{
		{"claude-sonnet-4-5-20250929", true, 1, 42},
		{"claude-opus-4-6", false, 0, 0},
	} {
		if estimate.DropsEarlierThinking(c.model) != c.drops {
			t.Fatalf("%s: DropsEarlierThinking is not %v", c.model, c.drops)
		}
		a := estimate.AccuracyOf([]*estimate.Counts{analyzed(session(c.model, c.drops), []estimate.Estimator{exact})}, nil, nil, true)
		b, be := a.Billed, a.Billed.Estimators[0]
		if int64(b.Shrank) != c.shrank || be.DroppedThinking != c.dropped || be.NetRatio != 1 || *be.Constant != system || be.Unexplained != 0 {
			t.Errorf("%s: shrank %d (want %d), dropped %d (want %d), ratio over all calls %v (want 1), constant %d (want %d), unexplained %d",
				c.model, b.Shrank, c.shrank, be.DroppedThinking, c.dropped, be.NetRatio, *be.Constant, system, be.Unexplained)
		}
		if b.Calls+b.Shrank != 3 || b.Growth != b.BilledTokens-b.ShrankTokens {
			t.Errorf("%s: %+v", c.model, b)
		}
	}
}

// TestDroppedThinkingCorpus holds the rule to real bills: on two Claude
// Sonnet 4.5 sessions, each call whose billed prompt shrank by more than
// 200 tokens after a new turn is explained by the thinking dropped — what
// was appended less that thinking, at the session's billed-per-token
// ratio, is within 15% of the bill — except one, which is counted as
// unexplained.
func TestDroppedThinkingCorpus(t *testing.T) {
	x := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	explained, unexplained := 0, 0
	for _, name := range []string{"session-196820da.jsonl", "session-3fe1b6bc.jsonl"} {
		tr := readCorpus(t, "codemie-code/tests/integration/session/fixtures/"+name)
		c := analyzed(tr, []estimate.Estimator{x})
		a := estimate.AccuracyOf([]*estimate.Counts{c}, nil, nil, true)
		r := a.Billed.Estimators[0].Ratio
		for _, call := range c.Calls {
			if !call.Compared || call.Delta > -200 {
				continue
			}
			net := float64(call.Appended[0]-call.Dropped[0]) * r
			if math.Abs(net-float64(call.Delta)) <= 0.15*math.Abs(float64(call.Delta)) {
				explained++
			} else {
				unexplained++
				t.Logf("%s, message %d: billed %d, estimated %.0f", name, call.Message, call.Delta, net)
			}
		}
		if name == "session-3fe1b6bc.jsonl" && a.Billed.Estimators[0].Unexplained != 1 {
			t.Errorf("%s: %d unexplained shrinking calls, want 1", name, a.Billed.Estimators[0].Unexplained)
		}
	}
	if explained != 3 || unexplained != 1 {
		t.Errorf("%d shrinking calls explained by dropped thinking, %d not; want 3 and 1", explained, unexplained)
	}
}

// TestKeptPrefix: after a compaction that kept a tail (opencode's), a
// call's prompt is the summary, the messages kept, and what came after.
func TestKeptPrefix(t *testing.T) {
	ts, err := transcript.ReadFile("../transcript/testdata/opencode/export.json", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	c := tr.Compactions[0]
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	counts := analyzed(tr, []estimate.Estimator{e})
	last := counts.Calls[len(counts.Calls)-1]
	want := e.CountMessage(c.Summary)
	for _, j := range append(append([]int(nil), c.Kept...), 11) {
		want += e.CountMessage(&tr.Messages[j])
	}
	if last.Message != 12 || last.Prefix[0] != want {
		t.Errorf("call at message %d: prefix %d, want the summary, messages %v and 11: %d", last.Message, last.Prefix[0], c.Kept, want)
	}
}

// analyzed is Analyze of a transcript read whole.
func analyzed(t *transcript.Transcript, ests []estimate.Estimator) *estimate.Counts {
	c, err := estimate.Analyze(t, ests)
	if err != nil {
		panic(err)
	}
	return c
}
