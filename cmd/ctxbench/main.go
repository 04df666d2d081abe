// Command ctxbench replays recorded LLM-agent transcripts through
// context-window policies and measures what each would have sent, cost and
// kept.
//
// Usage:
//
//	ctxbench inspect   [--json] [--lenient] [--format F] [PATH...]
//	ctxbench convert   --to openai-chat|anthropic [-o FILE] PATH...
//	ctxbench gen       [--calls N] [--seed S] [--tool-ratio R] [--non-ascii R] [--to F] [-o FILE]
//	ctxbench tokens    [-e ENCODING]... [--json] [FILE|-]...
//	ctxbench estimate  [--json] [--plot DIR] [PATH...]
//	ctxbench summarize [--summarizer SPEC] [--template T] PATH...
//	ctxbench policies  [--json]
//	ctxbench replay    [--policy SPEC]... [--config FILE] [-e E]... [--trace FILE] [--prices FILE] [--pricing-model M] [--json] [--parquet DIR] [--jsonl DIR] [PATH...]
//	ctxbench sweep     --policy SPEC --grid KEY=LO:HI:STEP|KEY=V1,V2 [--grid ...] [--prices FILE] [--pricing-model M] [--no-cost] [--csv FILE] [--json] [PATH...]
//	ctxbench cost      [--pricing-model M] [--prices FILE] [--cache-sim S] [--sessions-per-day N] [--since DAY] [--until DAY] [--policy SPEC]... [--parquet DIR] [--jsonl DIR] [PATH...]
//	ctxbench report    [--out DIR] [--policy SPEC]... [--prices FILE] [--pricing-model M] [--parquet DIR] [--jsonl DIR] [PATH...]
//	ctxbench check     [--config FILE] [--baseline FILE] [--update [--accept]] [--strict] [--format text|github] [--junit FILE] [--summary FILE] [--shard K/N --partial FILE | --merge FILE...]
//
// A PATH is a file, a directory (walked; every file whose content is a
// known transcript format is read, the others are skipped with a warning)
// or - for standard input; with no PATH, every command that reads
// transcripts reads Claude Code's sessions (~/.claude/projects, or
// $CLAUDE_CONFIG_DIR/projects) and says so; when none is found it says
// so and exits 2. --samples reads the sample transcripts embedded in
// ctxbench instead.
// The format of each file is
// detected from its content: claude-code (Claude Code sessions and Agent
// SDK stream-json logs), codex (Codex rollouts and `codex exec --json`
// streams), openai-chat, anthropic, gemini-cli, openhands, otel
// (OpenTelemetry GenAI traces), atif (Harbor's Agent Trajectory
// Interchange Format), langfuse (Langfuse observation exports), opencode
// (opencode.db, `opencode export` and its server's messages) and copilot
// (GitHub Copilot CLI's session-state/*/events.jsonl).
// --format overrides the detection.
//
// Reading is strict: the first malformed record stops it with
// "ctxbench: error: FILE:LINE: what is wrong" and exit status 2. --lenient
// skips malformed records instead, and says how many it skipped and where.
//
// A policy SPEC is NAME or NAME:key=value,key=value, for example
// aidf:max_messages=30,preserve_last_n=8; `ctxbench policies` lists them.
//
// Warnings (a transcript not priced, a file skipped) go to standard error
// as "ctxbench: warning: …", with a "ctxbench: hint: …" that says which
// flag mends it. Ctrl-C stops a run; the files it was writing are not
// left half-written.
//
// # inspect
//
// Inspect prints, for each transcript, its messages by role, the API calls
// it records, tool uses and results, thinking blocks, characters, the usage
// the API reported, compactions and the non-message events it skipped.
// --json prints one JSON document ({"transcripts": […], "skipped_files":
// […]}). Usage means the same for every format: input is the uncached
// prompt tokens, cache_read and cache_write the prompt tokens read from and
// written to the provider's cache, output the generated tokens. A
// subagent (Claude Code's subagents/*.jsonl, Agent SDK stream-json lines
// with a parent_tool_use_id, inline sidechains) is a transcript of its
// own; for a folder, inspect totals each session with its subagents
// beneath, and counts once a call a resumed session copied.
//
//	$ ctxbench inspect session.jsonl
//	$ ctxbench inspect --json ~/.claude/projects/my-project/
//
// # convert
//
// Convert writes transcripts as JSON Lines in openai-chat, anthropic or
// otel form (OTLP JSON spans following the OpenTelemetry GenAI
// conventions), one conversation per line, recorded usage included;
// reading the output back gives the same messages.
//
//	$ ctxbench convert --to openai-chat -o session.openai.jsonl session.jsonl
//
// # probes
//
// Probes lists questions about each history with the answers the
// recording holds (artifact, recall, decision, continuation); with
// --policy, it asks those about the messages the policy stopped sending,
// at the call it stopped, and keeps each whose answer's keys the context
// sent still holds (the exact judge), with the share kept per kind.
// --judge llm also has a model answer each probe, paraphrased, from that
// context alone and grade the answer on six 0-5 dimensions, with a
// question per call no context can answer.
//
//	$ ctxbench probes --policy aidf:max_messages=30 session.jsonl
//
// # gen
//
// Gen writes a deterministic synthetic session (claude-code or openai-chat
// JSON Lines): the same options and seed give the same bytes.
//
//	$ ctxbench gen --calls 2000 --seed 7 -o long.jsonl
//
// # tokens
//
// Tokens counts the tokens of text: one number for one input (standard
// input by default), a table for several. cl100k_base (the default) and
// o200k_base are exact, equal to OpenAI's tiktoken; chars4 and the gemini
// estimators are the heuristics agents use. echo's newline is a token:
//
//	$ echo "hello world" | ctxbench tokens
//	3
//
// # estimate
//
// Estimate measures how far the heuristics (chars/4, Gemini CLI's) are
// from exact counts, per message, by block kind and by script, and every
// estimator against the prompt growth the API billed between calls;
// --plot DIR draws it.
//
//	$ ctxbench estimate --plot plots session.jsonl
//
// # summarize
//
// Summarize summarizes each transcript's messages with a seed system's
// prompt (--template aidf, two-tier, cross-turn or generic) and says what
// it cost. --summarizer SPEC names the provider, as a policy SPEC names a
// policy: mock (the default: deterministic and offline), heuristic,
// anthropic or openai, with key=value settings after a colon (model,
// base_url, cache_dir, offline, max_usd, timeout, retries,
// legacy_max_tokens, allow_failures); every command that summarizes
// takes the same flag. Keys come from the environment only
// (ANTHROPIC_API_KEY, OPENAI_API_KEY), and so may base URLs
// (ANTHROPIC_BASE_URL, OPENAI_BASE_URL) when base_url is not given.
// Responses are cached on disk; offline=true serves from the cache alone,
// max_usd caps the spending.
//
//	$ ctxbench summarize --template aidf session.jsonl
//	$ ANTHROPIC_API_KEY=… ctxbench summarize --summarizer anthropic:max_usd=1 --template aidf session.jsonl
//
// # policies
//
// Policies lists every context-window policy with its parameters,
// defaults, valid values and the source it models.
//
//	$ ctxbench policies
//
// # replay
//
// Replay replays each transcript call by call under each policy (default:
// the set report replays, which ctxbench replay --help names, among them
// agent, each agent's own policy on its own files) and prints the peak messages and
// tokens sent, the input tokens sent and their share of sending
// everything, evictions, truncations, summaries, retention and invariant
// violations (exit status 1 when one breaks). --trace FILE writes one JSON
// object per call, priced as ctxbench cost prices it, each call at its
// own model or --pricing-model's (go doc
// github.com/ctxbench/ctxbench/trace.WriteTrace). A policy's window
// left at 0 (gemini-cli, codex, opencode, compress) is the context window
// of the transcript's model in the price table. --config reads
// transcripts, policies, estimators and provider from a ctxbench.yaml, and
// flags given on the command line win over it.
//
//	$ ctxbench replay --policy aidf:max_messages=30,preserve_last_n=8 --policy compress:max_tokens=60000 session.jsonl
//	$ ctxbench replay --trace trace.jsonl --policy aidf:max_messages=10,preserve_last_n=4 session.jsonl
//
// # sweep
//
// Sweep replays every combination of a grid of parameters over every
// transcript, in parallel; the result does not depend on the number of
// workers. Combinations the policy rejects are listed as skipped. The
// baselines (none, recorded, the agent's own policy) are rows beside the
// points, and the table ends in the recommendation: the cheapest setting
// that keeps --min-probe-score of the probes with no invariant broken, or
// none and the closest cheaper point with what it lacks.
//
//	$ ctxbench sweep --policy aidf:pair_safe=true --grid max_messages=10:40:10 --grid summarize_on_trim=false,true --csv sweep.csv session.jsonl
//
// # cost
//
// Cost prices every call each policy would have made, with the provider's
// prompt cache simulated, at the model that made the call
// (--pricing-model M prices every call as M, a what-if; --prices takes
// another table; --list-models lists the embedded one), sets the bill of
// the recorded usage beside it and cross-checks the recorded policy's
// simulation against it. It then totals the bill by session, subagents
// beneath, by model and by day (UTC); --since and --until keep the calls
// of those days. --sessions-per-day N projects the cost per day and per 30 days.
// A model the table does not know is "not priced", never priced as
// another. --shard K/N --partial FILE prices a shard of the files and
// --merge FILE... writes what one run over all of them writes (report
// splits the same way).
//
//	$ ctxbench cost --sessions-per-day 200 --policy none --policy aidf:max_messages=30 ~/.claude/projects/my-project/
//	$ ctxbench cost --since 2026-02-01 --policy recorded
//	$ ctxbench cost --list-models
//
// # report
//
// Report replays, prices and plots every transcript under every policy and
// writes the tables, CSVs, JSON and plots into one folder with an index
// page (default ctxbench-report; an existing folder is replaced only if
// ctxbench made it and it holds none of the inputs).
//
//	$ ctxbench report --out report session.jsonl
//
// # check
//
// Check regression-tests a suite (ctxbench.yaml: transcripts, policies,
// budgets, tolerances) in CI: each transcript × policy is compared with
// the checked-in baseline, metric by metric, worst first; it fails, with
// exit status 1, when a budget is exceeded, a metric is worse beyond its
// tolerance or an invariant breaks more often than the baseline records.
// Improvements pass (--strict fails them). Only --update writes the
// baseline, and on a failing suite only with --accept. --shard K/N
// --partial FILE runs a part of the suite; --merge FILE... checks the
// parts as one run.
//
//	$ ctxbench check --config ctxbench.yaml --update --accept
//	$ ctxbench check --config ctxbench.yaml --format github --junit ctxbench-junit.xml
//	$ ctxbench check --config ctxbench.yaml --shard 1/2 --partial part-1.json
//
// Exit status: 0 all good; 1 a verdict failed (an invariant violated, a
// regression against the baseline); 2 a usage or input error, or an
// interrupted run.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	// opencode's SQLite databases are read with the reader this links.
	_ "github.com/ctxbench/ctxbench/transcript/opencodedb"
)

