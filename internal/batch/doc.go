// Package batch is ctxbench's orchestration of many transcripts: the one
// pipeline the commands cost, report, check, replay and sweep run their
// transcripts through, and the sharding of a run.
//
// [New] builds a [Pipeline] from a [Spec]: the policies, what prices
// and counts the runs, the sweep. Each transcript is prepared on the
// goroutine that read it ([Pipeline.Prepare]: its replay's counts, its
// messages' counts), then replayed under the policies and priced, its
// share of none and its series kept, and its runs of the sweep started
// ([Pipeline.Add], or [Pipeline.Replay] for a caller that emits the
// runs itself); [Pipeline.Finish] waits for the sweep. [Check] is the
// regression check's run of a suite.
//
// A run splits into shards ([Shard]: of the input files for cost and
// report, of the cases for check); each shard writes a partial
// ([Writer], [CheckPartial]) and [Merge] or [MergeCheck] combines the
// partials into what one run over every input makes.
package batch
