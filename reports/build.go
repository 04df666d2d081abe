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

	once   sync.Once
	report *Report
	// ownCounts and ownArtifacts say that each transcript has caches of
	// its own (Replay held none).
	ownCounts, ownArtifacts bool
	sweeper                 *replay.Sweeper // started by the first Add
	sweepErr                error
	setupErr                error
}

// Prepared is what [Builder.Prepare] made of a transcript, for
// [Builder.Add].
type Prepared struct {
	counts *estimate.Counts // the estimators' counts; nil without Estimators
	// caches are the transcript's replay caches (Counts, Artifacts).
	caches replay.Options
}

func (b *Builder) init() { b.once.Do(b.setup) }

func (b *Builder) setup() {
	if len(b.Replay.Estimators) == 0 {
		b.Replay.Estimators = []estimate.Estimator{estimate.MustNew("cl100k_base", estimate.OverheadNone)}
	}
	b.ownCounts, b.ownArtifacts = b.Replay.Counts == nil, b.Replay.Artifacts == nil
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
}

// Prepare does the part of [Builder.Add] that needs no other transcript
// — t's counts with every estimator, and the replay's counts
// ([replay.Prepare]) — on the calling goroutine: what a reader calls as
// soon as it has read t ([transcript.WalkPrepared]). It is safe for
// concurrent use, with Add too.
func (b *Builder) Prepare(t *transcript.Transcript) Prepared {
	b.init()
	p := Prepared{caches: b.Replay}
	if b.ownCounts {
		p.caches.Counts = estimate.NewCache()
	}
	if b.ownArtifacts {
		p.caches.Artifacts = replay.NewArtifactCache()
	}
	if len(b.Estimators) > 0 {
		p.counts = estimate.Analyze(t, b.Estimators)
	}
	replay.Prepare(t, p.caches)
	return p
}

// Add replays t under every policy and adds its results; p is what
// Prepare made of t, or the zero Prepared (Add then does it).
func (b *Builder) Add(ctx context.Context, t *transcript.Transcript, p Prepared) error {
	b.init()
	if b.setupErr != nil {
		return b.setupErr
	}
	r := b.report
	if p.caches.Counts == nil {
		p = b.Prepare(t)
	}
	if len(b.Estimators) > 0 {
		if err := r.counts.Add(p.counts); err != nil {
			return err
		}
	}
	ps := make([]window.Policy, len(b.Policies))
	for k, lp := range b.Policies {
		ps[k] = lp.Policy
	}
	est := r.Estimator
	// The runs keep no steps: each policy's per-call series are taken as
	// the steps are made (a run's on its own goroutine).
	series := make([]PolicyResult, len(b.Policies))
	ropt := p.caches
	ropt.SummaryOnly = true
	ropt.Observe = func(k int, st *replay.Step) error {
		pr := &series[k]
		if len(st.Evicted) > 0 || len(st.Truncated) > 0 || st.Summary != nil {
			pr.Events = append(pr.Events, st.Step)
		}
		pr.Messages = append(pr.Messages, st.Messages)
		pr.Tokens = append(pr.Tokens, st.Tokens[est])
		pr.Retention = append(pr.Retention, st.Retention)
		return nil
	}
	s, err := cost.Replay(ctx, t, ps, ropt, b.Cost)
	if err != nil {
		return err
	}
	if s.NotPriced != nil {
		b.Warnings = append(b.Warnings, fmt.Errorf("%s: not priced: %w", t.File, s.NotPriced))
	} else if s.BillNotPriced != nil {
		b.Warnings = append(b.Warnings, fmt.Errorf("%s: the recorded usage is not priced: %w", t.File, s.BillNotPriced))
	}
	none := replay.NoneInputTokens(t, b.Replay.Estimators[0], p.caches.Counts)
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
	if s.Billed != nil && s.NotPriced == nil {
		v := s.Billed.Total().USD()
		tr.BilledUSD = &v
		for _, m := range s.BilledPerCall {
			tr.Billed = append(tr.Billed, m.USD())
		}
		if m := s.MissTotals; m != nil && m.Calls > 0 {
			tr.CacheMisses, tr.Misses = m, s.Misses
			tr.Notes = append(tr.Notes, CacheMissText(*m, v))
		}
	}
	for k, lp := range b.Policies {
		run := s.Runs[k]
		pr := series[k]
		pr.Label, pr.Summary = lp.Label, run.Summary
		if none > 0 {
			pr.ShareOfNone = float64(run.Summary.InputTokens[est]) / float64(none)
		}
		if g, ok := lp.Policy.(window.Guarantor); ok {
			pr.MessageCap = g.Guarantees().MaxMessages
		}
		if s.Costs != nil {
			v := s.Costs[k].Total.USD()
			pr.CostUSD = &v
			pr.Cost = s.Costs[k].PerStepUSD()
			rc := s.Costs[k]
			bt := rc.BreakTotals
			pr.CacheBreaks, pr.Breaks = &bt, rc.Breaks
			if bt.Breaks > 0 {
				tr.Notes = append(tr.Notes, fmt.Sprintf("%s: %s", lp.Label, CacheBreakText(bt, rc.Breaks)))
			}
			for _, u := range rc.PerStepUsage {
				pr.CacheRead = append(pr.CacheRead, u.CacheRead)
				pr.CacheWrite = append(pr.CacheWrite, u.CacheWrite)
			}
		}
		tr.Runs = append(tr.Runs, pr)
	}
	if len(b.Rows) > 0 && s.Costs != nil {
		steps := make([]RunSteps, len(b.Policies))
		for k := range steps {
			steps[k] = RunSteps{Tokens: series[k].Tokens, Retention: series[k].Retention}
		}
		runs, calls := RowsOf(t, b.Policies, s.Costs[:len(b.Policies)], steps, s.Misses, s.MissTotals)
		for _, w := range b.Rows {
			if err := w.Add(runs, calls); err != nil {
				return err
			}
		}
	}
	r.tally.add(&tr)
	if r.spool != nil {
		if tr, err = r.spool.put(&tr); err != nil {
			return err
		}
	}
	r.Transcripts = append(r.Transcripts, tr)
	return b.sweep(ctx, t, p)
}

// sweep starts t's runs of the sweep, with t's caches (the counts its
// replay made).
func (b *Builder) sweep(ctx context.Context, t *transcript.Transcript, p Prepared) error {
	if b.Sweep == nil {
		return nil
	}
	if b.sweeper == nil {
		opt := b.Replay
		opt.Estimators = opt.Estimators[:1]
		sw, err := replay.NewSweeper(ctx, b.Sweep.Policy, b.Sweep.Base, b.Sweep.Grid, opt, 0, nil)
		if err != nil {
			return err
		}
		b.sweeper = sw
	}
	if err := b.sweeper.Add(t, replay.SweepCaches{Counts: p.caches.Counts, Artifacts: p.caches.Artifacts}); err != nil {
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
	return b.report, nil
}
