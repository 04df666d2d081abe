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
time is the fastest of {{REPS}} runs; the commands of a ratio are run in
turn, one of each per round, so that both meet the machine in the same
state (the memory figure: one run).

{{FIGURES}}
## What the profiles found, and what changed

Profiles are taken with ` + "`CTXBENCH_CPUPROFILE=cpu.out ctxbench …`" + ` and read
with ` + "`go tool pprof -top -cum`" + `; allocations with
` + "`CTXBENCH_MEMPROFILE=mem.out`" + ` and ` + "`go tool pprof -sample_index=alloc_space`" + `,
collections with ` + "`GODEBUG=gctrace=1`" + `.
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
   texts), ` + "`TestCountsMatchPkoukk`" + ` (counts against pkoukk's ` + "`Encode`" + `
   on random texts and random corpus slices: 2,000 of each in ` + "`make test`" + `,
   a million of each in ` + "`make exact`" + `), ` + "`FuzzPretokenizers`" + `, ` + "`FuzzBPE`" + `
   (differential against pkoukk), and the reference counts from OpenAI's
   tiktoken. Long pieces
   merge with a heap (` + "`BenchmarkLongPiece`" + `: 20,000 repeated letters).
   A cache of piece counts came later (item 15).
2. **Replay: retention recomputed artifacts per run and hashed strings
   per step** (54% of a 1,000-call aidf replay). Artifacts are now
   cached across runs and interned as integers (` + "`replay.Replayer`'s artifacts" + `,
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
   was stopped). ` + "`replay.Replayer.NoneInputTokens`" + ` computes it in one pass over
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

10. **Every step measured, listed and checked its whole context** (the
    trace contract lists it), so a step cost its window and none,
    recorded and prune were quadratic. A step now compares the context
    sent with the previous one, by identity (` + "`replay.delta`" + `): a common
    prefix, items replaced in place (a truncation), a block removed (a
    sliding window), items appended. Counts and retention (reference
    counts per artifact) update with what left and came; context ids
    share one array while contexts only grow; the checks look at the
    edges alone (` + "`edgesOnly`" + `) when the previous step was clean and
    fall back to the whole check, which lists what broke, otherwise. A
    history the policy gives back from its start is known unchanged
    without comparing (` + "`window.Policy`" + ` now says Apply does not modify
    hist; the reference run checks it). ` + "`TestIncrementalStepsMatchWhole`" + `
    holds every step equal to a run that measures and checks every
    context whole, for every policy on the corpus and nine misbehaving
    test policies, its violations equal to the previous string-set checks
    (kept in ` + "`refcheck_test.go`" + `), and retention equal to a set-based
    computation; each fast-path condition, removed, fails it.
    20,000 calls under the 8 policies: 72 s → 24 s; none: quadratic → the
    cost of reading and counting. ` + "`BenchmarkDeltaSteps`" + ` shows the gain in
    one run, delta steps against whole ones on 2,000 calls (none about
    300×, aidf 2×, gemini-cli 2.5× when measured).
11. **Checks and retention hashed strings**: item and tool ids are
    interned (a tool index per transcript), sets are generation-stamped
    arrays, tools are counted; artifacts are numbered per transcript and
    found by scanners equal to the regular expressions they replace
    (` + "`TestScannersMatchPatterns`" + `, ` + "`FuzzScanners`" + `); error lines are
    matched in place for ASCII (` + "`TestErrorLine`" + `). 24 s → 17.7 s.
12. **Summaries were searched for every artifact seen** (quadratic): a
    bit filter of the summary's 4-byte windows and eight-window
    signatures per artifact rule most out; a new summary tries only the
    artifacts keyed by one of its 8-byte windows (each artifact's rarest
    window). ` + "`TestGramFilter`" + `, ` + "`FuzzGramFilter`" + `.
13. **Policies counted their whole history at every call** (gemini-cli,
    codex, compress, two-tier, opencode): ` + "`State.historyTokens`" + ` keeps the
    previous count and counts what changed; ` + "`State.Given`" + `/` + "`Returned`" + `
    let it skip comparing a history it counted and sent. Counts come
    from per-transcript tables (` + "`estimate.Cache.Table`" + `); langchain's and
    opencode's own measures are cached estimators; prune looks only at
    the new middle. ` + "`TestHistoryTokens`" + `.
14. **Policies ran one after another on one core**: ` + "`replay.ReplayAll`" + `
    runs them side by side (one goroutine per CPU) after warming the
    shared caches in parallel; replay, report, check and cost use it
    (` + "`TestReplayAllMatchesReplay`" + `).
15. **The mock summarizer re-tokenized and re-rendered whole histories**:
    a per-encoding cache of piece counts (` + "`TestPieceCache`" + `; a fixed
    direct-mapped table, a hit compares the whole piece) makes repeated
    text cheap, and padding reads the conversation's first words only
    (` + "`TestFitTokensFirstWords`" + `). Its file paths come from a scanner
    equal to its regular expression (` + "`TestScanFilesMatchesPattern`" + `).
