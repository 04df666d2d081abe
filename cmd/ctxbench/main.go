// Command ctxbench replays recorded LLM-agent transcripts through
// context-window policies and measures what each would have sent, cost and
// kept.
//
// Usage:
//
//	ctxbench inspect  [--json] [--lenient] [--format F] [PATH...]
//	ctxbench convert  --to openai-chat|anthropic [-o FILE] [--lenient] [--format F] PATH...
//	ctxbench gen      [--calls N] [--seed S] [--tool-ratio R] [--non-ascii R] [--to F] [-o FILE]
//
// A PATH is a file, a directory (walked; every file whose content is a
// known transcript format is read, the others are listed as skipped) or -
// for standard input. The format of each file is detected from its
// content: claude-code (Claude Code sessions and Agent SDK stream-json
// logs), codex (Codex rollouts and `codex exec --json` streams),
// openai-chat, anthropic, gemini-cli and openhands. --format overrides the
// detection.
//
// Reading is strict: the first malformed record stops it with
// "ctxbench: error: FILE:LINE: what is wrong" and exit status 2. --lenient
// skips malformed records instead, and says how many it skipped and where.
//
// # inspect
//
// Inspect prints, for each transcript, its messages by role, the API calls
// it records, tool uses and results, thinking blocks, characters, the usage
// the API reported, compactions and the non-message events it skipped.
// With no PATH it inspects the sample transcripts embedded in ctxbench:
//
//	$ ctxbench inspect
//	$ ctxbench inspect --json ~/.claude/projects/my-project/
//
// --json prints one JSON document:
//
//	{"transcripts": [{"file": …, "id": …, "format": …, "messages": …,
//	  "roles": {…}, "calls": …, "tool_uses": …, "tool_results": …,
//	  "usage": {"input": …, "cache_read": …, "cache_write": …, "output": …},
//	  "compactions": …, "skipped": {…}, …}],
//	 "skipped_files": [{"file": …, "reason": …}]}
//
// Usage means the same for every format: input is the uncached prompt
// tokens, cache_read and cache_write the prompt tokens read from and
// written to the provider's cache, output the generated tokens.
//
// # convert
//
// Convert writes transcripts as JSON Lines in openai-chat or anthropic
// form, one conversation per line, recorded usage included; reading the
// output back gives the same messages.
//
//	$ ctxbench convert --to openai-chat session.jsonl > session.openai.jsonl
//
// # gen
//
// Gen writes a deterministic synthetic session (claude-code or openai-chat
// JSON Lines): the same options and seed give the same bytes.
//
//	$ ctxbench gen --calls 2000 --seed 7 -o long.jsonl
//
// Exit status: 0 all good; 1 a verdict failed; 2 a usage or input error.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

// CTXBENCH_CPUPROFILE=FILE writes a CPU profile of the run to FILE, and
// CTXBENCH_MEMPROFILE=FILE an allocation profile at its end (go tool
// pprof reads both; -sample_index=alloc_space for what was allocated);
// docs/performance.md was made with them. Ctrl-C (or SIGTERM) cancels
// the run: what it was writing is not left half-written.
func main() {
	os.Exit(mainCode())
}

func mainCode() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cpu, mem := os.Getenv("CTXBENCH_CPUPROFILE"), os.Getenv("CTXBENCH_MEMPROFILE")
	stopProfile := func() error { return nil }
	if cpu != "" {
		var err error
		if stopProfile, err = startProfile(cpu); err != nil {
			fmt.Fprintln(os.Stderr, "ctxbench: error:", err)
			return exitError
		}
	}
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	err := stopProfile()
	if mem != "" && err == nil {
		err = writeAllocs(mem)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ctxbench: error:", err)
		code = max(code, exitError)
	}
	return code
}
func startProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error { pprof.StopCPUProfile(); return f.Close() }, nil
}

// writeAllocs writes the allocation profile to path.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
