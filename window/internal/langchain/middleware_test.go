package langchain

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// fixedSummary is a summarizer that answers text, as the conformance
// harness's summary model does.
type fixedSummary string

func (fixedSummary) Name() string { return "fixed" }
func (f fixedSummary) Summarize(context.Context, summarize.Request) (summarize.Result, error) {
	return summarize.Result{Text: string(f)}, nil
}

// lcSize is a LangChain context size as the golden writes it.
type lcSize struct {
	Tokens   int     `json:"tokens"`
	Messages int     `json:"messages"`
	Fraction float64 `json:"fraction"`
}

func (s lcSize) params(prefix string) []string {
	var out []string
	if s.Tokens > 0 {
		out = append(out, fmt.Sprintf("%s_tokens=%d", prefix, s.Tokens))
	}
	if s.Messages > 0 {
		out = append(out, fmt.Sprintf("%s_messages=%d", prefix, s.Messages))
	}
	if s.Fraction > 0 {
		out = append(out, fmt.Sprintf("%s_fraction=%g", prefix, s.Fraction))
	}
	return out
}

type lcmwGolden struct {
	Version       string `json:"langchain"`
	Summarization []struct {
		Trigger lcSize `json:"trigger"`
		Keep    lcSize `json:"keep"`
	} `json:"summarization"`
	Clearing []struct {
		Trigger         lcSize   `json:"trigger"`
		Keep            lcSize   `json:"keep"`
		ClearAtLeast    int      `json:"clearAtLeast"`
		ClearToolInputs bool     `json:"clearToolInputs"`
		ExcludeTools    []string `json:"excludeTools"`
		Placeholder     string   `json:"placeholder"`
	} `json:"clearing"`
	Results struct {
		Summarization [][]struct {
			Source string              `json:"source"`
			Calls  [][]json.RawMessage `json:"calls"`
		} `json:"summarization"`
		Clearing [][]struct {
			Source string     `json:"source"`
			Calls  [][]string `json:"calls"`
		} `json:"clearing"`
	} `json:"results"`
}

// TestLangchainSummarizationConformance: at every call of every history,
// under every setting, langchain-summarization has made as many summaries
// as SummarizationMiddleware (langchain 1.5.14, run by make conformance),
// and keeps the same messages after the latest.
func TestLangchainSummarizationConformance(t *testing.T) {
	var g lcmwGolden
	policytest.ReadGolden(t, "langchainmw.json", &g)
	for _, name := range []string{"langchain-summarization", "langchain-clear-tool-uses"} {
		if s, _ := policytest.Lookup(Specs, name); s == nil || s.Models != "langchain@"+g.Version {
			t.Errorf("%s says it models %v; the golden is of langchain@%s", name, s, g.Version)
		}
	}
	for k, s := range g.Summarization {
		spec := "langchain-summarization:" + strings.Join(append(append(s.Trigger.params("trigger"), s.Keep.params("keep")...), "max_input_tokens=200000"), ",")
		calls, same := 0, 0
		for _, r := range g.Results.Summarization[k] {
			tr := policytest.ConformanceSource(t, r.Source)
			p := mustPolicy(t, spec)
			env := &policy.Env{Transcript: tr, Summarizer: fixedSummary("SUMMARY")}
			c, summaries := 0, 0
			policytest.Drive(t, p, tr, env, func(_, _ int, step policy.Step, _ *policy.State) {
				if step.Summary != nil && step.Summary.ID != "" {
					summaries++
				}
				got := "[0]"
				if summaries > 0 {
					first := ""
					if h := step.History; len(h) > 1 {
						it := h[1]
						i := it.Index()
						first = fmt.Sprintf("%d.%d", i, len(lcView(&tr.Messages[i]))-len(lcView(it.Msg)))
					}
					got = fmt.Sprintf("[%d,%q]", summaries, first)
				}
				calls++
				if want := string(joinRaw(r.Calls[c])); want == got {
					same++
				} else if !t.Failed() || calls < 20 {
					t.Errorf("%s, %s, call %d: SummarizationMiddleware %s, ctxbench %s", spec, r.Source, c, want, got)
				}
				c++
			})
			if c != len(r.Calls) {
				t.Fatalf("%s: %d calls, the golden has %d", r.Source, c, len(r.Calls))
			}
		}
		t.Logf("%s: %d of %d calls as SummarizationMiddleware", spec, same, calls)
	}
}

