// Package suite is ctxbench's regression check: a suite of recorded
// sessions replayed under the policies a team ships, held to invariants,
// budgets and a checked-in baseline. `ctxbench check` is [Run] and a
// printer.
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
//     runs ([cost.Replay]); each transcript × policy is a [Case], keyed
//     by the transcript's path relative to the config and the policy's
//     label ([Key]).
//  3. Each case is checked: the invariants its replay broke, the budgets
//     its [Metrics] exceed ([CheckBudgets]), and, against a [Baseline],
//     the metrics that moved beyond their tolerance ([Compare]) and the
//     cases the baseline lacks or has too many of.
//  4. The result's metrics form the next baseline ([Result.Current]);
//     [Changes] says what an update would change.
package suite
