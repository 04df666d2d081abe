package reports

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A SweepSpec is the sweep a report draws as a heatmap: a policy, its
// fixed parameters and a grid of two keys.
type SweepSpec struct {
	Policy string
	Base   map[string]string
	Grid   []replay.GridKey
}

// A Builder assembles a [Report] transcript by transcript: [Builder.Add]
// measures a transcript's estimators, replays it under the policies and
// prices the runs ([cost.Replay]), and starts its runs of the sweep;
// [Builder.Finish] waits for the sweep. A transcript and its caches are
// let go once its runs are done: the report keeps what it draws.
type Builder struct {
	// Policies are the policies replayed, in the report's order.
	Policies []window.Labeled
	// Replay configures the replays; its first estimator counts the
	// report's tokens (default cl100k_base).
	Replay replay.Options
	// Cost configures the pricing.
	Cost cost.Options
	// Estimators are measured against each other for the accuracy plots,
	// which draw chars4's and gemini's counts against cl100k_base's.
	Estimators []estimate.Estimator
	// Sweep, if not nil, is swept over every transcript added.
	Sweep *SweepSpec
	// Notes are printed under the summary table.
	Notes []string
	// SpoolTranscripts keeps each transcript's results in a temporary
	// file, read back when the report is written, so that memory does
	// not grow with the transcripts; the report's Close lets it go.
	SpoolTranscripts bool
	// Warnings are what the report could not show: transcripts not
	// priced, each as an error naming the file.
	Warnings []error
	// Rows, when set, are given each priced transcript's rows
	// ([RowsOf]) as it is added.
	Rows []*RowsWriter
	// Emit, when set, is given each transcript's entry, in the order
	// added, in place of the report (a shard's): once its runs of the
	// sweep are done, on a goroutine of the sweep, one call at a time.
	// [Builder.Finish] returns its first error. EmitRows makes the
	// entries hold their rows.
	Emit     func(*Entry) error
	EmitRows bool

	once     sync.Once
	report   *Report
	sweeper  *replay.Sweeper // started by the first Add
	sweepErr error
	setupErr error
	// adds counts the transcripts added; pending are the entries not
	// yet emitted, by their place, until their sweep is done.
	adds    int
	mu      sync.Mutex
	pending map[int]*Entry
	emitErr error
}

// Prepared is what [Builder.Prepare] made of a transcript, for
// [Builder.Add].
type Prepared struct {
	// counts are the rows the accuracy plots draw of t's counts with
	// every estimator ([PlotCounts.rowsOf]), or countsErr why there are
	// none; nil without Estimators. The counts themselves are let go as
	// soon as they are made: on a long session they are tens of MB.
	counts    []int
	countsErr error
	// r replays the transcript, its counts made ahead, or rErr says why
	// it cannot.
	r    *replay.Replayer
	rErr error
}

func (b *Builder) init() { b.once.Do(b.setup) }

func (b *Builder) setup() {
	if len(b.Replay.Estimators) == 0 {
		b.Replay.Estimators = []estimate.Estimator{estimate.MustNew("cl100k_base", estimate.OverheadNone)}
	}
	b.report = &Report{Estimator: b.Replay.Estimators[0].Name(), Notes: slices.Clone(b.Notes)}
	for _, p := range b.Policies {
		b.report.Policies = append(b.report.Policies, p.Label)
	}
	b.report.tally = newTally(b.report.Estimator, b.report.Policies)
	if len(b.Estimators) > 0 {
		b.report.counts = NewPlotCounts("cl100k_base", []string{"chars4", "gemini"})
	}
	if b.SpoolTranscripts {
		b.report.spool, b.setupErr = newTranscriptSpool()
	}
	b.pending = map[int]*Entry{}
}

// Prepare does the part of [Builder.Add] that needs no other transcript
// — t's counts with every estimator, and the replay's counts
// ([replay.Replayer.Prepare]) — on the calling goroutine: what a reader calls as
// soon as it has read t ([transcript.WalkPrepared]). It is safe for
// concurrent use, with Add too.
func (b *Builder) Prepare(t *transcript.Transcript) Prepared {
	b.init()
	var p Prepared
	if p.r, p.rErr = replay.NewReplayer(t); p.rErr != nil {
		return p
	}
	if len(b.Estimators) > 0 {
		var c *estimate.Counts
		if c, p.countsErr = estimate.Analyze(t, b.Estimators); p.countsErr == nil {
			p.counts, p.countsErr = b.report.counts.rowsOf(c)
		}
	}
	p.r.Prepare(b.Replay)
	return p
}

