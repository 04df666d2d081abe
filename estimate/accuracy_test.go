package estimate_test

import (
	"encoding/json"
	"math"
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
	c := estimate.Analyze(tr, []estimate.Estimator{double, exact})
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
	c := estimate.Analyze(tr, ests)
	if len(c.Calls) != tr.Calls {
		t.Errorf("%d calls with usage, transcript has %d calls", len(c.Calls), tr.Calls)
	}
	compared := 0
	for _, call := range c.Calls {
		if call.Delta > 0 {
			compared++
		}
		if call.Delta < 0 {
			t.Errorf("call at message %d: negative delta", call.Message)
		}
	}
	// 39 calls: the first, the one after the compaction and any whose
	// prompt did not grow are not compared.
	if compared < 30 || compared > 37 {
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
