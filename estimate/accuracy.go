package estimate

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ctxbench/ctxbench/internal/family"
	"github.com/ctxbench/ctxbench/internal/imagerule"
	"github.com/ctxbench/ctxbench/transcript"
)

// Counts holds one transcript's token counts by estimator, message by
// message and block by block: the input of the accuracy statistics.
type Counts struct {
	File   string
	ID     string
	Format transcript.Format
	// Estimators names the columns of every Counts slice below.
	Estimators []string
	Messages   []messageCounts
	// Calls are the recorded API calls that carry usage, with the counts
	// of what each appended to the prompt (see [Analyze]).
	Calls []callCounts
}

// Rows returns every message's counts in a row, message after message,
// each one per estimator in the order of Estimators.
func (c *Counts) Rows() []int {
	rows := make([]int, 0, len(c.Messages)*len(c.Estimators))
	for _, m := range c.Messages {
		rows = append(rows, m.Counts...)
	}
	return rows
}

// messageCounts is one message's counts.
type messageCounts struct {
	Index int
	Role  transcript.Role
	// NonASCII is the share of the message's characters (code points)
	// above U+007F.
	NonASCII float64
	// Counts is each estimator's count of the whole message (no overhead)
	// without its images, which no estimator counts as text.
	Counts []int
	Blocks []blockCounts
	// Images is how many images the message holds; ImageTokens what
	// they count by the rule the provider documents, the same for
	// every estimator, and Unsized how many of them no rule could count
	// (0 tokens). The comparisons with the bill add ImageTokens to each
	// estimator's count.
	Images, ImageTokens, Unsized int
}

// withImages is the message's count by estimator k, its images included.
func (mc *messageCounts) withImages(k int) int { return mc.Counts[k] + mc.ImageTokens }

// blockCounts is one block's counts, each estimator counting the block as
// a message of its own, without its images (an image block counts 0).
type blockCounts struct {
	Kind   string // text, thinking, tool_use, tool_result, image, other
	Counts []int
}

// callCounts compares one call's billed prompt growth with the estimates.
type callCounts struct {
	// Message is the index of the call's assistant message.
	Message int
	// Prompt is the whole prompt the API billed (input + cache read +
	// cache write).
	Prompt int64
	// Compared says the call can be compared with the previous one: there
	// is one, and no compaction the agent recorded lies between them.
	Compared bool
	// Delta is Prompt minus the previous call's prompt, when Compared:
	// what the messages appended since cost (the previous response and
	// this turn), less what the API dropped. It is negative when the
	// prompt shrank.
	Delta int64
	// Appended holds each estimator's count of those messages.
	Appended []int
	// Dropped holds each estimator's count of the thinking the API left
	// out of this prompt that the previous one held: the thinking of the
	// turn that ended, when the call's model drops earlier thinking (see
	// dropsEarlierThinking).
	Dropped []int
	// Prefix holds each estimator's count of what the prompt holds of the
	// transcript: every message before the call, less the thinking the
	// API drops. Prompt − Prefix is what the transcript does not contain
	// (system prompt, tool schemas).
	Prefix []int
}

