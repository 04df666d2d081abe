package window

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// Conformance of aidf with the Definition of Done of AIDF's task Implement
// Conversation Window Module and with AIDF's v0.8.0 plan (Message History
// Management).

func applyAIDF(t *testing.T, spec string, n int, sum summarize.Summarizer) (Step, *transcript.Transcript) {
	t.Helper()
	tr := policytest.TextTranscript(n)
	env := &Env{Transcript: tr, Next: n, Summarizer: sum}
	step, err := mustPolicy(t, spec).Apply(context.Background(), env, &State{}, policytest.Items(tr, n))
	if err != nil {
		t.Fatal(err)
	}
	return step, tr
}

func TestAIDFDefaults(t *testing.T) {
	// The task's Definition of Done: "Default values are applied for
	// omitted config fields (max_messages: 100, summarize_on_trim: false,
	// preserve_first_n: 1, preserve_last_n: 20)".
	want := Values{"max_messages": "100", "summarize_on_trim": "false", "preserve_first_n": "1", "preserve_last_n": "20",
		"summarize_every": "10", "pair_safe": "false", "reading": "code", "config": ""}
	if diff := cmp.Diff(want, mustPolicy(t, "aidf").Params()); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestAIDFTrim(t *testing.T) {
	for _, tc := range []struct {
		name    string // the Definition of Done line it checks
		spec    string
		n       int
		sent    []int // indices sent
		evicted []int
		warn    bool
	}{
		{"DoD: unchanged when under the cap", "aidf:max_messages=10,preserve_last_n=3", 9, seq(0, 9), nil, false},
		{"DoD: exactly at the cap (no trimming needed)", "aidf:max_messages=10,preserve_last_n=3", 10, seq(0, 10), nil, false},
		{"DoD: empty message array", "aidf:max_messages=10,preserve_last_n=3", 0, nil, nil, false},
		{"step 2-5: head, newest middle, tail; oldest middle evicted first", "aidf:max_messages=10,preserve_first_n=2,preserve_last_n=3", 15,
			append(seq(0, 2), seq(7, 15)...), seq(2, 7), false},
		{"step 3 / DoD: head + tail >= max keeps only them, with a warning", "aidf:max_messages=8,preserve_first_n=3,preserve_last_n=5", 12,
			append(seq(0, 3), seq(7, 12)...), seq(3, 7), true},
		{"DoD: fewer messages than preserve_first_n + preserve_last_n", "aidf:max_messages=4,preserve_first_n=3,preserve_last_n=4,reading=seed", 5,
			append(seq(0, 3), seq(3, 5)...), nil, true},
		// conversation-window.ts: const head = messages.slice(0, this.preserveFirstN);
		// const tail = messages.slice(-this.preserveLastN); ... const trimmed = [...head, ...tail];
		{"code: head and tail overlap, what they share is sent twice", "aidf:max_messages=4,preserve_first_n=3,preserve_last_n=4", 5,
			append(seq(0, 3), seq(1, 5)...), nil, true},
		{"code: 12 messages under max 10, first 1, last 20 send 13, m0 twice", "aidf:max_messages=10,preserve_first_n=1,preserve_last_n=20", 12,
			append(seq(0, 1), seq(0, 12)...), nil, true},
		{"code: head and tail that do not overlap are the seed's", "aidf:max_messages=8,preserve_first_n=3,preserve_last_n=5", 9,
			append(seq(0, 3), seq(4, 9)...), seq(3, 4), true},
		{"max_messages 0 disables trimming", "aidf:max_messages=0", 300, seq(0, 300), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step, _ := applyAIDF(t, tc.spec, tc.n, nil)
			if diff := cmp.Diff(names(tc.sent), ids(step.History), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(names(tc.evicted), step.Evicted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("evicted (-want +got):\n%s", diff)
			}
			if (len(step.Warnings) > 0) != tc.warn {
				t.Errorf("warnings %q, want warning: %v", step.Warnings, tc.warn)
			}
		})
	}
}

func seq(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

func names(idx []int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, msgid.Of(i))
	}
	return out
}

