package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// tinySpecs replay every registered policy with thresholds small enough
// to act on a fuzzer's inputs of a few hundred bytes.
var tinySpecs = []string{
	"none", "recorded", "aidf:max_messages=2,preserve_last_n=1", "aidf:max_messages=2,preserve_last_n=0,summarize_on_trim=true,summarize_every=1",
	"aidf:max_messages=1,pair_safe=true", "two-tier:basic_threshold=5,ai_threshold=10,keep_last=1,min_summarizable=0",
	"prune:preserve_first_n=0,preserve_last_n=0,max_chars=1,truncate_to=0", "cross-turn:last_n=1,last_n_with_summary=0,summarize_after=0,resummarize_threshold=1",
	"compress:max_tokens=20", "gemini-cli:token_limit=40", "opencode:context_limit=60,max_output=10",
	"opencode:context_limit=60,max_output=10,prune=true,prune_protect=1,prune_minimum=1", "codex:context_window=60",
	"langchain-trim:max_tokens=10", "langchain-trim:max_tokens=10,start_on=human,include_system=true",
	"claude-code:context_window=60", "claude-code:context_window=60,version=2.0.21",
	"langchain-summarization:trigger_tokens=10,keep_tokens=2", "langchain-summarization:trigger_messages=2,keep_messages=1",
	"langchain-clear-tool-uses:trigger_tokens=5,keep_messages=0,clear_tool_inputs=true",
	"anthropic-clear-tool-uses:trigger=5,keep=0,clear_tool_inputs=true", "anthropic-clear-thinking:keep=0",
	"anthropic-compaction:trigger=50000",
}

// FuzzReplayReaders replays what every reader makes of an input, read
// leniently, under every policy: a transcript a reader returns is one a
// replay must take, whatever it holds (empty summaries, messages or
// blocks, compactions anywhere), without a panic.
func FuzzReplayReaders(f *testing.F) {
	var policies []window.Policy
	for _, spec := range tinySpecs {
		p, err := window.Parse(spec)
		if err != nil {
			f.Fatal(err)
		}
		policies = append(policies, p)
	}
	seen := map[string]bool{}
	for _, p := range policies {
		seen[p.Name()] = true
	}
	for _, name := range window.Names() {
		if !seen[name] {
			f.Fatalf("policy %s is not fuzzed: add it to tinySpecs", name)
		}
	}
	files, _ := filepath.Glob("../transcript/testdata/*.json*")
	for _, name := range files {
		if raw, err := os.ReadFile(name); err == nil {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range append([]transcript.Format{""}, transcript.Formats()...) {
			ts, err := transcript.Parse(data, "fuzz", transcript.Options{Format: format, Lenient: true})
			if err != nil {
				continue
			}
			for _, tr := range ts {
				for _, p := range policies {
					if _, err := Replay(context.Background(), tr, p, Options{Summarizer: &summarize.Mock{}}); err != nil {
						t.Fatalf("%s, %s read as %s: %v", window.Format(p), tr.ID, tr.Format, err)
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
	read := func() *transcript.Transcript {
		ts, err := transcript.ReadFile("../transcript/testdata/codex-encrypted-compaction.jsonl", transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) != 1 || len(ts[0].Compactions) != 1 {
			t.Fatalf("want one transcript with one compaction, got %d", len(ts))
		}
		return ts[0]
	}
	for _, summary := range []func(*transcript.Compaction){
		func(c *transcript.Compaction) { c.Summary.Blocks = []transcript.Block{{Type: transcript.BlockText}} },
		func(c *transcript.Compaction) { c.Summary.Blocks = nil },
		func(c *transcript.Compaction) { c.Summary = nil },
	} {
		tr := read()
		summary(&tr.Compactions[0])
		for _, spec := range append(tinySpecs, specs...) {
			p, err := window.Parse(spec)
			if err != nil {
				t.Fatal(err)
			}
			run, err := Replay(context.Background(), tr, p, Options{Summarizer: &summarize.Mock{}})
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			if len(run.Steps) != tr.Calls {
				t.Errorf("%s: %d steps of %d calls", spec, len(run.Steps), tr.Calls)
			}
		}
	}
}

// TestRecordedRollback: what Codex sent after the user undid a turn
// holds none of that turn's messages; before it, it held them.
func TestRecordedRollback(t *testing.T) {
	ts, err := transcript.ReadFile("../transcript/testdata/codex-rollback.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	rb := tr.Rollbacks[0]
	p, err := window.Parse("recorded")
	if err != nil {
		t.Fatal(err)
	}
	run, err := Replay(context.Background(), tr, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Violations) > 0 {
		t.Errorf("violations %+v", run.Violations)
	}
	undone := map[string]bool{}
	for i := rb.From; i < rb.Index; i++ {
		undone[transcript.MessageID(i)] = true
	}
	before, after := 0, 0
	for _, s := range run.Steps {
		n := 0
		for _, id := range s.Context {
			if undone[id] {
				n++
			}
		}
		if s.Messages > 0 && len(s.Context) > 0 && s.Step >= 0 {
			// The call's assistant message follows its context.
			if next := callMessage(tr, s.Step); next > rb.Index && n > 0 {
				t.Errorf("call %d (message %d) sent %d undone messages", s.Step, next, n)
			} else if next > rb.Index {
				after++
			} else if n > 0 {
				before++
			}
		}
	}
	if before == 0 || after == 0 {
		t.Errorf("%d calls sent the turn before it was undone, %d calls after it", before, after)
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
