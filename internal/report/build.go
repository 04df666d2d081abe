package report

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/noprice"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A Builder assembles a [Report] from what ctxbench's batch pipeline makes
// of each transcript: [Builder.AddRuns] takes a transcript's runs (the
// pipeline's Runs), [Builder.AddEntry] a shard's entry, and
// [Builder.Finish] the sweep. It keeps what the report draws of each
// transcript, never the transcript.
type Builder struct {
	// Policies are the policies replayed, in the report's order.
	Policies []window.Labeled
	// Estimator names the estimator the tokens are counted with (default
	// cl100k_base): the pipeline's, whose
	// runs are refused otherwise.
	Estimator string
	// CountedWith names the estimators of each run's message counts
	// ([suitecheck.SessionRun.Counts]), in order, which hold
	// [AccuracyEstimators]. None: no accuracy plots.
	CountedWith []string
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
	// added, in place of the report (a shard's). [Builder.Finish]
	// returns its first error. EmitRows makes the entries hold their
	// rows.
	Emit     func(*Entry) error
	EmitRows bool
	// Swept says the transcripts are swept: an entry is emitted once its
	// part of the sweep is given ([Builder.AddSwept]), and an entry
	// added ([Builder.AddEntry]) must hold its part.
	Swept bool

	once     sync.Once
	report   *Report
	setupErr error
	// pending are the entries not yet emitted, by their place, until
	// their part of the sweep is given.
	mu      sync.Mutex
	pending map[int]*Entry
	emitErr error
}

// AccuracyEstimators are the estimators a report's accuracy plots draw:
// chars4's and gemini's counts against cl100k_base's.
func AccuracyEstimators() []string { return []string{"cl100k_base", "chars4", "gemini"} }

func (b *Builder) init() { b.once.Do(b.setup) }

func (b *Builder) setup() {
	if b.Estimator == "" {
		b.Estimator = "cl100k_base"
	}
	b.report = &Report{Estimator: b.Estimator, Notes: slices.Clone(b.Notes)}
	for _, p := range b.Policies {
		b.report.Policies = append(b.report.Policies, p.Label)
	}
	b.report.tally = newTally(b.report.Estimator, b.report.Policies)
	if len(b.CountedWith) > 0 {
		a := AccuracyEstimators()
		b.report.counts = NewPlotCounts(a[0], a[1:])
	}
	if b.SpoolTranscripts {
		b.report.spool, b.setupErr = newTranscriptSpool()
	}
	b.pending = map[int]*Entry{}
}

// AddRuns adds a transcript's runs, made by a pipeline of the Builder's
// policies: the pipeline's Runs.
func (b *Builder) AddRuns(sr *suitecheck.SessionRun) error {
	b.init()
	if b.setupErr != nil {
		return b.setupErr
	}
	e, err := b.entry(sr)
	if err != nil {
		return err
	}
	switch {
	case b.Emit == nil:
		return b.addEntry(e)
	case !b.Swept:
		return b.Emit(e)
	}
	b.mu.Lock()
	b.pending[sr.Index] = e // emitted with its sweep ([Builder.AddSwept])
	b.mu.Unlock()
	return nil
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
	w := EntryWarning{Text: err.Error(), NoModel: errors.Is(err, noprice.ErrNoModel)}
	if u := (*noprice.UnknownModelError)(nil); errors.As(err, &u) {
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
		cause = noprice.ErrNoModel
	case w.UnknownModel != "":
		cause = &noprice.UnknownModelError{Model: w.UnknownModel}
	}
	return &entryError{w.Text, cause}
}

type entryError struct {
	text  string
	cause error
}

func (e *entryError) Error() string { return e.text }
func (e *entryError) Unwrap() error { return e.cause }