16. **Sweeps**: a summary-only run keeps no steps (` + "`Options.SummaryOnly`" + `)
    and builds its histories in two reused buffers; points whose policy
    is inert on a transcript (` + "`window.Inert`" + `: aidf with a cap at least
    the transcript's length) replay it once, as none
    (` + "`TestInertRunsAreNoneRuns`" + `; the 1,000-point sweep's output is the
    same bytes).

17. **The mock summarizer counted every prompt whole**, and the
    summarizing policies render the conversation again at every summary
    (1.2 s of CPU in the 20,000-call replay). A prompt's paragraphs —
    cut before each "[" that follows a newline, where no pre-tokenizer
    piece spans (` + "`TestPromptTokensAddUp`" + ` in both encodings on every
    corpus prompt, ` + "`FuzzPromptTokens`" + `) — are counted once per process
    through a fixed 6 MB table keyed by 128 bits of hash. The prompt is
    no longer even made: a template that prints ` + "`{{.Conversation}}`" + ` once,
    as it is (every built-in one; checked on its parse tree), is rendered
    around a marker and the conversation streamed into a meter that
    hashes and counts it (` + "`TestMeasureEqualsRender`" + `). The extraction stops
    reading inputs once its lists are full. ` + "`BenchmarkMeasure`" + ` (12 prompts
    of 300 messages, cold caches): 116 ms rendered and counted whole,
    34 ms streamed.
18. **The runs allocated 2.45 GB** in the 20,000-call replay (an
    allocation profile), and the collector scanned the whole transcript
    38 times: the mock's renders (1.15 GB), langchain's per-call copies
    (0.5 GB), codex prepending in a loop, ` + "`evictedFrom`" + `'s set (now one
    walk when the send is a subsequence; ` + "`TestEvictedFrom`" + `), gemini-cli
    encoding every message to JSON at each compression. Now 0.3 GB (the
    run phase of an allocation profile), 19 collections in all.