// Add replays t under every policy and adds its results; p is what
// Prepare made of t, or the zero Prepared (Add then does it).
func (b *Builder) Add(ctx context.Context, t *transcript.Transcript, p Prepared) error {
	b.init()
	if b.setupErr != nil {
		return b.setupErr
	}
	if p.r == nil && p.rErr == nil {
		p = b.Prepare(t)
	}
	if p.rErr != nil {
		return p.rErr
	}
	e, err := b.entry(ctx, t, p)
	if err != nil {
		return err
	}
	if b.Emit == nil {
		if err := b.addEntry(e); err != nil {
			return err
		}
	} else if b.Sweep == nil {
		if err := b.Emit(e); err != nil {
			return err
		}
	} else {
		b.mu.Lock()
		b.pending[b.adds] = e // emitted with its sweep ([Builder.swept])
		b.mu.Unlock()
	}
	b.adds++
	return b.sweep(ctx, t, p)
}

// An Entry is what a transcript adds to a report: its results, the
// counts its accuracy plots draw, its rows, its part of the sweep and
// what the report could not show of it. A sharded report's shards give
// their entries to [Builder.Emit]; the merge adds them, in the order of
// their transcripts, with [Builder.AddEntry], and writes the report one
// run would.
type Entry struct {
	Transcript TranscriptResult `json:"transcript"`
	// Counts are its messages' counts, each the exact estimator's then
	// the heuristics' (none without Estimators).
	Counts   []int          `json:"counts,omitempty"`
	Warnings []EntryWarning `json:"warnings,omitempty"`
	Runs     []RunRow       `json:"runs,omitempty"`
	Calls    []CallRow      `json:"calls,omitempty"`
	// Sweep is its part of the sweep (nil: no sweep).
	Sweep *replay.SweptTranscript `json:"sweep,omitempty"`
}

// An EntryWarning is a transcript not priced, or whose bill is not: the
// warning's text, and the model that has no price, or that none was
// recorded.
type EntryWarning struct {
	Text         string `json:"text"`
	NoModel      bool   `json:"no_model,omitempty"`
	UnknownModel string `json:"unknown_model,omitempty"`
}

func newEntryWarning(err error) EntryWarning {
	w := EntryWarning{Text: err.Error(), NoModel: errors.Is(err, pricing.ErrNoModel)}
	if u := (*pricing.UnknownModelError)(nil); errors.As(err, &u) {
		w.UnknownModel = u.Model
	}
	return w
}

// err is the warning as the error it was: [pricing.NotPriced] says so
// of it, as of the first.
func (w EntryWarning) err() error {
	var cause error
	switch {
	case w.NoModel:
		cause = pricing.ErrNoModel
	case w.UnknownModel != "":
		cause = &pricing.UnknownModelError{Model: w.UnknownModel}
	}
	return &entryError{w.Text, cause}
}

type entryError struct {
	text  string
	cause error
}

func (e *entryError) Error() string { return e.text }
func (e *entryError) Unwrap() error { return e.cause }