// entry is what the report draws of sr.
func (b *Builder) entry(sr *suitecheck.SessionRun) (*Entry, error) {
	t, s := sr.Transcript, sr.Session
	if len(sr.Series) != len(b.Policies) || len(s.Runs) < len(b.Policies) {
		return nil, fmt.Errorf("%s: %d runs for the report's %d policies", t.File, len(sr.Series), len(b.Policies))
	}
	if sr.Estimator != b.report.Estimator {
		return nil, fmt.Errorf("%s: runs counted with %s, the report's tokens with %s", t.File, sr.Estimator, b.report.Estimator)
	}
	e := &Entry{}
	if b.report.counts != nil {
		var err error
		if e.Counts, err = b.report.counts.pick(sr.Counts, b.CountedWith); err != nil {
			return nil, fmt.Errorf("%s: %w", t.File, err)
		}
	}
	if s.NotPriced != nil {
		e.Warnings = append(e.Warnings, newEntryWarning(fmt.Errorf("%s: not priced: %w", t.File, s.NotPriced)))
	} else if s.BillNotPriced != nil {
		e.Warnings = append(e.Warnings, newEntryWarning(fmt.Errorf("%s: the recorded usage is not priced: %w", t.File, s.BillNotPriced)))
	}
	tr := transcriptResult(t, s)
	for k, lp := range b.Policies {
		pr := policyResult(lp, sr.Series[k], s.Runs[k], sr.NoneInputTokens, b.report.Estimator)
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
			se := sr.Series[k]
			sum := &s.Runs[k].Summary
			steps[k] = RunSteps{Tokens: se.Tokens, Retention: se.Retention, ProbesAsked: se.ProbesAsked,
				ProbesKept: se.ProbesKept, Loss: sum.ProbeLoss, Metrics: sum.Metrics()}
		}
		e.Runs, e.Calls = RowsOf(t, b.Policies, s.Costs[:len(b.Policies)], steps, s.Misses, s.MissTotals)
	}
	e.Transcript = tr
	return e, nil
}

// transcriptResult is what the report says of t itself: its model, its
// span of time, and its bill and cache misses where it is priced.
func transcriptResult(t *transcript.Transcript, s *cost.Session) TranscriptResult {
	tr := TranscriptResult{File: t.File, ID: t.ID, Parent: t.Parent, Format: t.Format, Calls: t.Calls, Models: t.Models}
	if len(s.Costs) > 0 {
		tr.Model = s.Costs[0].Model
	}
	if s.NotPriced != nil {
		tr.NotPriced = "no model recorded"
		if u := (*noprice.UnknownModelError)(nil); errors.As(s.NotPriced, &u) {
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
	if e, ok := s.CrossCheck.SessionError(t.Calls); ok {
		tr.ProjectionErrorPct = &e
	}
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
func policyResult(lp window.Labeled, se suitecheck.Series, run *replay.Run, none int64, est string) PolicyResult {
	pr := PolicyResult{Label: lp.Label, Summary: run.Summary, Messages: se.Messages, Tokens: se.Tokens, Retention: se.Retention,
		ProbesAsked: se.ProbesAsked, ProbesKept: se.ProbesKept, Events: se.Events}
	pr.ShareOfNone = metric.ShareOfNone(run.Summary.InputTokens[est], none)
	if g, ok := lp.Policy.(interface{ Guarantees() window.Guarantees }); ok {
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
// settings ([Builder.Emit]), as [Builder.AddRuns] adds a transcript's
// runs; its part of the sweep, which it must hold when Swept, is the
// pipeline's to add (its AddSwept).
func (b *Builder) AddEntry(e *Entry) error {
	b.init()
	if b.setupErr != nil {
		return b.setupErr
	}
	if b.Swept && e.Sweep == nil {
		return fmt.Errorf("%s: no part of the sweep", e.Transcript.File)
	}
	return b.addEntry(e)
}

// addEntry adds e's results, counts, rows and warnings to the report.
func (b *Builder) addEntry(e *Entry) error {
	r := b.report
	if r.counts != nil {
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
	r.facts().add(&tr)
	if r.spool != nil {
		var err error
		if tr, err = r.spool.put(&tr); err != nil {
			return err
		}
	}
	r.Transcripts = append(r.Transcripts, tr)
	return nil
}

// AddSwept emits the i-th transcript's entry with its part of the
// sweep: the pipeline's Swept, when Emit and Swept are set.
func (b *Builder) AddSwept(i int, st replay.SweptTranscript) {
	b.mu.Lock()
	e := b.pending[i]
	delete(b.pending, i)
	failed := b.emitErr != nil
	if e == nil && !failed {
		b.emitErr = fmt.Errorf("the sweep's transcript %d has no runs", i+1)
		failed = true
	}
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

// Finish returns the report, with sweep, the pipeline's, drawn as its
// heatmap (nil: none).
func (b *Builder) Finish(sweep *replay.SweepResult) (*Report, error) {
	b.init()
	if b.setupErr != nil {
		return nil, b.setupErr
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.emitErr != nil {
		return nil, b.emitErr
	}
	b.report.Sweep = sweep
	pe := b.report.ProjectionError()
	b.report.ProjectionErr = &pe
	return b.report, nil
}
