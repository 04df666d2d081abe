// Package suitecheck is the machinery of the regression check behind
// `ctxbench check` and package suite: its configuration and verdict, a
// suite of sessions replayed under the policies a team ships, held to
// invariants, budgets and a checked-in baseline. The batch package
// (internal/batch) replays the suite; suitecheck reads its config,
// measures each case, compares the cases with the baseline and says
// what changed (`ctxbench check` is a batch run, [Check] and a
// printer; package suite is the same for a Go caller).
//
// The steps:
//
//  1. [LoadConfig] reads ctxbench.yaml: the transcripts (globs and
//     folders, relative to the file), the policies (SPEC strings or
//     {name, label, params}), the estimators, the provider, the model
//     that prices the calls, the budgets and the tolerances. Every value
//     is checked there, so a mistake is reported with its line before
//     anything is replayed.
//  2. The batch replays each transcript under every policy and prices
//     the runs ([cost.Replay]); [Config.Cases] makes each transcript ×
//     policy a [Case], keyed by the transcript's path relative to the
//     config and the policy's label — its name unless the config gives
//     one — so that changing a
//     parameter compares the case with its old self ([Key]). The budgets
//     its [Metrics] exceed are checked there ([CheckBudgets]), and the
//     invariants it broke are grouped, each with its first call.
//  3. [Check] compares the result with a [Baseline]: every metric that
//     changed (the metric registry gives each one's name, unit,
//     direction and budget), with its verdict — within tolerance, better
//     or worse, each metric improving one way — the parameters that
//     changed, the cases the baseline lacks or has too many of. A
//     violation the baseline records is known: only more of it fails.
//     [Report.Rows] is the table, worst first.
//  4. The report's Current is the next baseline; [Changes] says what an
//     update would change, and [Report.Blocking] what it must accept.
//
// A batch gives what it makes of each transcript as a [SessionRun]: its
// runs under the policies, priced, their series call by call, its
// messages' counts; the caller keeps what it draws (the command's
// report builder, or [Config.Cases]) and lets the transcript go.
//
// A large suite runs as shards, each replaying the cases whose key
// hashes to it; the batch merges their partials into the result one
// unsharded run gives, so [Check] reports the same.
package suitecheck
