package window

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/internal/codexcut"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/codex"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// Codex is Rust: these table tests hold the codex policy to the lines of
// openai/codex it models, quoted in each case (codex-rs/core/src/
// compact.rs and event_mapping.rs at e06dd0e5; truncate.rs of the same
// TruncationPolicy era, whose own tests give the truncation vectors).

// TestCodexTruncate: truncate_text(s, TruncationPolicy::Tokens(n)) —
//
//	if max_tokens > 0 && byte_len <= approx_bytes_for_tokens(max_tokens) { return (s.to_string(), None); }
//	let (left_budget, right_budget) = split_budget(max_bytes);
//	removed_units_for_source(policy, total_bytes.saturating_sub(max_bytes), removed_chars)
//	TruncationPolicy::Tokens(_) => format!("…{removed_count} tokens truncated…"),
//
// with the vectors of truncate.rs's tests.
func TestCodexTruncate(t *testing.T) {
	for _, c := range []struct {
		in     string
		tokens int
		want   string
	}{
		{"this is an example of a long output that should be truncated", 5, "this is an…10 tokens truncated… truncated"},
		{"this is an example of a long output that should be truncated\nalso some other line", 10, "this is an example o…11 tokens truncated…also some other line"},
		{"😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n", 8, "😀😀😀😀…8 tokens truncated… line with text\n"},
		{"abcdef", 0, "…2 tokens truncated…"},
		{"example output", 1, "ex…3 tokens truncated…ut"},
		{"example output", 10, "example output"},
		{"short output", 100, "short output"},
		{"", 3, ""},
	} {
		if got := codexcut.Tokens(c.in, c.tokens); got != c.want {
			t.Errorf("truncate_text(%q, Tokens(%d)) = %q, want %q", c.in, c.tokens, got, c.want)
		}
	}
}

// TestCodexCompaction holds the replacement history to
// build_compacted_history_with_limit and run_compact_task_inner:
//
//	for message in user_messages.iter().rev() { if remaining == 0 { break; } … if tokens <= remaining { … } else { let truncated = truncate_text(message, TruncationPolicy::Tokens(remaining)); … break; } }
//	selected_messages.reverse();
//	let summary_text = format!("{SUMMARY_PREFIX}\n{summary_suffix}");
//	InitialContextInjection::DoNotInject (pre-turn): the next regular turn will fully reinject initial context
//	InitialContextInjection::BeforeLastUserMessage (mid-turn): insert_initial_context_before_last_real_user_or_summary
func TestCodexCompaction(t *testing.T) {
	tr := policytest.Msgs(
		transcript.Message{Role: transcript.RoleSystem, Blocks: []transcript.Block{policytest.Text("You are Codex.")}},
		policytest.User("<environment_context>\n<cwd>/repo</cwd>\n</environment_context>"),
		policytest.User("fix the build"), policytest.CallTool("a"), policytest.Result("a", strings.Repeat("log ", 5000)), policytest.Asst("fixed"),
		policytest.User("<user_shell_command>make</user_shell_command>"),
		policytest.User("now add tests"), policytest.CallTool("b"), policytest.Result("b", "ok"))
	run := func(spec string, turn int) Step {
		t.Helper()
		step, err := mustPolicy(t, spec).Apply(context.Background(), &Env{Transcript: tr, Summarizer: &policytest.Recorder{}, Turn: turn}, &State{}, policytest.Items(tr, 10))
		if err != nil {
			t.Fatal(err)
		}
		return step
	}
	for _, c := range []struct {
		name string
		spec string
		turn int
		want []string
	}{
		// Mid-turn (the call's new messages are a tool result): the
		// initial context before the last real user message, the summary
		// last; the shell command record is not a real user message.
		{"mid-turn", "codex:context_window=1000", 1, []string{"m2", "s2", "s3", "m7", "s1"}},
		// A 4-token budget: the newest message fits exactly, nothing more.
		{"budget", "codex:context_window=1000,user_message_tokens=4", 1, []string{"s2", "s3", "m7", "s1"}},
		// Pre-turn (the call's new messages hold a real user message): the
		// replacement has no initial context; the turn re-injects it.
		{"pre-turn", "codex:context_window=1000", 4, []string{"m2", "s1", "s2", "s3", "m6", "m7", "m8", "m9"}},
	} {
		step := run(c.spec, c.turn)
		if diff := cmp.Diff(c.want, ids(step.History)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
		// The initial context, built anew: s2 and s3 hold m0's and m1's.
		for _, it := range step.History {
			if it.ID == "s2" && it.Msg.Text() != tr.Messages[0].Text() || it.ID == "s3" && it.Msg.Text() != tr.Messages[1].Text() {
				t.Errorf("%s: %s holds %q", c.name, it.ID, it.Msg.Text())
			}
		}
	}
	step := run("codex:context_window=1000", 1)
	s := step.History[len(step.History)-1].Msg
	if s.Role != transcript.RoleUser || !strings.HasPrefix(s.Text(), codex.SummaryPrefix+"\n") || !strings.Contains(codex.SummaryPrefix, "summary to  assist") {
		t.Errorf("summary: %v %q", s.Role, s.Text()[:60])
	}
	// An overlong user message is cut head and tail
	// (build_token_limited_compacted_history_truncates_overlong_user_messages:
	// max_tokens 16, "word " × 200).
	big := policytest.Msgs(policytest.User(strings.Repeat("word ", 200)), policytest.Asst("ok"))
	step, err := mustPolicy(t, "codex:context_window=10,user_message_tokens=16").Apply(context.Background(), &Env{Transcript: big, Summarizer: &policytest.Recorder{}}, &State{}, policytest.Items(big, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(step.History) != 2 || !strings.Contains(step.History[0].Msg.Text(), "tokens truncated") || strings.Contains(step.History[0].Msg.Text(), strings.Repeat("word ", 200)) ||
		len(step.Truncated) != 1 {
		t.Errorf("overlong message: %v %q", ids(step.History), step.History[0].Msg.Text())
	}
}