// TestAIDFSuccessCriterion is the success criterion of AIDF's v0.8.0 plan
// (Message History Management): a task with 50+ tool calls and max_messages: 30
// never exceeds the cap by more than one turn (here: a 120-call generated
// session and a real one).
func TestAIDFSuccessCriterion(t *testing.T) {
	for _, tr := range []*transcript.Transcript{policytest.Generated(t, 120, 3), policytest.ReadCorpus(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")} {
		for _, spec := range []string{"aidf:max_messages=30", "aidf:max_messages=30,summarize_on_trim=true"} {
			calls := policytest.Run(t, mustPolicy(t, spec), tr, &summarize.Mock{})
			if len(calls) < 50 {
				t.Fatalf("only %d calls", len(calls))
			}
			summaries := 0
			for k, c := range calls {
				limit := 30 + c.Turn
				if strings.Contains(spec, "summarize") {
					limit++ // the summary message is part of the design
				}
				if len(c.Sent) > limit {
					t.Errorf("%s %s call %d: %d messages sent, cap 30 + turn %d", tr.ID, spec, k, len(c.Sent), c.Turn)
				}
				if c.Step.Summary != nil && c.Step.Summary.ID != "" {
					summaries++
				}
			}
			if strings.Contains(spec, "summarize") && summaries == 0 {
				t.Errorf("%s: no summary made", spec)
			}
		}
	}
}

func TestAIDFSummary(t *testing.T) {
	// the plan's tasks 118-implement-summarization and
	// 122-test-summarization: the summary replaces the evicted messages
	// with a single synthetic assistant message "[Conversation Summary] …"
	// between head and the rest; the prompt is the seed's.
	rec := &policytest.Recorder{}
	step, _ := applyAIDF(t, "aidf:max_messages=10,preserve_first_n=2,preserve_last_n=3,summarize_on_trim=true", 25, rec)
	got := ids(step.History)
	want := append(append(names(seq(0, 2)), "s1"), names(seq(17, 25))...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	s := step.History[2]
	if s.Msg.Role != transcript.RoleAssistant || !strings.HasPrefix(s.Msg.Text(), "[Conversation Summary] summary 1 of 15 messages") || !s.Summary {
		t.Errorf("summary message: %+v %q", s.Msg.Role, s.Msg.Text())
	}
	if step.Summary == nil || step.Summary.ID != "s1" || len(step.Summary.Covers) != 15 {
		t.Errorf("summary event %+v", step.Summary)
	}
	if len(rec.Reqs) != 1 || rec.Reqs[0].Template != summarize.AIDF || summarize.AIDF.MaxTokens != 1024 {
		t.Errorf("summarizer requests %d, template %v", len(rec.Reqs), rec.Reqs[0].Template.Name)
	}
	p, _ := rec.Reqs[0].Render()
	if !strings.HasPrefix(p.User, "Summarize the following conversation history concisely. Focus on: what files were read/written") {
		t.Errorf("prompt %q", p.User)
	}
}

func TestAIDFSummaryFallbacks(t *testing.T) {
	spec := "aidf:max_messages=10,preserve_first_n=2,preserve_last_n=3,summarize_on_trim=true"
	// "If summarization fails (API error, timeout), fall back to plain eviction."
	step, _ := applyAIDF(t, spec, 25, &policytest.Recorder{Fail: true})
	if cmp.Diff(append(names(seq(0, 2)), names(seq(17, 25))...), ids(step.History)) != "" || step.Summary == nil || step.Summary.Error == "" {
		t.Errorf("failed summary: history %v, event %+v", ids(step.History), step.Summary)
	}
	for _, it := range step.History {
		if strings.Contains(it.Msg.Text(), "failing as told") {
			t.Errorf("the error became history: %q", it.Msg.Text())
		}
	}
	// "If evicted messages contain only tool results with no meaningful
	// text, skip summarization."
	tr := &transcript.Transcript{}
	for i := range 30 {
		m := transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{policytest.ToolUse(strconv.Itoa(i))}}
		if i%2 == 1 {
			m = transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.ToolResult(strconv.Itoa(i-1), "out")}}
		}
		tr.Messages = append(tr.Messages, m)
	}
	// The seeds skip tool results; the code's extractText takes a tool
	// result's content string as text, and skips only messages with none.
	empty := &transcript.Transcript{Messages: slices.Clone(tr.Messages)}
	for i := 1; i < len(empty.Messages); i += 2 {
		empty.Messages[i] = transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{policytest.ToolResult(strconv.Itoa(i-1), "")}}
	}
	for _, tc := range []struct {
		spec      string
		tr        *transcript.Transcript
		summarize bool
	}{
		{spec + ",reading=seed", tr, false},
		{spec, tr, true},
		{spec, empty, false},
	} {
		rec := &policytest.Recorder{}
		step, err := mustPolicy(t, tc.spec).Apply(context.Background(), &Env{Transcript: tc.tr, Summarizer: rec}, &State{}, policytest.Items(tc.tr, 30))
		if err != nil {
			t.Fatal(err)
		}
		if made := len(rec.Reqs) == 1 && step.Summary != nil; made != tc.summarize || (!made && len(step.Warnings) == 0) {
			t.Errorf("%s: summarized %d times tool-only messages (want a summary: %t); warnings %q", tc.spec, len(rec.Reqs), tc.summarize, step.Warnings)
		}
	}
}

// TestAIDFTailZero: under the code's reading, preserve_last_n 0 makes the
// tail slice(-0), the whole conversation; ctxbench refuses it rather than
// replay a history that grows without bound.
func TestAIDFTailZero(t *testing.T) {
	checkParses(t, map[string]bool{
		"aidf:max_messages=10,preserve_last_n=0":              false,
		"aidf:max_messages=10,preserve_last_n=0,reading=seed": true,
		"aidf:max_messages=0,preserve_last_n=0":               true,
	}, "slice(-0)")
}