// Analyze counts every message and block of t with each estimator (the
// exact ones in parallel). No estimator counts an image's data as text:
// an image counts, against the bill, what the rule of the transcript's
// provider says (its first model's), and 0 where there is no
// rule or the image's size is unknown. A call whose
// prompt cannot be compared with the previous one — the first call, a
// call after a compaction the agent recorded — keeps its Prefix but is
// not Compared. A transcript read measured
// ([transcript.Transcript.Measured]) keeps no text to count: refused.
func Analyze(t *transcript.Transcript, ests []Estimator) (*Counts, error) {
	if t.Measured {
		return nil, fmt.Errorf("%s: read measured (transcript.Options.Measure), it holds no text to count", t.File)
	}
	c := &Counts{File: t.File, ID: t.ID, Format: t.Format, Messages: make([]messageCounts, len(t.Messages))}
	for _, e := range ests {
		c.Estimators = append(c.Estimators, e.Name())
	}
	rule := imagerule.OfTranscript(t)
	// The messages that hold images, as the estimators count them:
	// without their images, which count by the rule.
	text := map[int]*transcript.Message{}
	for i := range t.Messages {
		m := &t.Messages[i]
		mc := messageCounts{Index: i, Role: m.Role, NonASCII: nonASCIIShare(m), Counts: make([]int, len(ests)),
			Blocks: make([]blockCounts, len(m.Blocks))}
		for j, b := range m.Blocks {
			mc.Blocks[j] = blockCounts{Kind: blockKind(b.Type), Counts: make([]int, len(ests))}
			for _, im := range b.Images {
				n, ok := rule.Tokens(im)
				if !ok {
					mc.Unsized++
				}
				mc.Images++
				mc.ImageTokens += n
			}
		}
		if mc.Images > 0 {
			stripped := *m
			stripped.Blocks = m.WithoutImages()
			text[i] = &stripped
		}
		c.Messages[i] = mc
	}
	var wg sync.WaitGroup
	for k, e := range ests {
		count := func() {
			for i := range t.Messages {
				m, counted := &t.Messages[i], &t.Messages[i]
				if s, ok := text[i]; ok {
					counted = s
				}
				mc := &c.Messages[i]
				mc.Counts[k] = countNoOverhead(e, counted)
				for j, b := range m.Blocks {
					one := transcript.Message{Role: m.Role, Blocks: []transcript.Block{b}}
					if len(b.Images) > 0 {
						one.Blocks = one.WithoutImages()
					}
					mc.Blocks[j].Counts[k] = countNoOverhead(e, &one)
				}
			}
		}
		if e.Exact() {
			wg.Add(1)
			go func() { defer wg.Done(); count() }()
		} else {
			count()
		}
	}
	wg.Wait()
	// What each compaction's summary counts, for the prefix after it,
	// and the messages it kept.
	summaries := map[int]restart{}
	for _, cp := range t.Compactions {
		n := make([]int, len(ests))
		if cp.Summary != nil {
			for k, e := range ests {
				n[k] = countNoOverhead(e, cp.Summary)
			}
		}
		summaries[cp.Index] = restart{n, cp.Kept}
	}
	c.Calls = calls(t, c, summaries)
	return c, nil
}

func countNoOverhead(e Estimator, m *transcript.Message) int {
	if o, ok := e.(interface{ Overhead() Overhead }); ok && o.Overhead() != OverheadNone {
		e = MustNew(e.Name(), OverheadNone)
	}
	return e.CountMessage(m)
}

// calls pairs each call that carries usage with the counts of what its
// prompt holds. After a compaction the agent sent the summary instead of
// the history, so the prefix restarts from the summary's counts; after a
// rollback it sent the history without the turns undone. The
// thinking of each turn is counted apart, for the calls whose model drops
// it once a new turn starts.
// A restart is where a compaction restarts the prompt: its summary's
// count by estimator, and the messages before it kept.
type restart struct {
	summary []int
	kept    []int
}

func calls(t *transcript.Transcript, c *Counts, summaries map[int]restart) []callCounts {
	n := len(c.Estimators)
	w := &callWalk{t: t, c: c, n: n, prefix: make([]int, n), ended: make([]int, n), turn: make([]int, n), dropped: make([]int, n),
		gone: make([]bool, len(t.Messages))}
	for i := range t.Messages {
		if s, ok := summaries[i]; ok {
			w.restart(s)
		}
		w.rollBack(i)
		m := &t.Messages[i]
		if m.Role == transcript.RoleUser && !hasToolResult(m) {
			for k := range n {
				w.ended[k] += w.turn[k]
			}
			clear(w.turn)
		}
		if m.Role == transcript.RoleAssistant && m.Usage != nil && m.Usage.Prompt() > 0 {
			w.call(i, m)
		}
		if m.Role == transcript.RoleAssistant {
			w.thinking(i)
		}
		for k := range n {
			w.prefix[k] += c.Messages[i].withImages(k)
		}
	}
	return w.out
}