// TestLangchainClearToolUsesConformance: at every call, langchain-clear-
// tool-uses clears the results (and the calls' arguments) that
// ClearToolUsesEdit clears, and removes what it removes; what it sends
// shows it.
func TestLangchainClearToolUsesConformance(t *testing.T) {
	var g lcmwGolden
	policytest.ReadGolden(t, "langchainmw.json", &g)
	for k, s := range g.Clearing {
		params := append(s.Trigger.params("trigger"), s.Keep.params("keep")...)
		if s.Trigger.Tokens == 0 {
			params = append(params, "trigger_tokens=0")
		}
		if s.ClearAtLeast > 0 {
			params = append(params, fmt.Sprintf("clear_at_least=%d", s.ClearAtLeast))
		}
		if s.ClearToolInputs {
			params = append(params, "clear_tool_inputs=true")
		}
		if len(s.ExcludeTools) > 0 {
			params = append(params, "exclude_tools="+strings.Join(s.ExcludeTools, "|"))
		}
		placeholder := lcClearedDefault
		if s.Placeholder != "" {
			placeholder = s.Placeholder
			params = append(params, "placeholder="+s.Placeholder)
		}
		spec := "langchain-clear-tool-uses:" + strings.Join(append(params, "max_input_tokens=200000"), ",")
		calls, same := 0, 0
		for _, r := range g.Results.Clearing[k] {
			tr := policytest.ConformanceSource(t, r.Source)
			p := mustPolicy(t, spec)
			c := 0
			cleared := map[string]bool{}
			policytest.Drive(t, p, tr, &policy.Env{Transcript: tr}, func(_, _ int, step policy.Step, _ *policy.State) {
				got := clearChanges(tr, step.History, cleared, placeholder, s.ClearToolInputs)
				calls++
				if want := r.Calls[c]; slices.Equal(want, got) {
					same++
				} else if !t.Failed() || calls < 20 {
					t.Errorf("%s, %s, call %d: ClearToolUsesEdit %v, ctxbench %v", spec, r.Source, c, want, got)
				}
				c++
			})
			if c != len(r.Calls) {
				t.Fatalf("%s: %d calls, the golden has %d", r.Source, c, len(r.Calls))
			}
		}
		t.Logf("%s: %d of %d calls as ClearToolUsesEdit", spec, same, calls)
	}
}

