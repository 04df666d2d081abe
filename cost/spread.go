package cost

import (
	"fmt"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/internal/family"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/transcript"
)

// A spread is a bill recorded for the calls together and not one by one
// (a `codex exec --json` stream's turn.completed usage, its threads'
// totals, in [transcript.Transcript.Unattributed]) shared out over the
// calls, so that they are priced from the bill as calls that recorded
// their own are, the recorded policy at exactly the bill.
//
// What the bill measures is kept: the calls' prompts, cache reads,
// cache writes and uncached input each sum to the bill's. What it does
// not is assumed: each call's prompt is the constant plus alpha times
// its estimate, alpha its model family's over the corpus (1 for a
// family the corpus bills too few calls of; less where the estimates
// alone pass the bill: the agent sent less than the transcript holds)
// and the constant what makes the prompts sum to the bill's; each
// call's read the same share of what an ideal cache reads of it (the
// bill says how much the cache missed, not where). So no call's split
// is measured: no alpha fitted, no cache miss found, no cross-check.
type spread struct {
	usage    []transcript.Usage
	alpha    float64
	constant int
	// family and from say where alpha comes from ([family.ModelAlpha]):
	// family "" is 1, or the bill over the estimates (scaled).
	family, from string
	scaled       bool
}

// spreadBill shares t's bill for no call in particular over its calls
// ([spread]) when it is the whole bill: no call recorded a prompt, the
// unattributed usage records one, and every call is priced at one
// model, model naming its family. It does nothing otherwise.
func (f *recordedFit) spreadBill(t *transcript.Transcript, model string) {
	a := f.anchor
	u := t.Unattributed
	if a == nil || u == nil || u.Prompt() <= 0 || len(a.est) == 0 || slices.Contains(f.has, true) || len(t.UnattributedByModel) > 0 {
		return
	}
	for i := range a.est {
		if a.group(i) != a.group(0) {
			return
		}
	}
	n := len(a.est)
	sp := &spread{alpha: 1}
	if fa, family, from, ok := family.ModelAlpha(model, f.estimator); ok {
		sp.alpha, sp.family, sp.from = fa, family, from
	}
	est := 0
	for _, e := range a.est {
		est += e
	}
	prompt := float64(u.Prompt())
	c := (prompt - sp.alpha*float64(est)) / float64(n)
	if c < 0 {
		// The estimates alone pass the bill: what was sent is less than
		// the transcript holds (outputs cut before sending), by the
		// same share everywhere.
		c, sp.alpha, sp.family, sp.from, sp.scaled = 0, prompt/float64(est), "", "", true
	}
	sp.constant = int(math.Round(c))
	weights := make([]float64, n)
	for i, e := range a.est {
		weights[i] = c + sp.alpha*float64(e)
	}
	prompts := stats.Apportion(u.Prompt(), weights)
	// An ideal cache's read of each call: its model's previous prompt,
	// or nothing; the bill's reads are the same share of each.
	ideal := make([]float64, n)
	sum := 0.0
	for i := range n {
		if a.read[i] > 0 {
			ideal[i] = min(float64(prompts[i]), c+sp.alpha*float64(a.read[i]-1))
		}
		sum += ideal[i]
	}
	reads := make([]int64, n)
	if float64(u.CacheRead) <= sum {
		reads = stats.Apportion(u.CacheRead, ideal)
	} else {
		// The cache read more than an ideal one holds (what was cached
		// before the session began): the rest from what is left.
		left := make([]float64, n)
		var base int64
		for i := range n {
			reads[i] = int64(math.Floor(ideal[i]))
			base += reads[i]
			left[i] = float64(prompts[i] - reads[i])
		}
		for i, x := range stats.Apportion(u.CacheRead-base, left) {
			reads[i] += x
		}
	}
	rest := make([]float64, n)
	for i := range n {
		rest[i] = float64(prompts[i] - reads[i])
	}
	writes := stats.Apportion(u.CacheWrite, rest)
	w := make([]float64, n)
	for i, x := range writes {
		w[i] = float64(x)
	}
	writes1h := stats.Apportion(u.CacheWrite1h, w)
	sp.usage = make([]transcript.Usage, n)
	for i := range n {
		sp.usage[i] = transcript.Usage{Input: prompts[i] - reads[i] - writes[i], CacheRead: reads[i], CacheWrite: writes[i], CacheWrite1h: writes1h[i]}
		f.has[i], f.gaps[i] = true, int(prompts[i])-a.est[i]
	}
	a.spread = sp
}

// assumption says how the calls were priced from a bill shared out over
// them.
func (sp *spread) assumption(calls int) string {
	alpha := fmt.Sprintf("alpha %.3f, %s", sp.alpha, sp.from)
	switch {
	case sp.scaled:
		alpha = fmt.Sprintf("alpha %.3f, the bill's prompts over the estimates (which alone pass it)", sp.alpha)
	case sp.family == "":
		alpha = "alpha 1"
	}
	return fmt.Sprintf("the bill records usage for the calls together, not one by one: its prompts, reads and writes are shared out over the %d calls (the constant %d tokens plus %s; each call reading the same share of what an ideal cache holds), which no bill measures: no alpha fitted, no cache miss found, no cross-check; the recorded policy costs the bill",
		calls, sp.constant, alpha)
}