// TestAIDFRateLimit: "at most once every 10 messages evicted (don't
// summarize on every trim)".
func TestAIDFRateLimit(t *testing.T) {
	tr := policytest.TextTranscript(60)
	rec := &policytest.Recorder{}
	calls := policytest.Run(t, mustPolicy(t, "aidf:max_messages=12,preserve_last_n=4,summarize_on_trim=true"), tr, rec)
	evicted := 0
	for k, c := range calls {
		evicted += len(c.Step.Evicted)
		if c.Step.Summary != nil {
			if evicted < 10 {
				t.Errorf("call %d: a summary after %d evictions", k, evicted)
			}
			evicted = 0
		}
	}
	if len(rec.Reqs) == 0 || len(rec.Reqs) > 60/10 {
		t.Errorf("%d summaries for 60 messages", len(rec.Reqs))
	}
}

// TestAIDFOrphans shows what the message-count window does to tool pairs,
// and what pair_safe changes.
func TestAIDFOrphans(t *testing.T) {
	tr := policytest.Generated(t, 80, 9)
	count := func(spec string) int {
		n := 0
		for _, c := range policytest.Run(t, mustPolicy(t, spec), tr, nil) {
			n += policytest.Orphans(policytest.ItemsOf(tr, c.Sent))
		}
		return n
	}
	if n := count("aidf:max_messages=15,preserve_last_n=5"); n == 0 {
		t.Errorf("the plain window orphaned no tool result on a tool-heavy session: the test cannot show the difference")
	}
	if n := count("aidf:max_messages=15,preserve_last_n=5,pair_safe=true"); n != 0 {
		t.Errorf("pair_safe sent %d orphaned tool results", n)
	}
}

// TestAIDFConfig reads AIDF's config.yml, in both forms task 120 shows.
func TestAIDFConfig(t *testing.T) {
	dir := t.TempDir()
	full := dir + "/config.yml"
	os.WriteFile(full, []byte("execution:\n  max_iterations: 50\n  conversation:\n    max_messages: 40\n    summarize_on_trim: true\n    preserve_first_n: 2\n    preserve_last_n: 10\n"), 0o644)
	short := dir + "/short.yml"
	os.WriteFile(short, []byte("execution:\n  max_conversation_messages: 60\n"), 0o644)
	for _, tc := range []struct {
		spec string
		want map[string]string
	}{
		{"aidf:config=" + full, map[string]string{"max_messages": "40", "summarize_on_trim": "true", "preserve_first_n": "2", "preserve_last_n": "10"}},
		{"aidf:config=" + short, map[string]string{"max_messages": "60", "summarize_on_trim": "false", "preserve_first_n": "1", "preserve_last_n": "20"}},
		{"aidf:preserve_last_n=5,config=" + full, map[string]string{"max_messages": "40", "summarize_on_trim": "true", "preserve_first_n": "2", "preserve_last_n": "5"}},
	} {
		v := mustPolicy(t, tc.spec).Params()
		for k, want := range tc.want {
			if v[k] != want {
				t.Errorf("%s: %s=%s, want %s", tc.spec, k, v[k], want)
			}
		}
	}
	dup := dir + "/dup.yml"
	os.WriteFile(dup, []byte("execution:\n  conversation:\n"+strings.Repeat("    max_messages: 40\n", 3000)), 0o644)
	if _, err := Parse("aidf:config=" + dup); err == nil || !strings.Contains(err.Error(), `line 4: key "max_messages" is already defined at line 3`) {
		t.Errorf("repeated keys: %v", err)
	}
	two := dir + "/two.yml"
	os.WriteFile(two, []byte("execution:\n  max_conversation_messages: 60\n---\nexecution:\n  max_conversation_messages: 10\n"), 0o644)
	if _, err := Parse("aidf:config=" + two); err == nil || !strings.Contains(err.Error(), "two.yml: line 3: a second YAML document") {
		t.Errorf("two documents: %v", err)
	}
	if _, err := Parse("aidf:config=" + dir + "/missing.yml"); err == nil {
		t.Error("a missing config was accepted")
	}
}

// TestAidfReuseSent: building each history in the array of the previous
// one (Env.ReuseSent) sends, evicts and summarizes exactly what building
// each in a new array does, on a corpus session, with and without
// summaries and pair-safe cuts.
func TestAidfReuseSent(t *testing.T) {
	tr := policytest.ReadCorpus(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	for _, spec := range []string{"aidf:max_messages=30", "aidf:max_messages=12,preserve_first_n=2,preserve_last_n=4,summarize_on_trim=true,summarize_every=3",
		"aidf:max_messages=10,preserve_last_n=4,pair_safe=true"} {
		p := mustPolicy(t, spec)
		want := policytest.RunIn(t, p, tr, &Env{Transcript: tr, Summarizer: &summarize.Mock{}})
		got := policytest.RunIn(t, p, tr, &Env{Transcript: tr, Summarizer: &summarize.Mock{}, ReuseSent: true})
		evicting := 0
		for _, c := range want {
			evicting += len(c.Step.Evicted)
		}
		if evicting == 0 {
			t.Fatalf("%s evicts nothing from %s", spec, tr.ID)
		}
		ignore := cmpopts.IgnoreFields(Step{}, "History")
		if diff := cmp.Diff(want, got, ignore); diff != "" {
			t.Errorf("%s: (-new arrays +reused)\n%s", spec, diff)
		}
	}
}