19. **Measuring structured content encoded it to JSON** (chars4, codex's
    bytes/4, gemini-cli's split point): ` + "`transcript.ContentJSONSize`" + ` adds up
    the lengths encoding/json would write (` + "`TestContentJSONSizeCorpus`" + `,
    ` + "`FuzzContentJSONSize`" + `).
20. **Artifact keys** counted every 8-byte window in maps (0.39 s); any
    window is a correct key, so a fixed table of approximate counts does
    (0.05 s of CPU in the 20,000-call replay). The first two runs
    both numbered the transcript's artifacts at once; warm does it once.
    Tool results are split into lines for error lines only when they hold
    an error word. A summary's candidate artifacts are compared where
    their key window puts them instead of searched for in the whole
    summary (a third of retention).
21. **Steps with orphan tool results were checked whole**: after a
    compaction, a result whose call was summarized stays, and breaks
    tool_pairing at every later step. The checker carries those
    violations and checks the step on what changed (opencode's checks:
    0.53 s → 0.04 s of CPU; ` + "`TestIncrementalStepsMatchWhole`" + `).
22. **opencode's prune walked its whole history at every call**: it
    stops at the quiet prefix of what it sent (outputs cleared stay
    cleared) and keeps the counts of the message where its budget runs
    out (` + "`TestOpencodeQuietPrefix`" + `; ` + "`BenchmarkOpencodePrune`" + ` on 2,000
    calls: 94 ms → 52 ms). ` + "`historyTokens`" + ` counts items replaced in place
    by their difference.
23. **The runs were taken one per CPU in the order given**, so the run
    started last finished alone on one CPU: ` + "`ReplayAll`" + ` now runs up to four
    per CPU at once and lets the scheduler share the CPUs (20,000 calls:
    5.9 s → 5.2 s against estimate's 4.4 s, fastest of 5 in turn).
24. **Every first count of a message went through one locked map**: a
    table's miss asked ` + "`estimate.Cache.Count`" + `, which took a read lock,
    missed, computed and took the write lock to insert, eight runs at once,
    into a map that grew to 360,000 entries (eight estimators on the
    20,000-call session). A ` + "`Table`" + ` now keeps its own counts (an atomic
    array; ` + "`TestTableCountsOnce`" + `), warm fills the tables of the
    replay's estimators, and the none baseline and the cost simulation
    read them. ` + "`BenchmarkFirstCounts`" + ` (5,000 calls, 8 goroutines, the
    four heuristics): map 155 ms, table 85 ms. The replay of the
    20,000-call session went from 1.22× estimate's time to about 1.0×
    (/usr/bin/time on the commits before and after, fastest of 5, in
    turn).
25. **Error words were searched by lowercasing**: the 5% of Japanese
    lines put most tool results on the path that lowercases the whole
    text (0.29 s of CPU). Only U+212A and U+0130 lowercase to ASCII
    letters (checked over every rune), so ` + "`errorLine`" + ` folds ASCII in
    place, looks for the four words in one pass and lowercases only a line
    holding one of the two (` + "`TestErrorLine`" + `; ` + "`BenchmarkErrorLine`" + `:
    lowercased 10.6 ms, in place 0.52 ms).
26. **The path scanner tried four prefixes at every delimiter**: no path
    starts more than three bytes before the next slash, so it jumps there
    (` + "`TestScannersMatchPatterns`" + `, ` + "`FuzzScanners`" + `).
    ` + "`BenchmarkArtifacts`" + ` (every message of 2,000 calls) with 25 and 26:
    51–55 ms → 31–37 ms.
27. **A sliding window's steps were checked whole**: aidf's window passes
    between a call and its result at most steps, and a removed block that
    left a result without its call made the engine check the whole
    context (the sweep's checks: 0.22 s of CPU per 1,000-point sweep).
    The result's message now becomes an orphan listed in context order
    and the step is checked on what changed (` + "`TestIncrementalStepsMatchWhole`" + `
    with a scripted session, ` + "`removedCalls`" + `; ` + "`BenchmarkDeltaSteps`" + `
    aidf:max_messages=100: 23.8 → 19.7 ms; checks 0.10 s per sweep).
28. **A summary-only run copied what was sent twice**: into its copy of
    the context, then into a history buffer. The next history now
    continues the copy (0.07 s of CPU per sweep in the profile).
29. **aidf allocated every history it sent** (0.11 s of CPU per sweep, and
    the collections that followed). ` + "`Env.ReuseSent`" + ` tells a policy that
    nothing reads what it returns after the call (runs that keep no
    steps); aidf then builds each history in the array of the previous
    one (` + "`TestAidfReuseSent`" + `). The sweep over the corpus, 8 runs of each
    in turn: fastest 0.61 → 0.52 s.
30. **` + "`cost`" + ` was quadratic in the calls**: every call's request for the
    cache simulation was rebuilt from its whole context, and compared
    whole with each of the up to 64 requests the cache held (a 4,000-call
    session under none and aidf: cost 6.2 s against replay's 0.55 s; the
    profile was ` + "`prefixCache.lookup`" + ` and ` + "`newRequest`" + `). A request is now
    built from the previous one (` + "`replay.Step.Kept`" + `: the items a context
    shares in place with the one before), and the cache knows, for each
    entry, how far it agrees with the last request, so a new request is
    compared only where it and an entry left the last one at the same
    place (` + "`TestPrefixCacheMatchesWholeComparison`" + ` on the corpus under 8
    policies, ` + "`TestPrefixCacheRandomContexts`" + `). ` + "`BenchmarkPriceRun`" + `
    none: 1,000 calls 122 ms → 2.3 ms, 4,000 calls 1.93 s → 6.3 ms.
31. **` + "`cost`" + `, ` + "`check`" + ` and ` + "`report`" + ` kept every step of every run** to
    price them afterwards (a 50,000-call report passed 24 GB and was
    killed). Runs are now priced as they are replayed
    (` + "`replay.Options.Observe`" + `, ` + "`cost.RunPricer`" + `; the constant is fitted
    on a first replay of the recorded policy alone, ` + "`cost.Fit`" + `), and the
    report takes its per-call series as the steps come: the 50,000-call
    report takes 1.2 GB (figure 9).
32. **The report drew every call**: lines keep each run of points' lowest
    and highest (at most 2,000 points, ` + "`TestDecimate`" + `), scatter and cache
    marks are thinned evenly. The 50,000-call report's folder went from
    154 MB to 110 MB (its SVGs from 28.6 and 20 MB to 1.3 and 1.5 MB).
    A summary's model was looked up in the price table at every summary,
    and an unknown one (the mock's) compared with every name for the
    error's suggestions: 161 MB of a 4,000-call report's allocations.
33. **Files were read into a doubling buffer**: they are now read into
    one of their size, and an input of unknown size into blocks joined
    once (` + "`BenchmarkReadFile`" + `: 7.9 MB allocated per read of a 2.9 MB
    session from its file, 12.2 MB from a reader of unknown size;
    ` + "`TestReadAllSizes`" + `). ` + "`tokens /dev/zero`" + `, which reads 1 GiB before it
    refuses: 2.1 GB and 14 s → 2.0 GB and 5 s (` + "`make hostile`" + `; a first
    version doubled a bytes.Buffer, and peaked at 4.1 GB).
34. **encoding/json was 74% of reading** (a CPU profile of
    ` + "`ctxbench inspect`" + ` on the folder of figure 10; half of it validating
    each line before decoding it, and skipping fields not read). The
    decoders measured on the corpus's Claude Code sessions, each line
    decoded into the reader's structs (` + "`cd scripts/jsonsurvey && go run . ../../fixtures/corpus/spotter ../../fixtures/corpus/codemie-code/tests/integration/session/fixtures`" + `,
    a module of its own; ` + "`GOEXPERIMENT=jsonv2`" + ` adds encoding/json/v2): on
    the day, encoding/json 111 MB/s (338 MB/s built on v2 with
    GOEXPERIMENT=jsonv2), encoding/json/v2 509 MB/s, goccy/go-json
    853–963 MB/s, bytedance/sonic 818–851 MB/s (its std-compatible
    configuration 668–784 MB/s), against simdjson-go's tape with no
    decoding, 863–935 MB/s, and encoding/json's validation alone,
    381 MB/s. goccy/go-json is the fastest, pure Go and without
    dependencies (sonic needs assembly and runtime internals per Go
    release); it decodes first and encoding/json decodes again after any
    error, so every error (and any input go-json alone would refuse) is
    encoding/json's (` + "`transcript.unmarshal`" + `; ` + "`TestFastDecodeReadsTheSame`" + `
    on every corpus and testdata file, strict and lenient,
    ` + "`FuzzUnmarshalAgrees`" + `). ` + "`ctxbench inspect`" + ` of the 22 MB folder:
    0.40 s → 0.10 s.
35. **Files were read one after another**: ` + "`transcript.Walk`" + ` reads them ahead
    on one goroutine per CPU, within 64 MiB of files at once (a larger
    file alone), and gives them in order.
36. **Every command loaded cl100k_base at start** (36 ms, 17.5 MB: the
    mock summarizer's counter, a package variable;
    ` + "`GODEBUG=inittrace=1`" + `): it is loaded when first used.
37. **` + "`replay --trace`" + ` kept every step of every run**: each run writes its
    lines as its steps are made, to a file of its own appended in order
    (` + "`replay.TraceWriter`" + `, ` + "`cost.Options.Observe`" + `). 16,000 calls under none,
    codex and prune: 2.28 GB and 10.7 s → 328 MB and 4.8 s, the same
    bytes.
38. **` + "`replay --json`" + ` kept every step too**: the steps are spooled the same
    way and the document is written with them read back in place
    (` + "`internal/jsonstream`" + `), their contexts with the trace's ` + "`\"^N\"`" + `
    (` + "`replay.StepEncoder`" + `, ` + "`replay.ExpandSteps`" + `). 16,000 calls under none,
    codex and prune: 2.0 GB and 12.6 s → 206 MB and 5.9 s; codex's ` + "`--json`" + `
    for 4× the calls, 39× the bytes → 4.3×.
39. **The collector's headroom was most of the peak**: a heap profile in
    the middle of the 8 report policies' runs of a 50,000-call session
    holds 332 MB live while the process peaks at 780 MB. ` + "`ctxbench`" + ` sets
    the collector a soft memory limit of 3 times its inputs' total size
    plus 64 MB (` + "`limitMemory`" + `; not when GOGC or GOMEMLIMIT is set): below it
    the collector runs as usual, near it more often. On the 208 MB,
    50,000-call session: replay under none, aidf and prune 780 → 691 MB
    (8.0 → 8.4 s), cost 728 → 691 MB, check 691 MB, report 891 → 696 MB;
    on 22 MB of Claude Code sessions, inspect as fast as without it
    (0.07 s; GOGC=50, tried first, took 0.09 s). The report writes
    steps.csv a row at a time and results.json a run at a time
    (` + "`TestResultsStreamed`" + `: the bytes of the whole encoding).
40. **A cache break rebuilt the set of the last request's ids whole**:
    only its items after the break can be among those re-sent (a request
    holds each item once), so only they are looked at (` + "`cost --policy prune`" + `
    on 50,000 calls: 30.9 s → 15.5 s; the same output on the corpus under
    7 policies).
41. **A policy that edits near the end of a long context made every
    request a copy of it** (prune, truncation), and the cache kept 64 of
    them: a request's items are now in 512-item chunks that requests
    share up to where they differ (` + "`TestPrefixCacheLongContexts`" + `). The 8
    report policies' cost on 50,000 calls: 18.3 s and 818 MB → 13.4 s and
    781 MB; ` + "`cost --policy prune`" + ` 15.5 s → 10.2 s, against its replay's
    7.7 s.
42. **Every replay parsed the embedded price table** to find its model's
    context window (` + "`pricing.Default`" + `, 427 µs a time;
    ` + "`BenchmarkDefaultLookup`" + `): 57% of a sweep's CPU, whose 1,000 points
    replay every transcript of the corpus. The table is parsed once and
    replays look models up through ` + "`pricing.LookupDefault`" + ` (each model once,
    26 ns after; ` + "`TestLookupDefault`" + `). The sweep of figure 3: 0.69 s →
    0.32 s.
43. **Files were read ahead one per CPU, counting the one fn holds**, so
    a large file in order kept a CPU idle while the small ones after it
    waited: up to one file per CPU is now being read while fn holds
    earlier ones, within a budget of the largest file per worker (16 to
    64 MiB; ` + "`TestReadAheadPastABusyFn`" + `, ` + "`TestReadBudget`" + `). ` + "`inspect --json`" + `
    of 174 MB of Claude Code sessions 0.435 → 0.358 s, of the 22 MB folder
    0.071 → 0.057 s; peak RSS on the corpus of figure 5 unchanged.
44. **` + "`cost`" + ` counted every message on one CPU**: its fit replays
    recorded alone first; the counts are now made on every CPU before it
    (` + "`replay.Replayer.Warm`" + `). ` + "`cost --policy recorded`" + ` of the 174 MB: 1.6 → 1.3 s.
45. **` + "`cost`" + ` measured retention that it never shows**: finding every
    message's artifacts was a fifth of its time on Claude Code sessions.
    ` + "`replay.Options.NoRetention`" + ` leaves it out (steps and summary keep 0;
    ` + "`TestNoRetentionChangesNothingElse`" + `), and the ledger looks each
    model up once. ` + "`cost --policy recorded`" + `: 174 MB 1.02 → 0.68 s, the
    22 MB folder 0.175 → 0.132 s, the same bytes.
46. **json.Compact of every tool input and thinking block** was 12% of
    ` + "`inspect`" + `'s CPU: input already compact (no white space outside its
    strings, found a quote at a time) is kept as it is
    (` + "`TestCompactJSON`" + `, ` + "`FuzzCompactJSON`" + ` against json.Compact). 174 MB:
    0.338 → 0.320 s.
47. **prune cloned its history at every call it truncates** (half its
    replay's time on long sessions, with the clones' collection): with
    ` + "`Env.ReuseSent`" + ` it builds the history in the array of the last one,
    as aidf does (` + "`TestPruneReuseSent`" + `). ` + "`replay --policy prune`" + ` of 20,000
    calls 1.75 → 1.27 s (none: 0.93 s).
48. **Every file was read into a new array**, cleared, then collected and
    returned to the system: 15% of ` + "`inspect`" + `'s CPU on many small files.
    Parse keeps nothing of its input (` + "`TestFastDecodeReadsTheSame`" + ` parses a
    copy it scribbles over before comparing), so Read reuses up to four
    arrays of at most 4 MiB (` + "`readBuffers`" + `, ` + "`limit.ReadAllInto`" + `).
    ` + "`inspect --json`" + ` of 174 MB in 288 files 0.293 → 0.224 s; the 22 MB
    folder unchanged.
49. **A Claude Code line was decoded in stages**, each a json.RawMessage
    scanned and copied before the next decoded it (the line, its message,
    the message's content, a tool result's content: a tool result's bytes
    scanned four times, and validated as UTF-8 twice; 59% of
    ` + "`inspect`" + `'s CPU). ` + "`transcript.ccScanner`" + ` decodes it in one pass into
    what the transcript keeps, each string unescaped once, what no reader
    needs (` + "`toolUseResult`" + `, progress data) checked and passed over: quotes,
    backslashes and control characters are found eight bytes at a time,
    and only a string with a byte above 0x7f is checked as UTF-8. It
    gives up on anything it does not decode exactly as encoding/json
    would (invalid JSON or UTF-8, a field of another type, a field given
    twice or named only ignoring case, a lone surrogate, system and
    result lines), and that line is decoded in stages, with their errors
    (` + "`TestClaudeCodeOnePassReadsTheSame`" + `: 2,603 of the corpus's 2,607 Claude
    Code lines in one pass, each equal to the staged decoding with
    encoding/json; ` + "`FuzzClaudeCodeLine`" + `; ` + "`TestScannerFieldsAreTheStructs`" + `).
    ` + "`BenchmarkClaudeCodeLine`" + ` on the spotter session: staged 0.86 GB/s, one
    pass 1.19 GB/s, checking the bytes alone 2.1 GB/s. On 181 MB of Claude
    Code sessions: ` + "`inspect --json`" + ` 0.20 → 0.14 s, ` + "`cost --policy recorded`" + `
    0.55 → 0.50 s.
50. **Every piece's count was looked up by hashing it** (maphash), following
    a pointer and comparing its bytes: a quarter of ` + "`cost`" + `'s CPU on Claude
    Code sessions, whose pieces are mostly counted already. Pieces of 2 to
    7 bytes, most of them, are held in slots of one word (the piece's
    bytes, its length and its count, swapped atomically): one load and
    one comparison (` + "`TestPieceCache`" + `). ` + "`BenchmarkEstimators`" + `, counts of
    pieces seen before: cl100k_base 137 → 169 MB/s, o200k_base 88 → 106
    MB/s. ` + "`cost --policy recorded`" + ` of 181 MB 0.48 → 0.42 s.
51. **The merge ranks were loaded with tiktoken-go-loader**, which splits
    every line into new strings and grows its map: 20 ms and 301,048
    allocations for cl100k_base before the first count of every command
    that counts exactly. ` + "`loadRanks`" + ` reads the same embedded files into a
    map made at its size whose keys are slices of one string: 7 ms, 263
    allocations (` + "`BenchmarkLoadRanks`" + `, ` + "`TestLoadRanksIsTheLoaders`" + `). ` + "`cost`" + `
    of the 22.6 MB folder 0.09 → 0.08 s.
52. **` + "`at`" + `, the class of a character, was called for every character**
    the pre-tokenizers read (too large to inline): the runs of letters
    and of punctuation read an ASCII character's class inline from an
    array of its own. ` + "`BenchmarkEstimators`" + `: cl100k_base 166 → 186 MB/s,
    o200k_base 106 → 112 MB/s. And ` + "`Message.Chars`" + ` counted characters a
    byte at a time (utf8.RuneCountInString), a tenth of ` + "`inspect`" + `'s CPU:
    it counts eight bytes at a time where the text is ASCII
    (` + "`BenchmarkRuneCount`" + ` 2.0 → 6.4 GB/s, ` + "`TestRuneCount`" + `).
53. **The command is built with a profile** (profile-guided optimization):
    ` + "`cmd/ctxbench/default.pgo`" + ` merges the CPU profiles of the commands this
    page measures (` + "`make pgo`" + `, ` + "`scripts/pgo.sh`" + `), and go build inlines and
    lays out the hot calls it shows. Against the same code built with
    ` + "`-pgo=off`" + `, best of 5: ` + "`inspect --json`" + ` of 181 MB 0.15 → 0.14 s,
    ` + "`cost --policy recorded`" + ` 0.44 → 0.42 s, ` + "`estimate`" + ` of 20,000 calls
    1.44 → 1.35 s,
    ` + "`replay`" + ` of them under the 8 policies 1.61 → 1.53 s; the same bytes. A
    cold build takes as long (24 s); the test targets build with
    ` + "`-pgo=off`" + `, since ` + "`go test ./...`" + ` would build every package twice.
54. **Gemini CLI's measures went a character at a time** (the length of
    JSON.stringify of every text, and its token heuristic; 7% of the
    replay of 20,000 calls under the 8 policies): they pass a word of
    ASCII at once, with the tests the readers use
    (` + "`internal/swar`" + `, which now holds every eight-bytes-at-a-time test;
    ` + "`TestGeminiMeasuresByWord`" + `, ` + "`FuzzGeminiMeasuresByWord`" + `). That replay 1.53 →
    1.47 s, its estimate 1.34 s.
55. **` + "`cost`" + ` counted a transcript, then priced it with one CPU idle**: the
    readers, ahead by their byte budget, waited. Each transcript's exact
    counts are now made by the goroutine that read it
    (` + "`transcript.WalkPrepared`" + `, ` + "`replay.Replayer.Prepare`" + `, ` + "`TestWalkPrepared`" + `), while the
    ones before it are priced. ` + "`cost --policy recorded`" + ` of 181 MB in 288
    files 0.42 → 0.36 s (in a slower hour, 0.49 → 0.41 s), of one
    20,000-call file unchanged. ` + "`estimate`" + ` analyzes each transcript on its
    reader's goroutine too (181 MB 1.87 → 1.42 s), and ` + "`replay`" + ` makes each
    transcript's caches and counts there (figure 5's ten sessions 0.68 →
    0.58 s, 181 MB 0.56 → 0.49 s); its artifacts are still found when it
    is replayed: made ahead too, they raised figure 5's peak RSS from
    101–111 MB to 128–135 MB, against its bound of 129 MB. ` + "`report`" + ` does
    the same (` + "`reports.Builder.Prepare`" + `): figure 5's ten sessions 6.36 → 6.11 s,
    where the replays are a quarter of its CPU, the sweep a fifth, and
    drawing the plots, one after another on one goroutine, a fifth.
