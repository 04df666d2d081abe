package summarize

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/conversation"
	"github.com/ctxbench/ctxbench/transcript"
)

func corpusMessages(t *testing.T, name string) []transcript.Message {
	t.Helper()
	ts, err := transcript.ReadFile(filepath.Join("../fixtures/corpus", name), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0].Messages
}

func TestMockDeterministicAndSized(t *testing.T) {
	msgs := corpusMessages(t, "spotter/tool_heavy.jsonl")
	ctx := context.Background()
	m := &Mock{Tokens: 120}
	a, err := m.Summarize(ctx, Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := (&Mock{Tokens: 120}).Summarize(ctx, Request{Messages: msgs})
	if a.Text != b.Text || a.Usage != b.Usage {
		t.Errorf("two mocks gave different summaries of the same request")
	}
	if a.Usage.Output < 110 || a.Usage.Output > 120 {
		t.Errorf("summary of %d tokens, want about 120", a.Usage.Output)
	}
	p, _ := (Request{Messages: msgs}).Render()
	if want := int64(counter().Count(p.User)); a.Usage.Input != want {
		t.Errorf("input usage %d, want the prompt's %d tokens", a.Usage.Input, want)
	}
	c, _ := (&Mock{Tokens: 120}).Summarize(ctx, Request{Messages: msgs[:5]})
	if c.Text == a.Text {
		t.Error("different requests gave the same summary")
	}
	// Ratio of the input, bounded by the template's limit.
	r, _ := (&Mock{Ratio: 0.1}).Summarize(ctx, Request{Messages: msgs, Template: CrossTurn})
	if want := min(int64(0.1*float64(r.Usage.Input)), 500); r.Usage.Output > want || r.Usage.Output < want-10 {
		t.Errorf("ratio 0.1 of %d input tokens (limit 500): %d output tokens", r.Usage.Input, r.Usage.Output)
	}
	if !strings.Contains(a.Text, "Bash") {
		t.Errorf("the mock summary does not carry the extraction: %q", a.Text)
	}
	if m.Calls() != 1 {
		t.Errorf("calls %d, want 1", m.Calls())
	}
}

func TestMockFaults(t *testing.T) {
	ctx := context.Background()
	req := Request{Messages: messages}
	m := &Mock{FailCall: 2}
	for i, wantErr := range []bool{false, true, false} {
		_, err := m.Summarize(ctx, req)
		if (err != nil) != wantErr {
			t.Errorf("call %d: error %v, want failure %v", i+1, err, wantErr)
		}
		if err != nil && !errors.Is(err, errInjected) {
			t.Errorf("call %d: error %v, want errInjected", i+1, err)
		}
	}
	boom := errors.New("boom")
	all := &Mock{FailAll: true, Err: boom}
	for range 3 {
		if _, err := all.Summarize(ctx, req); !errors.Is(err, boom) {
			t.Errorf("error %v, want boom", err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (&Mock{}).Summarize(cctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestHeuristic(t *testing.T) {
	msgs := corpusMessages(t, "spotter/tool_heavy.jsonl")
	a, err := Heuristic{}.Summarize(context.Background(), Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Heuristic{}.Summarize(context.Background(), Request{Messages: msgs})
	if a.Text != b.Text || a.Usage != (transcript.Usage{}) || a.Model != "heuristic" {
		t.Errorf("heuristic: not deterministic or not free: %+v", a)
	}
	// What the session's tool calls hold, counted independently.
	tools := map[string]int{}
	for _, m := range msgs {
		for _, bl := range m.Blocks {
			if bl.Type == transcript.BlockToolUse {
				tools[bl.Name]++
			}
		}
	}
	for name := range tools {
		if !strings.Contains(a.Text, name+" (") {
			t.Errorf("tool %s missing from:\n%s", name, a.Text)
		}
	}
	for _, want := range []string{"Summary of 17 earlier messages.", "Files explored:", "Commands run:"} {
		if !strings.Contains(a.Text, want) {
			t.Errorf("summary lacks %q:\n%s", want, a.Text)
		}
	}
}

func TestExtract(t *testing.T) {
	use := func(name, input string) transcript.Block {
		return transcript.Block{Type: transcript.BlockToolUse, Name: name, Input: []byte(input)}
	}
	msgs := []transcript.Message{
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{
			use("Read", `{"file_path":"/repo/main.go"}`),
			use("Bash", `{"command":"go   test ./..."}`),
			use("shell", `{"command":["bash","-lc","ls -la"]}`),
			use("Read", `{"file_path":"/repo/main.go"}`),
			{Type: transcript.BlockText, Text: "I looked at ./internal/store.go and (/tmp/x.log)."},
		}},
	}
	got := extract(msgs, "").text()
	want := "Summary of 1 earlier messages.\nTools used: Read (2), Bash (1), shell (1)\n" +
		"Files explored: /repo/main.go, ./internal/store.go, /tmp/x.log\nCommands run:\n- go test ./...\n- bash -lc ls -la"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTemplates(t *testing.T) {
	p, err := (Request{Messages: messages, Template: CrossTurn, Previous: "Earlier they set up the repo."}).Render()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.User, "Previous summary: Earlier they set up the repo.") || p.MaxTokens != 500 {
		t.Errorf("cross-turn with a previous summary: %q, max %d", p.User, p.MaxTokens)
	}
	p, _ = (Request{Messages: messages, Template: TwoTier, MaxTokens: 77}).Render()
	if !strings.Contains(p.User, "6. Important Context") || p.MaxTokens != 77 {
		t.Errorf("two-tier: max %d, prompt %q", p.MaxTokens, p.User)
	}
	// A template without a with-previous form gets the previous summary first.
	p, _ = (Request{Messages: messages, Template: AIDF, Previous: "old"}).Render()
	if !strings.Contains(p.User, "Previous summary: old\n\n[User]") {
		t.Errorf("aidf with previous: %q", p.User)
	}
	tm := &Template{Name: "own", Prompt: "Sum up:\n{{.Conversation}}", MaxTokens: AIDF.MaxTokens}
	p, _ = (Request{Messages: messages, Template: tm}).Render()
	if !strings.HasPrefix(p.User, "Sum up:\n[User] ") || p.MaxTokens != 1024 {
		t.Errorf("own template: %q, %d tokens", p.User, p.MaxTokens)
	}
	if _, err := (Request{Messages: messages, Template: &Template{Name: "broken", Prompt: "{{.Conversation"}}).Render(); err == nil {
		t.Error("a template that does not parse was rendered")
	}
}

// fitWhole is the mock's fit as it was: the excerpt cut from every word
// of the whole conversation.
func fitWhole(text, conversation string, n int) string {
	out, _ := fitCounted(text, func() string { return strings.Join(strings.Fields(conversation), " ") }, n)
	return out
}

// TestFitTokensFirstWords: padding from the conversation's first words
// gives the summary padding from all of them gives, on corpus sessions of
// every format, for short and long texts and budgets.
func TestFitTokensFirstWords(t *testing.T) {
	cases := 0
	for _, name := range []string{"spotter/tool_heavy.jsonl", "spotter/subagent.jsonl",
		"mini-swe-agent/output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json",
		"OpenHands/tests/runtime/trajs/basic_gui_mode.json"} {
		msgs := corpusMessages(t, name)
		for _, k := range []int{1, 3, 10, len(msgs)} {
			k = min(k, len(msgs))
			for _, n := range []int{5, 40, 200, 1024} {
				for _, text := range []string{"", "[mock summary 1a2b] files: /repo/a.go", strings.Repeat("word ", 300)} {
					want := fitWhole(text, conversation.Text(msgs[:k]), n)
					got, c := fitCounted(text, func() string { return firstWords(msgs[:k], n+1) }, n)
					if got != want {
						t.Fatalf("%s, %d messages, %d tokens, text %.20q:\ngot  %.200q\nwant %.200q", name, k, n, text, got, want)
					}
					if c != counter().Count(got) {
						t.Fatalf("%s, %d messages, %d tokens: fit counted %d, its text counts %d", name, k, n, c, counter().Count(got))
					}
					cases++
				}
			}
		}
	}
	t.Logf("%d cases", cases)
}

// cutSearch is cutTokens by binary search alone.
func cutSearch(text string, n int) string {
	if n <= 0 || counter().Count(text) <= n {
		return map[bool]string{true: "", false: text}[n <= 0]
	}
	words := strings.Fields(text)
	lo, hi := 0, len(words)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if counter().Count(strings.Join(words[:mid], " ")) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.Join(words[:lo], " ")
}

// TestCutTokensSearch holds cutTokens equal to the binary search over
// the words, on the conversations of corpus sessions, for every budget
// up to a few hundred tokens.
func TestCutTokensSearch(t *testing.T) {
	for _, name := range []string{"spotter/tool_heavy.jsonl", "OpenHands/tests/runtime/trajs/basic_gui_mode.json",
		"mini-swe-agent/output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json"} {
		text := conversation.Text(corpusMessages(t, name))
		text = text[:min(len(text), 4000)]
		for n := -1; n < 400; n += 7 {
			got, c := cutCounted(text, counter().Count(text), n)
			if want := cutSearch(text, n); got != want {
				t.Fatalf("%s, %d tokens:\ngot  %.200q\nwant %.200q", name, n, got, want)
			}
			if c != counter().Count(got) {
				t.Fatalf("%s, %d tokens: cut counted %d, its text counts %d", name, n, c, counter().Count(got))
			}
		}
	}
}

// TestFirstWordsFields holds firstWords equal to the first k of
// strings.Fields of each message's conversation in turn, on corpus
// sessions and on text with non-ASCII spaces and invalid UTF-8.
func TestFirstWordsFields(t *testing.T) {
	odd := []transcript.Message{{Role: transcript.RoleUser, Blocks: []transcript.Block{
		{Type: transcript.BlockText, Text: "a\u00a0b\u2003c \xff\xfed\u3000é  ü\n\tend"},
		{Type: transcript.BlockToolUse, Name: "Bash", Input: []byte(`{"command":"ls  -la"}`)}}},
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "next"}}}}
	sets := [][]transcript.Message{odd}
	for _, name := range []string{"spotter/tool_heavy.jsonl", "OpenHands/tests/runtime/trajs/basic_gui_mode.json"} {
		sets = append(sets, corpusMessages(t, name))
	}
	for _, msgs := range sets {
		var all []string
		for i := range msgs {
			all = append(all, strings.Fields(conversation.Text(msgs[i:i+1]))...)
		}
		for _, k := range []int{0, 1, 2, 5, 9, 10, 11, 200, len(all), len(all) + 1} {
			if got, want := firstWords(msgs, k), strings.Join(all[:min(k, len(all))], " "); got != want {
				t.Fatalf("%d words:\ngot  %.200q\nwant %.200q", k, got, want)
			}
		}
	}
}

// TestSystemCountsBounded: the counts of system prompts kept stay at
// maxSystemCounts however many prompts a process measures, and a prompt
// past the bound is still counted right.
func TestSystemCountsBounded(t *testing.T) {
	for i := range 3 * maxSystemCounts {
		s := fmt.Sprintf("You summarize conversations, variant %d.", i)
		if got, want := systemTokens(s), counter().Count(s); got != want {
			t.Fatalf("prompt %d: %d tokens, want %d", i, got, want)
		}
	}
	kept := 0
	systemCounts.Range(func(any, any) bool { kept++; return true })
	if kept > maxSystemCounts || int(systemKept.Load()) != kept {
		t.Errorf("%d prompts kept (counter %d), at most %d", kept, systemKept.Load(), maxSystemCounts)
	}
}
