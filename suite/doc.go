// Package suite runs the regression check of `ctxbench check` from Go:
// a suite of sessions replayed under the policies a team ships, held to
// invariants, budgets and a checked-in baseline.
//
// [LoadConfig] reads the suite's ctxbench.yaml (its transcripts,
// policies, estimators, model, budgets and tolerances) and
// [LoadBaseline] the baseline it is held to; [Check] replays every
// transcript under every policy, prices the runs and compares each case
// with the baseline. The [Report] says which cases fail
// ([Report.Failed]), what changed, row by row ([Report.Rows]), and the
// baseline an update would record ([Report.Current]); each metric that
// changed has a [Verdict].
//
// The command's check is this with its printers, its flags and its
// shards; the machinery is in internal/suitecheck.
package suite