56. **A sweep's runs allocated 150 MB a sweep** of 1,000 aidf points over
    the corpus (` + "`BenchmarkSweepCorpus`" + `: figure 3 without the reading), and
    the collector's write barriers, on while it marked, made every copy
    of a window dearer: a third of its CPU went to the collector. Every
    violation's detail was written (` + "`fmt.Sprintf`" + `, its ids listed, the
    run's list kept) where a sweep reports counts: a sweep's runs now
    count them (step and invariant only; TestIncrementalStepsMatchWhole
    holds the counts to the listed ones). A summary-only run makes its
    step in one place instead of one per call; a sweep's runs borrow the
    array their context is kept in from a pool; the summary's sums go in
    arrays, put in its maps once; and a message's id ("m41") is a slice
    of one string made once (` + "`transcript.MessageID`" + `) instead of made for
    every message of every run. ` + "`BenchmarkSweepCorpus`" + ` 123–132 → 70–73 ms,
    150 → 50 MB and 1.28 million → 0.32 million allocations a sweep.
57. **The sweep read every transcript before its first run**, and its
    first runs of a transcript found its retention artifacts, the other
    worker waiting for them. Each transcript's runs now start when it is
    read (` + "`replay.Sweeper`" + `: Add, then Result; the points are summed in
    the same order, so the bytes are the same), its counts and artifacts
    made by the goroutine that read it (` + "`replay.Replayer.Warm`" + `). Figure 3's sweep,
    best of 7 alternated: 210 → 194 ms after item 56 (243 ms before
    either, the replay it is compared with 99 ms). ` + "`reports.Table`" + `
    buffers what it writes: tablewriter writes a line at a time, one
    system call each on a terminal or a pipe (1,012 for the sweep's
    table, 1 now).