// entry replays and prices t: its results, as Add adds them.
func (b *Builder) entry(ctx context.Context, t *transcript.Transcript, p Prepared) (*Entry, error) {
	if p.countsErr != nil {
		return nil, p.countsErr
	}
	e := &Entry{Counts: p.counts}
	ps := make([]window.Policy, len(b.Policies))
	for k, lp := range b.Policies {
		ps[k] = lp.Policy
	}
	// The runs keep no steps: each policy's per-call series are taken as
	// the steps are made (a run's on its own goroutine).
	series := make([]PolicyResult, len(b.Policies))
	ropt := b.Replay
	ropt.NoSteps = true
	ropt.Observe = seriesObserver(series, b.report.Estimator)
	s, err := cost.Replay(ctx, p.r, ps, ropt, b.Cost)
	if err != nil {
		return nil, err
	}
	if s.NotPriced != nil {
		e.Warnings = append(e.Warnings, newEntryWarning(fmt.Errorf("%s: not priced: %w", t.File, s.NotPriced)))
	} else if s.BillNotPriced != nil {
		e.Warnings = append(e.Warnings, newEntryWarning(fmt.Errorf("%s: the recorded usage is not priced: %w", t.File, s.BillNotPriced)))
	}
	tr := transcriptResult(t, s)
	none := p.r.NoneInputTokens(b.Replay.Estimators[0])
	for k, lp := range b.Policies {
		pr := policyResult(lp, series[k], s.Runs[k], none, b.report.Estimator)
		if s.Costs != nil {
			rc := s.Costs[k]
			priceResult(&pr, rc)
			if bt := rc.BreakTotals; bt.Breaks > 0 {
				tr.Notes = append(tr.Notes, fmt.Sprintf("%s: %s", lp.Label, CacheBreakText(bt, rc.Breaks)))
			}
		}
		tr.Runs = append(tr.Runs, pr)
	}
	if b.rows() && s.Costs != nil {
		steps := make([]RunSteps, len(b.Policies))
		for k := range steps {
			steps[k] = RunSteps{Tokens: series[k].Tokens, Retention: series[k].Retention, ProbesAsked: series[k].ProbesAsked,
				ProbesKept: series[k].ProbesKept, Loss: s.Runs[k].Summary.ProbeLoss}
		}
		e.Runs, e.Calls = RowsOf(t, b.Policies, s.Costs[:len(b.Policies)], steps, s.Misses, s.MissTotals)
	}
	e.Transcript = tr
	return e, nil
}

// seriesObserver returns the Observe that appends each step of run k to
// series[k]: the calls where the context was edited, and per call the
// messages, the tokens by est, the retention and the probes.
func seriesObserver(series []PolicyResult, est string) func(int, *replay.Step) error {
	return func(k int, st *replay.Step) error {
		pr := &series[k]
		if len(st.Evicted) > 0 || len(st.Truncated) > 0 || st.Summary != nil {
			pr.Events = append(pr.Events, st.Step)
		}
		pr.Messages = append(pr.Messages, st.Messages)
		pr.Tokens = append(pr.Tokens, st.Tokens[est])
		pr.Retention = append(pr.Retention, st.Retention)
		pr.ProbesAsked = append(pr.ProbesAsked, st.ProbesAsked)
		pr.ProbesKept = append(pr.ProbesKept, st.ProbesKept)
		return nil
	}
}

// transcriptResult is what the report says of t itself: its model, its
// span of time, and its bill and cache misses where it is priced.
func transcriptResult(t *transcript.Transcript, s *cost.Session) TranscriptResult {
	tr := TranscriptResult{File: t.File, ID: t.ID, Format: t.Format, Calls: t.Calls, Models: t.Models}
	if len(s.Costs) > 0 {
		tr.Model = s.Costs[0].Model
	}
	if s.NotPriced != nil {
		tr.NotPriced = "no model recorded"
		if u := (*pricing.UnknownModelError)(nil); errors.As(s.NotPriced, &u) {
			tr.NotPriced = "model " + u.Model
		}
	}
	for i := range t.Messages {
		if m := &t.Messages[i]; m.Role == transcript.RoleAssistant && !m.Time.IsZero() {
			if tr.Start.IsZero() {
				tr.Start = m.Time
			}
			tr.End = m.Time
		}
	}
	if s.Billed == nil || s.NotPriced != nil {
		return tr
	}
	v := s.Billed.Total().USD()
	tr.BilledUSD = &v
	for _, m := range s.BilledPerCall {
		tr.Billed = append(tr.Billed, m.USD())
	}
	if m := s.MissTotals; m != nil && m.Calls > 0 {
		tr.CacheMisses, tr.Misses = m, s.Misses
		tr.Notes = append(tr.Notes, CacheMissText(*m, v))
	}
	return tr
}

// policyResult is a policy's run of the transcript: its series, its
// summary, its share of none's input tokens (none: that total) and its
// cap.
func policyResult(lp window.Labeled, pr PolicyResult, run *replay.Run, none int64, est string) PolicyResult {
	pr.Label, pr.Summary = lp.Label, run.Summary
	pr.ShareOfNone = replay.ShareOfNone(run.Summary.InputTokens[est], none)
	if g, ok := lp.Policy.(window.Guarantor); ok {
		pr.MessageCap = g.Guarantees().MaxMessages
	}
	return pr
}