// stopGrace is how long a run may take to stop once interrupted.
const stopGrace = 5 * time.Second

// CTXBENCH_CPUPROFILE=FILE writes a CPU profile of the run to FILE, and
// CTXBENCH_MEMPROFILE=FILE an allocation profile at its end (go tool
// pprof reads both; -sample_index=alloc_space for what was allocated);
// docs/performance.md was made with them. Ctrl-C (or SIGTERM) cancels
// the run: what it was writing is not left half-written. A run still
// going stopGrace after it (waiting to open or read a pipe that no one
// writes, say) exits there, as does a second Ctrl-C: every output is
// written whole or not at all, so nothing is left half-written either.
//
// The collector keeps the process under 2.5 times its largest input's size
// plus 64 MB where it can, and collects at GOGC=400 when no input is
// over 8 MB (limitMemory), unless GOGC or GOMEMLIMIT is set.
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
	done := make(chan int, 1)
	go func() { done <- run(ctx, os.Args[1:], os.Stdout, os.Stderr) }()
	var code int
	select {
	case code = <-done:
	case <-ctx.Done():
		stop() // a second signal ends the process
		select {
		case code = <-done:
		case <-time.After(stopGrace):
			fmt.Fprintf(os.Stderr, "ctxbench: error: interrupted; still waiting on an input or output %s later, stopped there\n", stopGrace)
			return exitError
		}
	}
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