58. **` + "`inspect`" + ` summarized each transcript on the goroutine that waits
    for them** while the two readers read: the summary (its characters
    counted) is now made by the reader (` + "`readPrepared`" + `). 181 MB, best of
    9: 158.9 → 150.4 ms.
59. **` + "`inspect`" + ` unescaped and copied every text it only counts.** Read
    with ` + "`transcript.Options.Measure`" + `, the Claude Code scanner measures a
    block's text, tool input and raw JSON as it passes over them
    (` + "`Block.Measured`" + `, which ` + "`Message.Chars`" + ` adds): an ASCII string's
    characters are its length less one per escape, which the scanner
    counts as it finds the string's end; a string holding other bytes is
    counted a word at a time, one with \u escapes as unescape would read
    it. Lines read in stages, and the other formats, keep their content.
    ` + "`TestMeasureReadsTheSame`" + ` reads every corpus and testdata file both
    ways (the same transcripts but for the content, the same characters
    per message, the same summaries), and every line the one pass
    reads, ` + "`FuzzClaudeCodeLine`" + `'s among them, is read both ways too.
    181 MB, best of 9: 153.9 → 130.0 ms, where ccusage took 138.6 ms;
    ` + "`BenchmarkClaudeCodeLine`" + ` 1.10 → 1.18 GB/s.
