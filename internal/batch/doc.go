// Package batch is ctxbench's orchestration of many transcripts: what
// the commands cost, report, check, replay and sweep run. It splits a
// run into shards ([Shard]: of the input files for cost and report, of
// the cases for check), writes each shard's partial ([Writer],
// [CheckPartial]) and merges the partials into what one run over every
// input makes ([Merge], [MergeCheck]).
package batch