// A callWalk is [calls]' walk over a transcript's messages: the prompt's
// count by estimator so far, the thinking the model may drop, and the
// calls counted.
type callWalk struct {
	t      *transcript.Transcript
	c      *Counts
	n      int // estimators
	prefix []int
	// ended is the thinking of the turns that ended, turn that of the
	// current one (since the compaction, if any); dropped is what the
	// previous call's prompt left out.
	ended, turn, dropped []int
	out                  []callCounts
	prev                 *callCounts
	prevEnd              int // messages before prevEnd are in the previous call's prompt or response
	// compacted: the prompt restarted since the previous call, which the
	// next call is not compared with.
	compacted bool
	gone      []bool // dropped by a rollback
}

// restart starts the prompt again from a compaction's summary and the
// messages it kept.
func (w *callWalk) restart(s restart) {
	w.compacted = true
	copy(w.prefix, s.summary)
	for _, j := range s.kept {
		for k := range w.n {
			w.prefix[k] += w.c.Messages[j].withImages(k)
		}
	}
	clear(w.ended)
	clear(w.turn)
	clear(w.dropped)
}

// rollBack takes the turns the user undid before message i out of the
// prompt: the next call is not compared with the one before.
func (w *callWalk) rollBack(i int) {
	for _, rb := range w.t.Rollbacks {
		if rb.Index != i {
			continue
		}
		w.compacted = true
		for j := rb.From; j < rb.Index; j++ {
			if w.gone[j] {
				continue // an earlier rollback's
			}
			w.gone[j] = true
			for k := range w.n {
				w.prefix[k] -= w.c.Messages[j].withImages(k)
			}
		}
	}
}

// call counts the call of message i, m: its prompt's count, and what
// was appended and dropped since the previous call's.
func (w *callWalk) call(i int, m *transcript.Message) {
	n := w.n
	drop := make([]int, n)
	if dropsEarlierThinking(m.Model) {
		copy(drop, w.ended)
	}
	cc := callCounts{Message: i, Prompt: m.Usage.Prompt(), Prefix: make([]int, n)}
	for k := range n {
		cc.Prefix[k] = w.prefix[k] - drop[k]
	}
	if w.prev != nil && !w.compacted {
		cc.Compared = true
		cc.Delta = cc.Prompt - w.prev.Prompt
		cc.Appended, cc.Dropped = make([]int, n), make([]int, n)
		for j := w.prevEnd; j < i; j++ {
			for k := range n {
				cc.Appended[k] += w.c.Messages[j].withImages(k)
			}
		}
		for k := range n {
			cc.Dropped[k] = drop[k] - w.dropped[k]
		}
	}
	w.out = append(w.out, cc)
	w.prev, w.prevEnd, w.compacted = &w.out[len(w.out)-1], i, false
	w.dropped = drop
}

// thinking adds the thinking of assistant message i to the turn's.
func (w *callWalk) thinking(i int) {
	for _, b := range w.c.Messages[i].Blocks {
		if b.Kind == string(transcript.BlockThinking) {
			for k := range w.n {
				w.turn[k] += b.Counts[k]
			}
		}
	}
}

func hasToolResult(m *transcript.Message) bool {
	for _, b := range m.Blocks {
		if b.Type == transcript.BlockToolResult {
			return true
		}
	}
	return false
}

func blockKind(t transcript.BlockType) string {
	switch t {
	case transcript.BlockText, transcript.BlockThinking, transcript.BlockToolUse, transcript.BlockToolResult, transcript.BlockImage:
		return string(t)
	}
	return "other"
}