60. **two-tier summarizes at every call, as the ralph loop does.** Held
    to its real code (loop.ts never replaces its messages, so a session
    over 80,000 tokens is summarized anew before every call), two-tier
    made 4,865 summaries on the 5,000-call session where the seed's
    reading made 32. Figures 2, 4, 6 and 7 replay it: figure 2 went from
    about 0.9× to about 3.5×. Three changes kept it linear in the calls:
    the heuristic summary's extraction and the AI summary's prompt (its
    metadata of every older message, its conversation cut to 50,000
    characters) are kept as the older messages grow, each message read
    once; a summary's covered ids are one slice of the client's ids;
    and the invariant checker stops at the first covered id that is
    fresh instead of looking at every one. ` + "`replay --policy two-tier`" + `:
    5,000 calls 80 s → 2.4 s, 20,000 calls 10.0 s (before the code's
    rule, 0.41 s on 5,000).
61. **Over many sessions, memory grew with the sessions** (figures 14
    and 15). The collector's soft limit was 3 times the inputs' total
    size, so over a folder it never pushed back; the report kept each
    session's result but its per-call series (its runs' summaries, four
    maps each, its notes and bill) and three counts a message; a sweep
    kept every session's run summaries to its end. Over 500 generated
    sessions of 200 calls the report's live heap at its end was 47 MB,
    17 MB of it those. Now the limit is 3 times the largest input plus
    64 MB (` + "`limitMemory`" + `); the report spools each session's whole result
    (` + "`Builder.SpoolTranscripts`" + `) and keeps its name and calls, its
    totals, overview and Pareto points summed as sessions come, in the
    order the loops over them summed; the estimator plots' counts spill
    to a temporary file past 64 K counts and are read twice when drawn;
    a sweep adds a session's runs into its points once they and those
    before are done, keeping one mean retention per point and session.
    By hand (` + "`/usr/bin/time`" + `, figure 14's three policies), the commit
    before against after: 500 sessions, report 152 → 90 MB (135 →
    152 s); 16 sessions of 20,000 calls, sweep 577 → 327 MB (16 → 21 s),
    report 564 → 335 MB (87 → 112 s), check 358 → 330 MB. The whole
    report folder, ` + "`sweep --json`" + ` and ` + "`cost --json`" + ` over 50 generated
    sessions and the corpus are byte-identical (` + "`diff -r`" + `).
62. **A command held the file beside its transcript** (figures 9 and
    14): ` + "`transcript.Read`" + ` loaded each input whole, and a heap profile at
    the peak over 16 sessions of 20,000 calls held the 80 MB file and the
    ~105 MB transcript built from it. JSON Lines are now read a line at a
    time through a 256 KiB buffer (` + "`transcript/stream.go`" + `; a document,
    or lines ended by CR alone, are still read whole), and the soft limit
    is 2.5 times the largest input plus 64 MB, under the bound by the
    program's own ~30 MB and a collection's overshoot. By hand
    (` + "`/usr/bin/time`" + `, figure 14's three policies), the commit before
    against after: 16 sessions of 20,000 calls, inspect 288 → 87 MB,
    replay 326 → 238 MB, check 342 → 279 MB, report 338–372 → 292 MB (two
    runs before; 334 MB reading a line at a time at the old limit); the 50,000-call session's report
    707 → 665 MB (63 → 75 s: its live heap reaches 510 MB, so the
    collector runs more near the limit). ` + "`TestStreamReadsAsParse`" + ` reads
    every corpus file both ways; the report folder, ` + "`sweep --json`" + `,
    ` + "`cost --json`" + ` and ` + "`inspect --json`" + ` over the corpus and 50 generated
    sessions are byte-identical.

## What is still slow, and why

- **Reading** a transcript is about half of a replay's and an
  estimate's time on the 20,000-call session, and sets the memory
  floor: what is decoded from the file (its longest line is the only
  part of the file held; item 62), and the collector's headroom
  (figure 9). A Claude Code line is decoded in one pass (item
  49) at about 1.1 GB/s on one CPU, 1.2 GB/s measuring its content
  (item 59), where checking its bytes alone with the same scanner runs
  at about 1.7 GB/s: what is left is unescaping and copying the strings
  the transcript keeps, and building its messages. Against ccusage
  (figure 10), a native program that computes usage and cost alone
  (about 0.22 s of CPU for 181 MB, on both CPUs), ` + "`inspect`" + `, which
  measures the content rather than keep it, spends about as much CPU
  (0.21–0.22 s) and reads faster on the larger folder (the same
  sessions 32 times over, the rate each reads at); on the smaller one starting the process weighs
  most (timed by hand on an empty folder, best of 15: ctxbench inspect
  about 7 ms, of which its libraries' initialization about 2 ms by
  GODEBUG=inittrace=1, and ccusage 2 ms), and the ratio moves with the
  machine around 1.0.
  ` + "`cost --policy recorded`" + ` alone is the bill (issue 33): it
  reads Claude Code's lines measured, as ` + "`inspect`" + ` does, prices
  each call from its usage and finds the cache misses from the bill,
  with no replay and no estimator loaded, so it reads at about
  ` + "`inspect`" + `'s speed (before: 2–3× ccusage, tokenizing every
  message to simulate the calls). Pricing other policies beside it
  replays and counts, and is held to counting the content instead
  (figure 11).
- **The API edits' time** (figure 13) grows with the square of the
  calls: anthropic-clear-tool-uses and anthropic-clear-thinking model a
  server that edits the whole history it is sent at every request, and
  they redo that work on the whole history at every call (the figure
  gives both times). Their memory is linear: an edited message is copied
  when its edit changes, not at every request.
- **Memory over many sessions** (figures 14, 15 and 16): every command
  holds about the largest session's transcript and replays, and the
  collector's headroom, up to 2.5 times the largest input plus 64 MB
  (items 61 and 62). What still grows with the sessions is small: the
  report's name, format and calls of each session and the few numbers
  that rank it for ` + "`--sessions`" + `, and a sweep's mean retention per
  point and session (8 bytes: a 1,000-point sweep over 2,000 sessions
  holds 16 MB of them). report.md's table of sessions is built whole by
  tablewriter, for the sessions shown (at most ` + "`--sessions N`" + `). Near
  the limit the collector runs more often: the report over 16 sessions
  of 20,000 calls took 87 → 112 s when the limit came in (by hand, item
  61).
- **A sharded run's merge is not split** (figure 16): the shards
  replay and price their sessions, and the merge writes what one run
  writes, the report's folder whole (its plots and the ` + "`--sessions`" + `
  detail). A report's merge takes about one run's writing, which the
  figure shows beside the shards' times; cost's merge reads the
  partials' entries back (JSON) and adds them.