// priceResult adds a policy's priced run to its result: its cost, per
// call and by cache component, and its cache breaks.
func priceResult(pr *PolicyResult, rc *cost.RunCost) {
	v := rc.Total.USD()
	pr.CostUSD = &v
	pr.Cost = rc.PerStepUSD()
	bt := rc.BreakTotals
	pr.CacheBreaks, pr.Breaks = &bt, rc.Breaks
	for _, u := range rc.PerStepUsage {
		pr.CacheRead = append(pr.CacheRead, u.CacheRead)
		pr.CacheWrite = append(pr.CacheWrite, u.CacheWrite)
	}
}

// rows reports whether the entries hold their rows.
func (b *Builder) rows() bool { return len(b.Rows) > 0 || b.EmitRows }

// AddEntry adds a transcript's entry made by another Builder of the same
// settings ([Builder.Emit]), as [Builder.Add] adds a transcript.
func (b *Builder) AddEntry(ctx context.Context, e *Entry) error {
	b.init()
	if b.setupErr != nil {
		return b.setupErr
	}
	if err := b.addEntry(e); err != nil {
		return err
	}
	if b.Sweep == nil {
		return nil
	}
	if e.Sweep == nil {
		return fmt.Errorf("%s: no part of the sweep", e.Transcript.File)
	}
	if err := b.startSweep(ctx); err != nil {
		return err
	}
	return b.sweeper.AddSwept(*e.Sweep)
}

// addEntry adds e's results, counts, rows and warnings to the report.
func (b *Builder) addEntry(e *Entry) error {
	r := b.report
	if len(b.Estimators) > 0 {
		if err := r.counts.addRows(e.Counts); err != nil {
			return err
		}
	}
	for _, w := range e.Warnings {
		b.Warnings = append(b.Warnings, w.err())
	}
	for _, w := range b.Rows {
		if len(e.Runs) == 0 {
			break // not priced: no rows
		}
		if err := w.Add(e.Runs, e.Calls); err != nil {
			return err
		}
	}
	tr := e.Transcript
	r.tally.add(&tr)
	if r.spool != nil {
		var err error
		if tr, err = r.spool.put(&tr); err != nil {
			return err
		}
	}
	r.Transcripts = append(r.Transcripts, tr)
	return nil
}

// startSweep starts the sweep, once.
func (b *Builder) startSweep(ctx context.Context) error {
	if b.sweeper != nil {
		return nil
	}
	opt := b.Replay
	opt.Estimators = opt.Estimators[:1]
	sw, err := replay.NewSweeper(ctx, b.Sweep.Policy, b.Sweep.Base, b.Sweep.Grid, opt, 0, nil)
	if err != nil {
		return err
	}
	if b.Emit != nil {
		sw.Done = b.swept
	}
	b.sweeper = sw
	return nil
}

// swept emits the i-th transcript's entry with its part of the sweep.
func (b *Builder) swept(i int, st replay.SweptTranscript) {
	b.mu.Lock()
	e := b.pending[i]
	delete(b.pending, i)
	failed := b.emitErr != nil
	b.mu.Unlock()
	if failed {
		return
	}
	e.Sweep = &st
	if err := b.Emit(e); err != nil {
		b.mu.Lock()
		b.emitErr = err
		b.mu.Unlock()
	}
}

// sweep starts t's runs of the sweep, with t's Replayer (the counts its
// replay made).
func (b *Builder) sweep(ctx context.Context, t *transcript.Transcript, p Prepared) error {
	if b.Sweep == nil {
		return nil
	}
	if err := b.startSweep(ctx); err != nil {
		return err
	}
	if err := b.sweeper.Add(p.r); err != nil {
		_, b.sweepErr = b.sweeper.Result() // why it stopped
		return b.sweepErr
	}
	return nil
}

// Finish waits for the sweep over the transcripts added and returns the
// report.
func (b *Builder) Finish(ctx context.Context) (*Report, error) {
	b.init()
	if b.setupErr != nil {
		return nil, b.setupErr
	}
	if b.sweepErr != nil {
		return nil, b.sweepErr
	}
	if b.sweeper != nil {
		s, err := b.sweeper.Result()
		if err != nil {
			return nil, err
		}
		replay.SortPoints(s.Points, b.Sweep.Grid)
		b.report.Sweep = s
	}
	if b.emitErr != nil {
		return nil, b.emitErr
	}
	return b.report, nil
}
