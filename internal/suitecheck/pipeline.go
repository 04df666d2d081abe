package suitecheck

import (
	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A SweepSpec is a sweep of one policy: its fixed parameters and a grid
// of two keys.
type SweepSpec struct {
	Policy string
	Base   map[string]string
	Grid   []replay.GridKey
}

// A SessionRun is a transcript replayed and priced under a batch's
// policies: what the command's batch package gives a report's builder
// or a check, one transcript at a time.
type SessionRun struct {
	// Index is its place in the order the transcripts were added, from 0.
	Index      int
	Transcript *transcript.Transcript
	// Policies are the policies it was replayed under: the batch's, or
	// those of a shard's cases.
	Policies []window.Labeled
	// Session is its runs, in the order of the policies, priced.
	Session *cost.Session
	// Comparison is the runs' costs compared with none's, when the batch
	// compares them (nil: not compared, or not priced: Session's
	// NotPriced says why).
	Comparison *cost.Comparison
	// Series are each run's per-call series, in the same order (nil: not
	// kept).
	Series []Series
	// Estimator names the estimator the series' tokens are counted with,
	// and NoneInputTokens is what it counts of the calls sending the
	// whole history: what a run's share of none divides.
	Estimator       string
	NoneInputTokens int64
	// Counts are each message's counts, one per estimator of the
	// batch in its order (nil without estimators).
	Counts []int
}

// A Series is a run's values call by call: the messages sent, their
// tokens, the retention and the probes asked and kept
// ([replay.Step]), and Events, the calls (0-based) at which the policy
// evicted, truncated or summarized.
type Series struct {
	Messages    []int
	Tokens      []int
	Retention   []float64
	ProbesAsked []int
	ProbesKept  []int
	Events      []int
}