func nonASCIIShare(m *transcript.Message) float64 {
	all, non := 0, 0
	for _, b := range m.Blocks {
		for _, s := range []string{b.Text, string(b.Input)} {
			for _, r := range s {
				all++
				if r > 127 {
					non++
				}
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(non) / float64(all)
}

// ErrorStats summarizes a heuristic's relative error against an exact
// count, over the samples (messages or blocks) whose exact count is not 0.
// Percentages are (heuristic − exact) / exact × 100: negative means the
// heuristic under-counts.
type ErrorStats struct {
	Heuristic string  `json:"heuristic"`
	Exact     string  `json:"exact"`
	Samples   int     `json:"samples"`
	MeanPct   float64 `json:"mean_signed_pct"`
	MeanAbs   float64 `json:"mean_abs_pct"`
	P50Abs    float64 `json:"p50_abs_pct"`
	P90Abs    float64 `json:"p90_abs_pct"`
	P99Abs    float64 `json:"p99_abs_pct"`
	MaxAbs    float64 `json:"max_abs_pct"`
	// TotalPct is the error of the sums: what a whole context would be off
	// by.
	TotalPct       float64 `json:"total_pct"`
	HeuristicTotal int64   `json:"heuristic_tokens"`
	ExactTotal     int64   `json:"exact_tokens"`
}

// errorStats computes the statistics of pairs (heuristic, exact).
func errorStats(h, x string, pairs [][2]int) ErrorStats {
	s := ErrorStats{Heuristic: h, Exact: x}
	var abs []float64
	var sum, sumAbs float64
	for _, p := range pairs {
		s.HeuristicTotal += int64(p[0])
		s.ExactTotal += int64(p[1])
		if p[1] == 0 {
			continue
		}
		e := float64(p[0]-p[1]) / float64(p[1]) * 100
		sum += e
		sumAbs += math.Abs(e)
		abs = append(abs, math.Abs(e))
	}
	s.Samples = len(abs)
	if s.ExactTotal > 0 {
		s.TotalPct = float64(s.HeuristicTotal-s.ExactTotal) / float64(s.ExactTotal) * 100
	}
	if len(abs) == 0 {
		return s
	}
	slices.Sort(abs)
	s.MeanPct = sum / float64(len(abs))
	s.MeanAbs = sumAbs / float64(len(abs))
	s.P50Abs, s.P90Abs, s.P99Abs, s.MaxAbs = percentile(abs, 50), percentile(abs, 90), percentile(abs, 99), abs[len(abs)-1]
	return s
}

// percentile returns the nearest-rank p-th percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(0, min(len(sorted)-1, rank-1))]
}

// scriptBuckets are the non-ASCII shares messages are grouped by: chars/4
// under-counts CJK text several-fold, so the error depends on the script.
var scriptBuckets = []struct {
	Name   string
	Lo, Hi float64
}{
	{"ascii (<1% non-ASCII)", 0, 0.01},
	{"1-10% non-ASCII", 0.01, 0.10},
	{"10-30% non-ASCII", 0.10, 0.30},
	{">=30% non-ASCII", 0.30, 1.01},
}

// Accuracy is the accuracy report of a set of transcripts (or of one).
type Accuracy struct {
	Messages int `json:"messages"`
	// Totals is each estimator's count of every message.
	Totals map[string]int64 `json:"totals"`
	// Errors compares each heuristic with each exact encoding, message by
	// message.
	Errors []ErrorStats `json:"errors"`
	// ByKind compares them block by block, per kind of block.
	ByKind []kindStats `json:"by_kind"`
	// ByScript compares them message by message, per share of non-ASCII.
	ByScript []scriptStats `json:"by_script"`
	// Billed compares each estimator with the prompt growth the API billed.
	Billed *Billed `json:"billed,omitempty"`
	// Images counts the images of the messages, which Totals and the
	// comparisons with exact counts leave out and the comparisons with
	// the bill count by their providers' rules.
	Images *imageTotals `json:"images,omitempty"`
}

// imageTotals counts images: how many, what they count by their
// providers' documented rules, and how many no rule could count.
type imageTotals struct {
	Images  int   `json:"images"`
	Tokens  int64 `json:"tokens"`
	Unsized int   `json:"unsized"`
}

// kindStats is ErrorStats over one kind of block.
type kindStats struct {
	Kind string `json:"kind"`
	ErrorStats
}

// scriptStats is ErrorStats over messages of one script bucket.
type scriptStats struct {
	Bucket string `json:"bucket"`
	ErrorStats
}

// Billed compares estimates with billed usage over the calls that can be
// compared (see [Analyze]). A compared call whose billed prompt did not
// grow — most often because the API dropped the thinking of the turn
// that ended — cannot be compared by itself: it is counted in Shrank and
// left out of Ratio and MeanAbsPct, and comes back in NetRatio, which
// compares the whole growth with the estimate less the thinking dropped.
type Billed struct {
	// Calls are the compared calls whose prompt grew, BilledTokens the sum
	// of their growth.
	Calls        int   `json:"calls"`
	BilledTokens int64 `json:"billed_tokens"`
	// Shrank counts the compared calls whose billed prompt did not grow,
	// ShrankTokens by how much it shrank in all.
	Shrank       int   `json:"shrank_calls"`
	ShrankTokens int64 `json:"shrank_tokens"`
	// Growth is the sum of every compared call's growth, shrinking ones
	// included: BilledTokens − ShrankTokens.
	Growth     int64            `json:"growth_tokens"`
	Estimators []billedEstimate `json:"estimators"`
}

// billedEstimate is one estimator against billed usage.
type billedEstimate struct {
	Estimator string `json:"estimator"`
	// Tokens is the estimator's count of the messages appended before the
	// calls whose prompt grew.
	Tokens int64 `json:"tokens"`
	// Ratio is BilledTokens / Tokens: how many billed tokens one estimated
	// token stands for, over the calls whose prompt grew.
	Ratio float64 `json:"billed_per_estimated"`
	// MeanAbsPct is the mean over those calls of |estimate − billed| /
	// billed.
	MeanAbsPct float64 `json:"mean_abs_pct"`
	// DroppedThinking is the estimator's count of the thinking the API
	// dropped over every compared call (see dropsEarlierThinking); the
	// transcript may hold a summary of a longer thinking, so the API may
	// have dropped more.
	DroppedThinking int64 `json:"dropped_thinking_tokens"`
	// NetTokens is the estimator's count of the messages appended before
	// every compared call, less DroppedThinking; NetRatio is Growth /
	// NetTokens, the ratio over every call.
	NetTokens int64   `json:"net_tokens"`
	NetRatio  float64 `json:"net_billed_per_estimated"`
	// Alpha is what `ctxbench cost` prices a policy's tokens with: the
	// growth-weighted median of billed over estimated growth,
	// over AlphaGrowths growths; 0 with fewer than 5.
	Alpha        float64 `json:"alpha,omitempty"`
	AlphaGrowths int     `json:"alpha_growths,omitempty"`
	// Unexplained counts the calls whose billed prompt shrank although
	// this estimator's count of what was appended, less the thinking
	// dropped, grew: something the transcript does not show left the
	// prompt (a client that cleared old tool results, say).
	// UnexplainedTokens is by how much those prompts shrank.
	Unexplained       int   `json:"unexplained_shrank_calls"`
	UnexplainedTokens int64 `json:"unexplained_shrank_tokens"`
	// Constant is the fitted per-session constant: the median over calls of
	// the billed prompt minus the estimate of what the prompt holds of the
	// transcript — the system prompt and tool schemas the transcript does
	// not contain. It is reported per transcript only.
	Constant *int64 `json:"constant_tokens,omitempty"`
}

// AccuracyOf measures how far the heuristics' counts in cs are from the
// exact ones, and every estimator from the billed usage; heuristics and
// exact name the estimators to compare (columns of cs). perSession adds
// the fitted constant, which only means something for one session.
func AccuracyOf(cs []*Counts, heuristics, exact []string, perSession bool) *Accuracy {
	a := &Accuracy{Totals: map[string]int64{}}
	if len(cs) == 0 {
		return a
	}
	col := map[string]int{}
	for k, name := range cs[0].Estimators {
		col[name] = k
	}
	type key struct{ group, h, x string }
	pairs := map[key][][2]int{}
	for _, c := range cs {
		for _, m := range c.Messages {
			a.Messages++
			for name, k := range col {
				a.Totals[name] += int64(m.Counts[k])
			}
			if m.Images > 0 {
				if a.Images == nil {
					a.Images = &imageTotals{}
				}
				a.Images.Images += m.Images
				a.Images.Tokens += int64(m.ImageTokens)
				a.Images.Unsized += m.Unsized
			}
			bucket := ""
			for _, b := range scriptBuckets {
				if m.NonASCII >= b.Lo && m.NonASCII < b.Hi {
					bucket = b.Name
				}
			}
			for _, h := range heuristics {
				for _, x := range exact {
					p := [2]int{m.Counts[col[h]], m.Counts[col[x]]}
					pairs[key{"", h, x}] = append(pairs[key{"", h, x}], p)
					pairs[key{"script:" + bucket, h, x}] = append(pairs[key{"script:" + bucket, h, x}], p)
					for _, b := range m.Blocks {
						kk := key{"kind:" + b.Kind, h, x}
						pairs[kk] = append(pairs[kk], [2]int{b.Counts[col[h]], b.Counts[col[x]]})
					}
				}
			}
		}
	}
	for _, h := range heuristics {
		for _, x := range exact {
			a.Errors = append(a.Errors, errorStats(h, x, pairs[key{"", h, x}]))
		}
	}
	for _, kind := range []string{"text", "thinking", "tool_use", "tool_result", "other"} {
		for _, h := range heuristics {
			for _, x := range exact {
				if p := pairs[key{"kind:" + kind, h, x}]; len(p) > 0 {
					a.ByKind = append(a.ByKind, kindStats{kind, errorStats(h, x, p)})
				}
			}
		}
	}
	for _, b := range scriptBuckets {
		for _, h := range heuristics {
			for _, x := range exact {
				if p := pairs[key{"script:" + b.Name, h, x}]; len(p) > 0 {
					a.ByScript = append(a.ByScript, scriptStats{b.Name, errorStats(h, x, p)})
				}
			}
		}
	}
	a.Billed = billed(cs, col, perSession)
	return a
}

func billed(cs []*Counts, col map[string]int, perSession bool) *Billed {
	b := &Billed{}
	names := cs[0].Estimators
	tokens, net, dropped := make([]int64, len(names)), make([]int64, len(names)), make([]int64, len(names))
	unexplained, unexplainedTokens := make([]int, len(names)), make([]int64, len(names))
	absSum := make([]float64, len(names))
	consts := make([][]int64, len(names))
	growths := make([][]family.Growth, len(names))
	compared := 0
	for _, c := range cs {
		for _, call := range c.Calls {
			for k := range names {
				consts[k] = append(consts[k], call.Prompt-int64(call.Prefix[k]))
			}
			if !call.Compared {
				continue
			}
			compared++
			b.Growth += call.Delta
			for k := range names {
				net[k] += int64(call.Appended[k] - call.Dropped[k])
				dropped[k] += int64(call.Dropped[k])
				growths[k] = append(growths[k], family.Growth{Billed: call.Delta, Estimated: int64(call.Appended[k] - call.Dropped[k])})
			}
			if call.Delta <= 0 {
				b.Shrank++
				b.ShrankTokens -= call.Delta
				for k := range names {
					if call.Delta < 0 && call.Appended[k] > call.Dropped[k] {
						unexplained[k]++
						unexplainedTokens[k] -= call.Delta
					}
				}
				continue
			}
			b.Calls++
			b.BilledTokens += call.Delta
			for k := range names {
				tokens[k] += int64(call.Appended[k])
				absSum[k] += math.Abs(float64(int64(call.Appended[k])-call.Delta)) / float64(call.Delta) * 100
			}
		}
	}
	if compared == 0 {
		return nil
	}
	for _, name := range names {
		k := col[name]
		be := billedEstimate{Estimator: name, Tokens: tokens[k], DroppedThinking: dropped[k], NetTokens: net[k],
			Unexplained: unexplained[k], UnexplainedTokens: unexplainedTokens[k]}
		if b.Calls > 0 {
			be.MeanAbsPct = absSum[k] / float64(b.Calls)
		}
		if tokens[k] > 0 {
			be.Ratio = float64(b.BilledTokens) / float64(tokens[k])
		}
		if net[k] > 0 {
			be.NetRatio = float64(b.Growth) / float64(net[k])
		}
		if alpha, n, ok := family.Alpha(growths[k]); ok {
			be.Alpha, be.AlphaGrowths = alpha, n
		}
		if perSession && len(consts[k]) > 0 {
			v := slices.Clone(consts[k])
			slices.Sort(v)
			m := v[len(v)/2]
			be.Constant = &m
		}
		b.Estimators = append(b.Estimators, be)
	}
	return b
}
