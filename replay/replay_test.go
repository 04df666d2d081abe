package replay

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

func corpus(t testing.TB) []*transcript.Transcript {
	t.Helper()
	out, err := conformance.Corpus("../fixtures/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 17 {
		t.Fatalf("%d corpus transcripts", len(out))
	}
	return out
}

func mustReplayer(t testing.TB, tr *transcript.Transcript) *Replayer {
	t.Helper()
	r, err := NewReplayer(tr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func generated(t testing.TB, calls int) *transcript.Transcript {
	t.Helper()
	o := fixtures.DefaultGenOptions
	o.Calls = calls
	tr, err := conformance.Generated(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// specs replay every registered policy, with settings small enough to act
// on the corpus.
var specs = []string{
	"none", "recorded", "agent", "aidf:max_messages=30", "aidf:max_messages=30,summarize_on_trim=true", "aidf:max_messages=20,pair_safe=true",
	"two-tier:basic_threshold=20000,ai_threshold=40000", "prune", "cross-turn", "cross-turn:resummarize_threshold=10",
	"compress:max_tokens=40000", "gemini-cli:token_limit=60000", "opencode:context_limit=80000,max_output=8000",
	"codex:context_window=60000", "opencode:context_limit=30000,max_output=4000,prune=true,prune_protect=4000,prune_minimum=2000", "langchain-trim:max_tokens=20000", "langchain-trim:max_tokens=20000,start_on=human",
	"claude-code", "claude-code:context_window=80000", "claude-code:context_window=60000,version=2.0.21",
	"langchain-summarization:trigger_tokens=20000", "langchain-summarization:trigger_tokens=8000,keep_tokens=2000",
	"langchain-clear-tool-uses:trigger_tokens=10000", "langchain-clear-tool-uses:trigger_tokens=5000,keep_messages=1,clear_tool_inputs=true",
	"anthropic-clear-tool-uses:trigger=30000", "anthropic-clear-thinking:keep=0+anthropic-clear-tool-uses:trigger=20000,keep=1,clear_tool_inputs=true",
	"vercel-prune", "vercel-prune:reasoning=all,tool_calls=all,empty_messages=keep",
	"openai-trim", "openai-trim:recent_turns=1,max_output_chars=100,preview_chars=0,tools=Bash|Read",
	"openai-compaction:compact_threshold=50000", "openai-compaction:compact_threshold=30000,keep_user_messages=false",
	"cline:context_window=64000", "cline:max_input_tokens=20000,max_tokens=4096",
}

// TestEveryPolicyOverTheCorpus: the invariants each design guarantees hold
// on every real transcript; the others are reported, never crashed on.
func TestEveryPolicyOverTheCorpus(t *testing.T) {
	trs := corpus(t)
	counts := countcache.New()
	for i, spec := range specs {
		p, err := window.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := window.Guarantees{}
		if gg, ok := p.(guarantor); ok {
			g = gg.Guarantees()
		}
		reported := map[string]int{}
		for j, tr := range trs {
			if testing.Short() && (i+j)%2 == 1 {
				continue // make long: every pair
			}
			run, err := Replay(context.Background(), tr, p, Options{Summarizer: &summarize.Mock{}, counts: counts})
			if err != nil {
				t.Fatal(err)
			}
			if run.Summary.Calls != tr.Calls && tr.Format != transcript.FormatClaudeCode {
				t.Errorf("%s %s: %d steps for %d calls", spec, tr.ID, run.Summary.Calls, tr.Calls)
			}
			for _, st := range run.Steps {
				for _, v := range st.Violations {
					reported[v.Invariant]++
					guaranteed := v.Invariant == invOrder || v.Invariant == invConservation ||
						(v.Invariant == invSummary && !strings.Contains(v.Detail, "position")) ||
						(v.Invariant == invCap && g.MaxMessages > 0) || (v.Invariant == invAnchors && g.Head+g.Tail > 0) ||
						(v.Invariant == invToolPairing && g.PairSafe) || (v.Invariant == invShrinks && g.Compacts)
					if guaranteed {
						t.Errorf("%s on %s: %s", spec, tr.ID, v)
					}
				}
			}
		}
		t.Logf("%-50s reported (not guaranteed): %v", spec, reported)
	}
}

// TestNoneAndRecorded: none sends every message; recorded replays the
// transcript's own compactions.
func TestNoneAndRecorded(t *testing.T) {
	for _, tr := range corpus(t) {
		run, _ := Replay(context.Background(), tr, must(t, "none"), Options{})
		for _, st := range run.Steps {
			if st.Messages != st.next {
				t.Fatalf("%s step %d: none sent %d of %d messages", tr.ID, st.Step, st.Messages, st.next)
			}
		}
		rec, _ := Replay(context.Background(), tr, must(t, "recorded"), Options{})
		if rec.Summary.Summaries != len(tr.Compactions) {
			t.Errorf("%s: recorded made %d summaries for %d compactions", tr.ID, rec.Summary.Summaries, len(tr.Compactions))
		}
	}
}

func must(t testing.TB, spec string) window.Policy {
	t.Helper()
	p, err := window.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAIDFCriterion: the success criterion of AIDF's v0.8.0 plan: 60
// tool calls, aidf:max_messages=30, never more
// than 30 plus one turn.
func TestAIDFCriterion(t *testing.T) {
	tr := generated(t, 60)
	run, err := Replay(context.Background(), tr, must(t, "aidf:max_messages=30"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range run.Steps {
		if st.Messages > 30+len(st.Appended) {
			t.Errorf("step %d: %d messages", st.Step, st.Messages)
		}
	}
	if run.Summary.Violations[invCap] != 0 || run.Summary.Evictions == 0 {
		t.Errorf("cap violations %d, evictions %d", run.Summary.Violations[invCap], run.Summary.Evictions)
	}
}

// TestNoneInputTokens holds the one-pass baseline to what a none replay
// reports, on every corpus transcript, for an exact estimator with and
// without the chat overhead and for chars4.
func TestNoneInputTokens(t *testing.T) {
	none := must(t, "none")
	for _, e := range []estimate.Estimator{
		estimate.MustNew("cl100k_base", estimate.OverheadNone),
		estimate.MustNew("o200k_base", estimate.OverheadOpenAI),
		estimate.MustNew("chars4", estimate.OverheadNone),
	} {
		if testing.Short() && e.Name() == "o200k_base" {
			continue // make long: the second encoding, with OpenAI's overhead
		}
		counts := countcache.New()
		for _, tr := range corpus(t) {
			run, err := Replay(context.Background(), tr, none, Options{Estimators: []estimate.Estimator{e}, counts: counts})
			if err != nil {
				t.Fatal(err)
			}
			want := run.Summary.InputTokens[e.Name()]
			if want == 0 && run.Summary.Calls > 0 {
				t.Fatalf("%s: a none replay sent no %s tokens", tr.File, e.Name())
			}
			if got := noneInputTokens(tr, e, counts); got != want {
				t.Errorf("%s, %s: NoneInputTokens = %d, a none replay sends %d", tr.File, e.Name(), got, want)
			}
		}
	}
}

// TestWindowDefaultsToModel: a policy's window left at its default is the
// context window of the transcript's model, from the model table — a
// DeepSeek session compacts as if the window were given as 128,000 — and
// the source's own default only when the table does not know the model.
func TestWindowDefaultsToModel(t *testing.T) {
	base := generated(t, 500) // peaks near 255,000 tokens
	withModel := func(model string) *transcript.Transcript {
		tr := *base
		tr.Messages = slices.Clone(base.Messages)
		for i := range tr.Messages {
			if tr.Messages[i].Role == transcript.RoleAssistant {
				tr.Messages[i].Model = model
			}
		}
		tr.Models = []string{model}
		return &tr
	}
	run := func(tr *transcript.Transcript, spec string) Summary {
		t.Helper()
		r, err := Replay(context.Background(), tr, must(t, spec), Options{Summarizer: &summarize.Mock{}, NoSteps: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.Summary
	}
	for _, c := range []struct{ policy, param, source string }{
		{"gemini-cli", "token_limit", "1048576"},
		{"codex", "context_window", "272000"},
		{"opencode", "context_limit", "200000"},
		{"compress", "max_tokens", "128000"},
	} {
		for _, m := range []struct{ model, window string }{
			{"deepseek-chat", "128000"},
			{"claude-sonnet-4-20250514", "200000"},
			{"acme-unpriced-1", c.source},
		} {
			tr := withModel(m.model)
			got, want := run(tr, c.policy), run(tr, c.policy+":"+c.param+"="+m.window)
			if !cmp.Equal(got, want) {
				t.Errorf("%s on %s: the default window ran as %s=%s would not:\n%s", c.policy, m.model, c.param, m.window, cmp.Diff(want, got))
			}
		}
		// The window matters on this transcript: a known model's window
		// compacts where the source's default does not, or differently.
		unknown := run(withModel("acme-unpriced-1"), c.policy)
		if cmp.Equal(run(withModel("deepseek-chat"), c.policy), unknown) && cmp.Equal(run(withModel("claude-sonnet-4-20250514"), c.policy), unknown) {
			t.Errorf("%s: known models ran as an unknown one", c.policy)
		}
	}
}

// TestMeasuredRefused: a Claude Code session read measured
// (transcript.Options.Measure) holds its blocks' sizes, not their text;
// replaying it (Replay, NewReplayer) or counting it (estimate.Analyze)
// is refused, not answered with the counts of empty blocks.
func TestMeasuredRefused(t *testing.T) {
	const file = "../fixtures/corpus/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
	for _, measure := range []bool{false, true} {
		ts, err := transcript.ReadFile(file, transcript.Options{Measure: measure})
		if err != nil {
			t.Fatal(err)
		}
		run, err := Replay(context.Background(), ts[0], must(t, "none"), Options{NoSteps: true, NoRetention: true})
		switch {
		case measure && (err == nil || !strings.Contains(err.Error(), "no content to replay")):
			t.Errorf("measured: replayed (%v), want it refused", err)
		case !measure && err != nil:
			t.Errorf("read whole: %v", err)
		case !measure && run.Summary.PeakTokens["cl100k_base"] < 100_000:
			t.Errorf("read whole: peak %d tokens, want the session's (over 100,000)", run.Summary.PeakTokens["cl100k_base"])
		}
		if _, err := NewReplayer(ts[0]); (err != nil) != measure {
			t.Errorf("measured %v: NewReplayer: %v", measure, err)
		}
		if _, err := estimate.Analyze(ts[0], []estimate.Estimator{estimate.MustNew("chars4", estimate.OverheadNone)}); (err != nil) != measure {
			t.Errorf("measured %v: estimate.Analyze: %v", measure, err)
		}
	}
}
