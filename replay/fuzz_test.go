package replay

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// tinySpecs replay every registered policy with thresholds small enough
// to act on a fuzzer's inputs of a few hundred bytes.
var tinySpecs = []string{
	"none", "recorded", "agent", "aidf:max_messages=2,preserve_last_n=1", "aidf:max_messages=2,preserve_last_n=0,summarize_on_trim=true,summarize_every=1,reading=seed",
	"aidf:max_messages=1,pair_safe=true", "two-tier:basic_threshold=5,ai_threshold=10,keep_last=1,min_summarizable=0",
	"prune:preserve_first_n=0,preserve_last_n=0,max_chars=1,truncate_to=0", "cross-turn:last_n=1,last_n_with_summary=0,summarize_after=0,resummarize_threshold=1",
	"compress:max_tokens=20", "gemini-cli:token_limit=40", "opencode:context_limit=60,max_output=10",
	"opencode:context_limit=60,max_output=10,prune=true,prune_protect=1,prune_minimum=1", "codex:context_window=60",
	"langchain-trim:max_tokens=10", "langchain-trim:max_tokens=10,start_on=human,include_system=true",
	"claude-code:context_window=60", "claude-code:context_window=60,version=2.0.21",
	"langchain-summarization:trigger_tokens=10,keep_tokens=2", "langchain-summarization:trigger_messages=2,keep_messages=1",
	"langchain-clear-tool-uses:trigger_tokens=5,keep_messages=0,clear_tool_inputs=true",
	"anthropic-clear-tool-uses:trigger=5,keep=0,clear_tool_inputs=true", "anthropic-clear-thinking:keep=0",
	"anthropic-compaction:trigger=50000", "vercel-prune", "vercel-prune:tool_calls=all,tools=Bash|x,empty_messages=keep",
	"openai-trim:recent_turns=1,max_output_chars=1,preview_chars=0", "openai-compaction:compact_threshold=60",
	"cline:max_input_tokens=60",
}

// labeled parses specs, failing tb on a spec no policy takes.
func labeled(tb testing.TB, specs []string) []window.Labeled {
	tb.Helper()
	ps, err := window.ParseLabeled(specs)
	if err != nil {
		tb.Fatal(err)
	}
	return ps
}

// FuzzReplayReaders replays what every reader makes of an input, read
// leniently, under every policy: a transcript a reader returns is one a
// replay must take, whatever it holds (empty summaries, messages or
// blocks, compactions anywhere), without a panic. Its seeds are the
// files of transcript/testdata.
func FuzzReplayReaders(f *testing.F) {
	policies := labeled(f, tinySpecs)
	seen := map[string]bool{}
	for _, p := range policies {
		seen[p.Policy.Name()] = true
	}
	for _, s := range window.Specs() {
		if name := s.Name; !seen[name] {
			f.Fatalf("policy %s is not fuzzed: add it to tinySpecs", name)
		}
	}
	err := filepath.WalkDir("../transcript/testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(filepath.Base(path), ".json") {
			return err
		}
		raw, err := os.ReadFile(path)
		f.Add(raw)
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range append([]transcript.Format{""}, transcript.Formats()...) {
			ts, err := transcript.Parse(data, "fuzz", transcript.Options{Format: format, Lenient: true})
			if err != nil {
				continue
			}
			for _, tr := range ts {
				for _, p := range policies {
					if _, err := Replay(context.Background(), tr, p.Policy, Options{Summarizer: &summarize.Mock{}}); err != nil {
						t.Fatalf("%s, %s read as %s: %v", p.Label, tr.ID, tr.Format, err)
					}
				}
			}
		}
	})
}

// TestEmptySummaryReplays: a compaction whose summary holds no text (a
// Codex rollout's encrypted compaction with no replacement history
// recorded, codex-tui 0.122) is replayed, retention measured, by every
// policy, as are summaries with no blocks and no summary at all.
func TestEmptySummaryReplays(t *testing.T) {
	policies := labeled(t, append(tinySpecs, specs...))
	for _, summary := range []func(*transcript.Compaction){
		func(c *transcript.Compaction) { c.Summary.Blocks = []transcript.Block{{Type: transcript.BlockText}} },
		func(c *transcript.Compaction) { c.Summary.Blocks = nil },
		func(c *transcript.Compaction) { c.Summary = nil },
	} {
		tr := readOne(t, "../transcript/testdata/codex-encrypted-compaction.jsonl")
		if len(tr.Compactions) != 1 {
			t.Fatalf("%d compactions, want 1", len(tr.Compactions))
		}
		summary(&tr.Compactions[0])
		for _, p := range policies {
			run, err := Replay(context.Background(), tr, p.Policy, Options{Summarizer: &summarize.Mock{}})
			if err != nil {
				t.Fatalf("%s: %v", p.Label, err)
			}
			if len(run.Steps) != tr.Calls {
				t.Errorf("%s: %d steps of %d calls", p.Label, len(run.Steps), tr.Calls)
			}
		}
	}
}

// readOne reads the one transcript of a file.
func readOne(t *testing.T, name string) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile(name, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 {
		t.Fatalf("%s: %d transcripts, want 1", name, len(ts))
	}
	return ts[0]
}

// TestRollbackEveryPolicy: after the user undid a turn, no policy sends
// that turn's messages, as Codex did not; none and recorded sent them
// before it, and send every other message after it, with no violation.
func TestRollbackEveryPolicy(t *testing.T) {
	tr := readOne(t, "../transcript/testdata/codex-rollback.jsonl")
	rb := tr.Rollbacks[0]
	for _, p := range labeled(t, append(append([]string{"none", "recorded"}, tinySpecs...), specs...)) {
		run, err := Replay(context.Background(), tr, p.Policy, Options{Summarizer: &summarize.Mock{}})
		if err != nil {
			t.Fatalf("%s: %v", p.Label, err)
		}
		before, after := 0, 0
		for _, s := range run.Steps {
			undone := 0
			for _, id := range s.Context {
				if i, err := strconv.Atoi(strings.TrimPrefix(id, "m")); err == nil && rb.Drops(i) {
					undone++
				}
			}
			switch {
			case callMessage(tr, s.Step) < rb.Index:
				if undone > 0 {
					before++
				}
			case undone > 0:
				t.Errorf("%s: call %d, after the rollback, sent %d undone messages", p.Label, s.Step, undone)
			default:
				after++
			}
		}
		if p.Label != "none" && p.Label != "recorded" {
			continue
		}
		if len(run.Violations) > 0 {
			t.Errorf("%s: violations %+v", p.Label, run.Violations)
		}
		if before == 0 || after == 0 {
			t.Errorf("%s: %d calls sent the turn before it was undone, %d calls after it", p.Label, before, after)
		}
		last := run.Steps[len(run.Steps)-1]
		if want := callMessage(tr, last.Step) - (rb.Index - rb.From); p.Label == "none" && len(last.Context) != want {
			t.Errorf("none: last call sent %d messages, want %d (all before it but the %d undone)", len(last.Context), want, rb.Index-rb.From)
		}
	}
}

// callMessage returns the index of the assistant message of call k.
func callMessage(tr *transcript.Transcript, k int) int {
	for i := range tr.Messages {
		if tr.Messages[i].Role == transcript.RoleAssistant {
			if k == 0 {
				return i
			}
			k--
		}
	}
	return -1
}