- **Figure 3 sits at its target**: its two runs take well under a
  second, and a run of ` + "`make perf`" + ` beside other work on the machine
  moves it by tens of percent. The run of this document (at c056a82)
  measured 0.4 s against 0.22 s, a hair over 2.0×. The sweep prices its
  points now (` + "`ctxbench sweep`" + ` with no ` + "`--no-cost`" + `); the figure goes on
  measuring what it did, the sweep's sharing of the replays, with
  ` + "`--no-cost`" + `. Priced, the same 1,000-point sweep took 1.44–1.89 s by
  hand (` + "`/usr/bin/time`" + `, 3 runs) against 0.33 s unpriced: each run's
  pricer re-builds its requests and break tracking over the sliding
  window at every call (59% of the CPU in ` + "`RunPricer.Observe`" + `).
- **The report on one long session is nearest the bound** (figure 9):
  its live heap on the 50,000-call session reaches 510 MB, 2.6 times
  the file, in a heap profile: the transcript (143 MB), the runs of the
  eight policies in flight (240 MB: each run's per-call series and
  usage, and 56 MB of two-tier's summary texts), and the estimator's
  caches. The collector keeps it under the
  bound by running more often (item 62); each figure is one run, and
  its peak moves by tens of MB from run to run.
- **prune and gemini-cli** hold more than the other policies on long
  sessions (on 16,000 calls, 110 MB more than none); not yet profiled.
- **Memory on a long session** is held within the target by the
  collector working harder near it (item 39): the live data itself — the
  transcript, and each run's state and per-call series — is about half
  the peak; a session whose live data alone passes the limit goes over it.
- **The mock summarizer** still counts each new paragraph of a prompt
  and hashes every prompt whole (the summary's id is the prompt's
  SHA-256), so it costs what the policies summarize: two-tier asks for a
  summary of a 50 KB prompt at every call once a session is over its
  threshold (about 0.25 ms each, half of its replay; item 60), and
  gemini-cli and compress summarize most of the session between them.
  Figure 2 is not met for it: a policy that summarizes at every
  call cannot cost what counting the session costs.
- **vercel-prune** (not in the figures) replays in time quadratic in
  the session's length: the history it sends changes inside at every
  call (a message that leaves the last ones loses its tool calls), so
  the engine checks it whole, and the history is built anew. An item's
  pruned form is made once; 5,000 generated calls take 2.9 s, 20,000
  take 40 s (none: 0.4 s and 2.0 s).
- **Each policy's own measure** (chars4, bytes/4, the gemini heuristic,
  content length) is computed inside the first run that needs it; warm
  computes only the replay's estimators.
- **prune** still copies its history at each call it truncates (into
  one reused array): its replay grows a little faster than the calls.
- **Warm** finds each message's artifacts on both CPUs but interns them
  under one lock; it does not start before the transcript is read.
- **A sweep's points** copy their window at every call (aidf builds the
  new context, the engine compares it with the last one and updates its
  copy), so a point costs its calls times its window: those three passes
  are most of a sweep's CPU now (items 56–57). Starting the process and
  reading the corpus are most of a replay of it, and the sweep's figure
  is a ratio of two short times, so it moves most with the machine.
  Its text table of 1,000 rows takes tablewriter about 11 ms.
- The figures move by 20–30% from run to run on this shared machine
  (the same binary's CPU time varies that much).
`