// clearChanges returns what sent shows cleared that was not before —
// "c:ID" a result holding the placeholder, "i:ID" its call's arguments
// emptied (with inputs) — and "r:i.k" for each tool result of an
// original message sent before that sent lacks, sorted. seen holds what
// was found before.
func clearChanges(tr *transcript.Transcript, sent []policy.Item, seen map[string]bool, placeholder string, inputs bool) []string {
	out := []string{}
	present := map[string]bool{}
	for _, it := range sent {
		for _, b := range it.Msg.Blocks {
			switch {
			case b.Type == transcript.BlockToolResult:
				present[b.ID] = true
				if b.Text == placeholder && !seen["c:"+b.ID] {
					seen["c:"+b.ID] = true
					out = append(out, "c:"+b.ID)
				}
			case b.Type == transcript.BlockToolUse && inputs && string(b.Input) == "{}" && it.Truncated && !seen["i:"+b.ID]:
				seen["i:"+b.ID] = true
				out = append(out, "i:"+b.ID)
			}
		}
		if i := it.Index(); i >= 0 {
			seen[fmt.Sprintf("m%d", i)] = true
		}
	}
	// The results of every message sent before, by unit.
	for i := range tr.Messages {
		if !seen[fmt.Sprintf("m%d", i)] {
			continue
		}
		for k, u := range lcView(&tr.Messages[i]) {
			id := tr.Messages[i].Blocks[u.blocks[0]].ID
			if u.kind == 't' && !present[id] && !seen["r:"+id] {
				seen["r:"+id] = true
				out = append(out, fmt.Sprintf("r:%d.%d", i, k))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestLangchainSummarizationRules: SummarizationMiddleware's own cases.
// trigger {tokens: N} fires at ≥ N (shouldSummarize: totalTokens <
// trigger.tokens is not met); keep {messages: 2} keeps the last two
// unless that separates a call from its results (findSafeCutoff moves the
// cut back to the call); a failed summary call becomes the summary text
// (createSummary returns "Error generating summary: …").
func TestLangchainSummarizationRules(t *testing.T) {
	// Four 100-character messages before the second call: 25 tokens
	// each, 100 in all.
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		trigger int
		fires   bool
	}{{101, false}, {100, true}} {
		calls := policytest.Run(t, mustPolicy(t, fmt.Sprintf("langchain-summarization:trigger_tokens=%d,keep_messages=1", tc.trigger)), policytest.Msgs(policytest.User(long), policytest.Asst(long), policytest.User(long), policytest.User(long), policytest.Asst(long)), fixedSummary("S"))
		if fired := calls[1].Step.Summary != nil; fired != tc.fires {
			t.Errorf("trigger %d at 100 tokens: summarized %v, want %v", tc.trigger, fired, tc.fires)
		}
	}
	// keep 2 would cut between a call and its result: the cut moves back
	// to the call, and the call, its result and the rest are kept.
	tr2 := policytest.Msgs(policytest.User(long), policytest.Asst(long), policytest.User(long), policytest.CallTool("a"), policytest.Result("a", long), policytest.User("go on"), policytest.Asst("done"))
	calls := policytest.Run(t, mustPolicy(t, "langchain-summarization:trigger_tokens=10,keep_messages=2"), tr2, fixedSummary("S"))
	last := calls[len(calls)-1].Step
	if diff := cmp.Diff([]string{"s2", "m3", "m4", "m5"}, policy.ItemIDs(last.History)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	if got := last.History[0].Msg.Text(); got != lcSummaryPrefix+"\n\nS" {
		t.Errorf("the summary message is %q", got)
	}
	// A failed summary becomes history, as the JS does.
	calls = policytest.Run(t, mustPolicy(t, "langchain-summarization:trigger_tokens=10,keep_messages=2"), tr2, &policytest.Recorder{Fail: true})
	last = calls[len(calls)-1].Step
	if !strings.HasPrefix(last.History[0].Msg.Text(), lcSummaryPrefix+"\n\nError generating summary: Error: ") || last.Summary.Error == "" {
		t.Errorf("after a failed summary call the history starts %q", last.History[0].Msg.Text())
	}
}

// TestLangchainClearRules: ClearToolUsesEdit's cases — trigger just below
// and at the threshold, keep, an excluded tool, clear_at_least not met by
// the old results (the kept are then cleared, newest first).
func TestLangchainClearRules(t *testing.T) {
	out := strings.Repeat("y", 400) // 100 tokens of content
	tr := policytest.Msgs(policytest.User("go"),
		policytest.CallTool("a"), policytest.Result("a", out),
		policytest.CallNamed("b", "Read"), policytest.Result("b", out),
		policytest.CallTool("c"), policytest.Result("c", out),
		policytest.CallTool("d"), policytest.Result("d", out),
		policytest.Asst("done"))
	total := lcCount(lcMessages(policytest.Items(tr, len(tr.Messages)-1)))
	cleared := func(spec string) []string {
		calls := policytest.Run(t, mustPolicy(t, spec), tr, nil)
		var ids []string
		for _, it := range calls[len(calls)-1].Step.History {
			for _, b := range it.Msg.Blocks {
				if b.Type == transcript.BlockToolResult && b.Text == lcClearedDefault {
					ids = append(ids, b.ID)
				}
			}
		}
		return ids
	}
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{fmt.Sprintf("langchain-clear-tool-uses:trigger_tokens=%d,keep_messages=2", total+1), nil},
		{fmt.Sprintf("langchain-clear-tool-uses:trigger_tokens=%d,keep_messages=2", total), []string{"a", "b"}},
		{fmt.Sprintf("langchain-clear-tool-uses:trigger_tokens=%d,keep_messages=2,exclude_tools=Read", total), []string{"a"}},
		{fmt.Sprintf("langchain-clear-tool-uses:trigger_tokens=%d,keep_messages=3,clear_at_least=150", total), []string{"a", "d"}},
	} {
		if diff := cmp.Diff(tc.want, cleared(tc.spec)); diff != "" {
			t.Errorf("%s: cleared (-want +got):\n%s", tc.spec, diff)
		}
	}
}

// wideToolTurn is a session whose one turn calls n tools at once and
// gets their n results in one message, then ends.
func wideToolTurn(n int) *transcript.Transcript { return policytest.WideTurn("bash", n) }

// TestClearWideTurnLinear: clearing the results of a turn that called
// thousands of tools at once takes time about linear in them (a message
// of 4,000 results took 127 s with clear_tool_inputs, each clear copying
// and measuring the whole message again): eight times the tools, at most
// 24 times the time (best of five, in the same run; linear is 8, the
// quadratic clearing 64). The smaller turn has 1,000 tools: at 500 it
// took 2 ms, and a machine busy elsewhere moved the ratio past 24.
func TestClearWideTurnLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing: make long")
	}
	p := mustPolicy(t, "langchain-clear-tool-uses:trigger_tokens=100,clear_tool_inputs=true")
	timeOf := func(n int) time.Duration {
		tr := wideToolTurn(n)
		best := time.Duration(math.MaxInt64)
		for range 5 {
			start := time.Now()
			policytest.Drive(t, p, tr, &policy.Env{Transcript: tr}, func(int, int, policy.Step, *policy.State) {})
			best = min(best, time.Since(start))
		}
		return best
	}
	small, large := timeOf(1000), timeOf(8000)
	t.Logf("1,000 tools %v, 8,000 tools %v (%.1fx)", small, large, float64(large)/float64(small))
	if large > 24*small {
		t.Errorf("8,000 tools took %v, %.1f times 1,000's %v: want at most 24", large, float64(large)/float64(small), small)
	}
}
