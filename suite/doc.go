// Package suite replays sets of recorded sessions under policies: the
// regression check, a suite of sessions replayed under the policies a
// team ships, held to invariants, budgets and a checked-in baseline
// (`ctxbench check` is [Run], [Check] and a printer), and the
// [Pipeline] a report is drawn from (`ctxbench report` is a Pipeline,
// package reports and a printer).
//
// The steps:
//
//  1. [LoadConfig] reads ctxbench.yaml: the transcripts (globs and
//     folders, relative to the file), the policies (SPEC strings or
//     {name, label, params}), the estimators, the provider, the model
//     that prices the calls, the budgets and the tolerances. Every value
//     is checked there, so a mistake is reported with its line before
//     anything is replayed.
//  2. [Run] replays each transcript under every policy and prices the
//     runs ([cost.Replay]); each transcript × policy is a [Case], keyed by
//     the transcript's path relative to the config and the policy's label
//     — its name unless the config gives one — so that changing a
//     parameter compares the case with its old self ([Key]). The budgets
//     its [Metrics] exceed are checked there ([CheckBudgets]), and the
//     invariants it broke are grouped, each with its first call.
//  3. [Check] compares the result with a [Baseline]: every metric that
//     changed ([MetricList]: each one's name, unit, direction and budget),
//     with its verdict — within tolerance, better or worse, each metric
//     improving one way ([HigherIsBetter]) — the parameters that
//     changed, the cases the baseline lacks or has too many of. A
//     violation the baseline records is known: only more of it fails.
//     [Report.Rows] is the table, worst first.
//  4. The report's Current is the next baseline; [Changes] says what an
//     update would change, and [Report.Blocking] what it must accept.
//
// A report of many sessions is drawn from a [Pipeline]: each transcript
// replayed under the policies and priced, its runs' series kept call by
// call, its messages counted by the estimators, and a policy swept over
// the transcripts as they come; what it makes of each ([SessionRun]) is
// given to the caller, which keeps what it draws (package reports'
// Builder) and lets the transcript go.
//
// A large suite runs as shards ([Options].Holds): each replays the cases
// whose key hashes to it; the command's batch package writes and merges
// the partials into the result one unsharded run gives, so [Check]
// reports the same.
package suite
