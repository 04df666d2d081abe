package main

// document is docs/performance.md; {{FIGURES}} is replaced by the table
// the run measured. The findings below are what the CPU profiles
// (CTXBENCH_CPUPROFILE=FILE ctxbench …, then go tool pprof -top -cum)
// showed before each change; the figures are this run's.
const document = `# Performance

Made by ` + "`make perf`" + ` (` + "`go run ./scripts/perf -o docs/performance.md`" + `) on a
2-core machine. Every figure is a ratio of two measurements taken in the
same run; absolute times on shared machines are noise. A target that is not
met says **no**: this page is the state of the work, not its goal. Each
time is the fastest of {{REPS}} runs (the sweep and the memory figure: one
run).

{{FIGURES}}
## What the profiles found, and what changed

Profiles are taken with ` + "`CTXBENCH_CPUPROFILE=cpu.out ctxbench …`" + ` and read
with ` + "`go tool pprof -top -cum`" + `.
The before → after times in this list were taken once, when each change
was made, with ` + "`ctxbench gen --calls N -o gN.jsonl`" + ` and
` + "`/usr/bin/time ctxbench replay --policy P gN.jsonl`" + ` on the commits before and
after it; ` + "`make perf`" + ` does not re-measure them, only the table above.

1. **Tokenizer: the regular-expression pre-tokenizer was the whole cost.**
   Before, ctxbench split text with the encodings' patterns compiled by
   regexp2 (the backtracking engine pkoukk/tiktoken-go uses) and ran
   about as fast as pkoukk (1.0–1.25×): BPE merging was a small share,
   the regexp2 matcher most of it. ` + "`estimate/pretokenize.go`" + ` replaces
   it with hand-written splitters for cl100k_base and o200k_base that
   compute, for each alternative of the pattern, the first match the
   backtracking engine would find (optional prefixes, greedy runs given
   back, the ` + "`\\s+(?!\\S)`" + ` lookahead). Characters are classified once
   (a table of the Basic Multilingual Plane). Exactness is held by
   ` + "`TestPretokenizersMatchPatterns`" + ` in ` + "`make test`" + ` (20,000 random texts
   built from the characters where the pattern classes meet, the 626
   reference texts, the first 64 KB of every corpus file, split by both
   and compared piece by piece; ` + "`make exact`" + ` runs 2,000,000 random
   texts), ` + "`FuzzPretokenizers`" + `, ` + "`FuzzBPE`" + ` (differential against
   pkoukk), and the reference counts from OpenAI's tiktoken. Long pieces
   merge with a heap (` + "`BenchmarkLongPiece`" + `: 20,000 repeated letters).
   No count cache per piece was needed to pass the target.
2. **Replay: retention recomputed artifacts per run and hashed strings
   per step** (54% of a 1,000-call aidf replay). Artifacts are now
   cached across runs and interned as integers (` + "`replay.ArtifactCache`" + `,
   shared by every command), a step marks them in a generation-stamped
   array, and a summary is searched once per artifact, not at every step
   (93% of a two-tier replay went to ` + "`strings.Contains`" + ` there).
   1,000-call replay: aidf 3.2 s → 0.9 s, two-tier 11.8 s → 0.9 s.
3. **Invariant checks allocated four string sets per step** (a third of
   the rest): they are reused and cleared.
4. **Codex's bytes/4 marshalled the whole history to JSON at every step**
   (50% of a codex replay): it is now an estimator whose counts the shared
   cache holds (5.5 s → 1.5 s on 1,000 calls).
5. **Sweeps kept every run's steps** (317 MB for 100 points over the
   corpus): they keep each run's summary only (58 MB).
6. **The "share of none" baseline was a none replay** for every
   transcript of ` + "`ctxbench replay`" + ` and ` + "`ctxbench sweep`" + `: quadratic in
   the calls (a 20,000-call session passed 4.7 GB and 5 minutes before it
   was stopped). ` + "`replay.NoneInputTokens`" + ` computes it in one pass over
   the cached counts; ` + "`TestNoneInputTokens`" + ` holds it equal to a none
   replay on the corpus (` + "`BenchmarkNoneBaseline`" + ` shows the gain).
7. **` + "`ctxbench replay`" + ` kept every step of every run, and the count caches
   held every transcript of the corpus**: a plain replay (no ` + "`--json`" + `,
   no ` + "`--trace`" + `) drops the steps once summarized, and the caches are
   made per transcript.
8. **cross-turn rebuilt its text view of the whole history at every call**
   (quadratic; 6.2 s on 5,000 calls, over a minute on 20,000): the view is
   extended as turns end (2.4 s on 5,000 calls). Its text-only copies now
   keep their identity between calls, so the prompt-cache simulation sees
   the identical bytes as cached, as a provider would.
9. **Retention walked every artifact seen at every step that sends a
   summary**: the count of seen artifacts found in the current summary is
   kept and extended (small gain: the seed policies' summaries change
   often).

## What is still slow, and why

- **Every step lists its whole context** (the trace contract of
  DESIGN.md §4), and the invariants check it, so a step costs the size of
  its context: policies that never evict (none, recorded on sessions
  without compactions, prune) are quadratic in the calls, and bounded
  policies pay their window at every step. Targets 2–4 need steps that
  record and check only what changed (a context as the previous one plus
  a delta), which the engine does not do yet.
- **With ` + "`--json`" + ` or ` + "`--trace`" + `, ` + "`ctxbench replay`" + ` keeps every step of
  every run** to write them at the end, so its memory grows with calls ×
  window × policies; the trace could be streamed run by run.
- Policies with large windows (gemini-cli's 70% of 1M tokens, codex's 90%
  of 272K, opencode) send thousands of messages per call on long
  sessions, and each step counts, checks and measures retention over all
  of them.
`
