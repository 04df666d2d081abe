package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/jsonstream"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/internal/shortfall"
	"github.com/ctxbench/ctxbench/internal/tracefmt"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

type costCmd struct {
	inputFlags      `group:"input"`
	summarizerFlags `group:"summarizer"`
	Policies        []string `name:"policy" sep:"none" placeholder:"SPEC" help:"Policies to price, repeatable (none: the bill of the recorded usage alone, by session, model and day)."`
	PricingModel    string   `name:"pricing-model" placeholder:"M" help:"Price every call as this model, a what-if (default: each call at the model that made it)."`
	Prices          string   `placeholder:"FILE" help:"Prices: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	CacheSim        string   `name:"cache-sim" enum:",anthropic,openai,none" default:"" placeholder:"SIM" help:"Prompt-cache simulation: anthropic, openai or none (default: the model's provider's)."`
	SessionsPerDay  float64  `name:"sessions-per-day" placeholder:"N" help:"Project the cost per day and per 30 days for N sessions a day."`
	FitCalls        int      `name:"fit-calls" placeholder:"N" help:"Fit on the first N calls only and price the later ones without their bill; the cross-check compares them with it (an out-of-sample test; default: half the calls, for the cross-check alone)."`
	Estimator       string   `short:"e" default:"cl100k_base" placeholder:"NAME" help:"Estimator for the prompt sizes."`
	Since           string   `placeholder:"DAY" help:"Only the calls made on DAY (YYYY-MM-DD or YYYYMMDD, UTC) or after."`
	Until           string   `placeholder:"DAY" help:"Only the calls made on DAY or before."`
	ListModels      bool     `name:"list-models" help:"List the models of the price table and exit."`
	JSON            bool     `help:"Print one JSON document."`
	Parquet         string   `placeholder:"DIR" help:"Also write the policies' rows as Parquet into DIR: one per transcript and policy (runs.parquet), one per call (calls.parquet); docs/rows.md has the schema."`
	JSONL           string   `name:"jsonl" placeholder:"DIR" help:"Also write the same rows as JSON Lines into DIR (runs.jsonl, calls.jsonl)."`
	Shard           string   `placeholder:"K/N" help:"Price only shard K of N of the input files (split by the hash of each path) and write the shard's part to --partial; --parquet and --jsonl then only say the part holds the rows."`
	Partial         string   `placeholder:"FILE" help:"With --shard: the file the shard's part goes to."`
	Merge           []string `placeholder:"FILE" sep:"none" help:"Write what one run writes from the partials of every shard (no transcript is read): --merge a b c, with the flags each shard was given."`
	Paths           []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) (--samples: the embedded samples)."`
}

// costResult is the --json document.
type costResult struct {
	NotPriced  []unpriced              `json:"not_priced"`
	Projection []projection.Projection `json:"projection"`
	// Totals are each policy's cost over every session priced, its
	// spread over the sessions and its range by ProjectionError.
	Totals []projection.Spread `json:"policy_totals"`
	// ProjectionError is how close the projection lands on the sessions
	// priced (nil: no policy was replayed, as for the bill alone).
	ProjectionError *projection.ProjectionError `json:"projection_error,omitempty"`
	// Transcripts are the []*cost.Comparison, one per transcript priced,
	// read back from the spool they were written to as they were made.
	Transcripts *jsonstream.Stream `json:"transcripts"`
	// The bill of the recorded usage, totalled: by session (subagents
	// rolled in), by model, by day; duplicate calls are counted once.
	Sessions []*cost.SessionBill `json:"sessions"`
	ByModel  []cost.ModelCost    `json:"by_model"`
	ByDay    []cost.DayBill      `json:"by_day"`
	// The sums of each of the three: their total rows.
	SessionsTotal cost.BillTotal `json:"sessions_total"`
	ByModelTotal  cost.BillTotal `json:"by_model_total"`
	ByDayTotal    cost.BillTotal `json:"by_day_total"`
	Duplicates    int            `json:"duplicate_calls"`
	// OutOfRange counts the transcripts with no call in --since/--until.
	OutOfRange int `json:"out_of_range,omitempty"`
	// priced counts the transcripts priced.
	priced int
}

type unpriced struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// costRun is one run of the cost command: its options and what it found.
type costRun struct {
	c    *costCmd
	e    *env
	pols []window.Labeled
	// pipeline returns the batch the policies are replayed and priced
	// by, made once: the estimator's tables load when a transcript is
	// first replayed, and the bill alone counts no token.
	pipeline func() (*batch.Pipeline, error)
	// steps gathers the steps of the transcript replayed, for its rows.
	steps  []report.RunSteps
	copt   cost.Options
	ledger cost.Ledger
	res    costResult
	totals map[string]pricing.Money
	// sessions are the sessions priced, by their key: the parent's id for
	// a subagent's transcript, as the bill rolls it in; order their keys
	// as first seen, perSession each one's policies' costs.
	sessions   map[string]bool
	order      []string
	perSession map[string][]pricing.Money
	// errs are the cross-checks' errors of the transcripts that count in
	// the projection error ([cost.CrossCheck.SessionError]), replayed the number of
	// transcripts replayed.
	errs     []float64
	replayed int
	prun     *providerRun // the summarizer's run: its failures
	// digest is the digest of the flags that shape the results
	// ([batch.Digest]); shard writes a shard's partial (nil: not a shard).
	digest string
	shard  *batch.Writer
	// wantRows says the transcripts' rows are made (--parquet, --jsonl).
	wantRows bool
	// rows writes --parquet's and --jsonl's rows (nil: neither given).
	rows *costRows
	// spool holds --json's transcripts (nil: the text is written as
	// each is priced, and none is kept).
	spool *elemSpool
}

func (c *costCmd) Run(e *env) error {
	prices, err := loadPrices(c.Prices)
	if err != nil || c.ListModels {
		if err == nil {
			err = report.WritePrices(e.stdout, prices)
		}
		return err
	}
	r, err := c.setup(e, prices)
	if err != nil {
		return err
	}
	if (c.Parquet != "" || c.JSONL != "") && r.billOnly() {
		return fmt.Errorf("--parquet and --jsonl write the policies' rows: give --policy (recorded: the bill's)")
	}
	if err := r.setupShard(prices); err != nil {
		return err
	}
	if r.wantRows && r.shard == nil {
		if r.rows, err = newCostRows(&c.inputFlags, c.Parquet, c.JSONL, append(slices.Clone(c.Merge), c.Paths...)); err != nil {
			return err
		}
		done := false
		defer func() {
			if !done {
				r.rows.abort()
			}
		}()
		if err := r.run(); err != nil {
			return err
		}
		done = true
		return r.rows.close()
	}
	return r.run()
}

// setupShard checks --shard, --partial and --merge, and starts the
// shard's partial.
func (r *costRun) setupShard(prices pricing.Prices) error {
	c := r.c
	r.wantRows = c.Parquet != "" || c.JSONL != ""
	run, err := startShard(r.e, "cost", c.Shard, c.Partial, c.Merge, &c.inputFlags, c.Paths)
	if err != nil || run == nil && len(c.Merge) == 0 {
		return err
	}
	d := *c
	d.Shard, d.Partial, d.Merge, d.Paths = "", "", nil, nil
	d.Parquet, d.JSONL = "", "" // the rows, not where: wantRows
	r.digest = batch.Digest(struct {
		Flags  costCmd
		Prices pricing.Prices
	}{d, prices})
	r.shard = run
	return nil
}

// run prices every transcript, or merges the partials, and writes the
// result.
func (r *costRun) run() error {
	c, e := r.c, r.e
	var err error
	if c.JSON && r.shard == nil {
		if r.spool, err = newElemSpool(); err != nil {
			return err
		}
		defer r.spool.close()
	}
	paths := c.defaultPaths(e, c.Paths)
	// Read for the bill alone, a Claude Code line keeps no content.
	c.inputFlags.measure = r.billOnly() || r.recordedAlone()
	switch {
	case len(c.Merge) > 0:
		if paths, err = r.merge(); err != nil {
			return err
		}
	case r.shard != nil:
		defer r.shard.Close()
		return r.readShard(paths)
	default:
		if err := r.read(paths); err != nil {
			return err
		}
	}
	if r.res.priced == 0 && len(r.ledger.Sessions) == 0 && len(r.res.NotPriced) == 0 && r.res.OutOfRange == 0 {
		e.warn(fmt.Errorf("no session found in %s", strings.Join(paths, ", ")))
	}
	if n := len(r.sessions); n > 0 {
		pe := projection.MeasureProjectionError(r.errs)
		if r.replayed > 0 {
			r.res.ProjectionError = &pe
		}
		for k, lp := range r.pols {
			costs := make([]pricing.Money, 0, n)
			for _, id := range r.order {
				costs = append(costs, r.perSession[id][k])
			}
			spe := pe
			if lp.Policy.Name() == "recorded" && c.PricingModel == "" && c.CacheSim == "" {
				// The recorded policy at its own models is the bill: no range.
				spe = projection.ProjectionError{}
			}
			sp := projection.SpreadOf(lp.Label, costs, spe)
			r.res.Totals = append(r.res.Totals, sp)
			if c.SessionsPerDay > 0 {
				r.res.Projection = append(r.res.Projection, projection.Project(sp, c.SessionsPerDay, spe))
			}
		}
	}
	if err := r.prun.finish(e); err != nil {
		return err
	}
	r.res.Sessions, r.res.ByModel, r.res.ByDay, r.res.Duplicates = r.ledger.Sessions, r.ledger.ByModel, r.ledger.ByDay, r.ledger.Duplicates
	if r.res.SessionsTotal, r.res.ByModelTotal, r.res.ByDayTotal, err = r.ledger.Totals(); err != nil {
		return err
	}
	if c.JSON {
		var doc jsonstream.Document
		r.res.Transcripts = r.spool.stream(&doc)
		bw := bufio.NewWriterSize(e.stdout, 64<<10)
		if err := doc.Write(bw, r.res, e.indent); err != nil {
			return err
		}
		return bw.Flush()
	}
	if r.res.OutOfRange > 0 {
		e.warn(fmt.Errorf("left out %s with no call in --since/--until", report.Count(r.res.OutOfRange, "transcript", "transcripts")))
	}
	if err := r.writeLedger(e.stdout); err != nil {
		return err
	}
	if err := report.WriteReported(e.stdout, r.res.Sessions); err != nil {
		return err
	}
	if err := report.WritePolicyCosts(e.stdout, r.res.Totals); err != nil {
		return err
	}
	if err := report.WriteProjection(e.stdout, r.res.Projection, len(r.sessions), c.SessionsPerDay); err != nil {
		return err
	}
	return r.writeProjectionError(e.stdout)
}

// writeProjectionError says how close the projection lands on the
// sessions priced, or, for the recorded policy alone (its bill, no
// replay), that it was not measured.
func (r *costRun) writeProjectionError(w io.Writer) error {
	if r.res.priced == 0 {
		return nil
	}
	if pe := r.res.ProjectionError; pe != nil {
		_, err := fmt.Fprintln(w, report.ProjectionErrorText(*pe, r.c.FitCalls))
		return err
	}
	_, err := fmt.Fprintln(w, "projection error: not measured: --policy recorded alone is the bill, priced without a replay; add a policy (--policy none) to measure it")
	return err
}

// read prices the transcripts of paths.
func (r *costRun) read(paths []string) error {
	_, err := readPrepared(r.e, paths, r.c.inputFlags, true, r.prepare, r.transcript)
	return err
}

// A costPrepared is what prepare made of a transcript on the goroutine
// that read it: its whole entry, or the error making it, when it is
// priced from its bill; else what the pipeline prepared of it
// ([batch.Pipeline.Prepare]; the zero Prepared: the pipeline, or why
// there is none, is entry's to say).
type costPrepared struct {
	entry *costEntry
	err   error
	pr    batch.Prepared
}

// prepare prices a transcript from its bill, or makes its Replayer and
// its counts, on the goroutine that read it, while the ones before it
// are priced.
func (r *costRun) prepare(t *transcript.Transcript) costPrepared {
	if r.billOnly() || r.fromBill(t) {
		ce, err := r.entry(t, batch.Prepared{})
		return costPrepared{entry: ce, err: err}
	}
	p, err := r.pipeline()
	if err != nil {
		return costPrepared{}
	}
	return costPrepared{pr: p.Prepare(t)}
}

// readShard prices the shard's transcripts and writes its partial.
func (r *costRun) readShard(paths []string) error {
	read := 0
	skipped, err := readPrepared(r.e, paths, r.c.inputFlags, true, r.prepare, func(t *transcript.Transcript, p costPrepared) error {
		read++
		return r.transcript(t, p)
	})
	if err != nil {
		return err
	}
	if err := r.prun.finish(r.e); err != nil {
		return err
	}
	h := batch.Header{Command: "cost", Ctxbench: version, Config: r.digest, Rows: r.wantRows, Paths: paths, Read: read}
	if err := writeShard(r.shard, r.c.Partial, h, skipped); err != nil {
		return err
	}
	_, err = fmt.Fprintf(r.e.stdout, "ctxbench cost: shard %s, %s: wrote %s\n", r.shard.Shard(), report.Count(read, "transcript", "transcripts"), r.c.Partial)
	return err
}

// merge adds the entries of the partials --merge names, and returns the
// paths the shards read.
func (r *costRun) merge() ([]string, error) {
	c := r.c
	m, err := mergePartials(r.e, append(slices.Clone(c.Merge), c.Paths...), batch.Header{Command: "cost", Config: r.digest, Rows: r.wantRows}, func(line []byte) error {
		var ce costEntry
		if err := json.Unmarshal(line, &ce); err != nil {
			return fmt.Errorf("not an entry of ctxbench cost: %w", err)
		}
		return r.add(&ce)
	})
	if err != nil {
		return nil, err
	}
	return m.Paths, nil
}

// setup checks the flags and makes the run's options.
func (c *costCmd) setup(e *env, prices pricing.Prices) (*costRun, error) {
	if c.PricingModel != "" {
		if _, _, err := prices.Lookup(c.PricingModel); err != nil {
			return nil, notPriced(fmt.Errorf("--pricing-model: %w", err), "--prices")
		}
	}
	since, err := parseDay("--since", c.Since)
	if err != nil {
		return nil, err
	}
	until, err := parseDay("--until", c.Until)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(estimate.Names(), c.Estimator) {
		_, err := estimate.New(c.Estimator, estimate.OverheadNone)
		return nil, fmt.Errorf("--estimator: %w", err)
	}
	pols, err := window.ParseLabeled(c.Policies)
	if err != nil {
		return nil, fmt.Errorf("--policy: %w", err)
	}
	if len(pols) == 0 && c.SessionsPerDay > 0 {
		return nil, fmt.Errorf("--sessions-per-day projects the policies' costs: give one with --policy")
	}
	sum, prun, err := c.build(e)
	if err != nil {
		return nil, err
	}
	r := &costRun{c: c, e: e, pols: pols, totals: map[string]pricing.Money{}, sessions: map[string]bool{}, perSession: map[string][]pricing.Money{}, prun: prun,
		copt:   cost.Options{Prices: prices, Model: c.PricingModel, CacheSim: c.CacheSim, FitCalls: c.FitCalls},
		ledger: cost.Ledger{Prices: prices, Model: c.PricingModel, Since: since, Until: until},
		res:    costResult{NotPriced: []unpriced{}}}
	r.pipeline = sync.OnceValues(func() (*batch.Pipeline, error) {
		est, err := estimate.New(c.Estimator, estimate.OverheadNone)
		if err != nil {
			return nil, fmt.Errorf("--estimator: %w", err)
		}
		// Retention is measured for the rows alone.
		wantRows := c.Parquet != "" || c.JSONL != ""
		spec := batch.Spec{Policies: pols, Compare: true, NoSeries: true, Cost: r.copt,
			Replay: replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Prices: prices, NoSteps: true, NoRetention: !wantRows}}
		if wantRows {
			spec.Observe = func(*transcript.Transcript) func(int, *replay.Step, *tracefmt.PricedCall) error {
				var observe func(int, *replay.Step, *tracefmt.PricedCall) error
				observe, r.steps = observeRows(len(pols), c.Estimator)
				return observe
			}
		}
		return batch.New(spec), nil
	})
	return r, nil
}

// billOnly reports that no policy is priced: the run is the bill of the
// recorded usage alone, as ccusage's, with no token counted.
func (r *costRun) billOnly() bool { return len(r.pols) == 0 }

// recordedAlone reports that the one policy is recorded, priced from the
// bill: what the agent sent costs what it was billed, with no token
// counted ([cost.Recorded]).
func (r *costRun) recordedAlone() bool {
	c := r.c
	return len(r.pols) == 1 && r.pols[0].Policy.Name() == "recorded" && c.FitCalls == 0 && c.PricingModel == "" && c.CacheSim == ""
}

// fromBill reports that t's recorded run is its bill, not replayed: the
// recorded policy alone, on a transcript with a bill or a Claude Code
// session read without its content (whose bill is what its lines
// record, even none).
func (r *costRun) fromBill(t *transcript.Transcript) bool {
	return r.recordedAlone() && (hasBill(t) || t.Format == transcript.FormatClaudeCode)
}

// hasBill reports whether t records usage [cost.Recorded] can price: on
// a call, or for a model as a whole.
func hasBill(t *transcript.Transcript) bool {
	u := t.Usage()
	return u.Prompt() > 0 || u.Output > 0 || len(t.UnattributedByModel) > 0
}

// A costEntry is what cost adds of a transcript to its totals and
// outputs: made as the transcript is read ([costRun.entry]) and added
// in the walk's order ([costRun.add]), by the run that read it or, from
// the partials of a sharded run, by their merge.
type costEntry struct {
	OutOfRange bool `json:"out_of_range,omitempty"`
	// Ledger is the transcript's bill (nil: not priced).
	Ledger *cost.LedgerEntry `json:"ledger,omitempty"`
	// NotPriced says why the policies (or the bill alone) are not priced.
	NotPriced *unpriced      `json:"not_priced,omitempty"`
	Warnings  []entryWarning `json:"warnings,omitempty"`
	// Priced says the policies were priced: Totals are their costs, in
	// the order of the policies, and Session the session they count in,
	// File the transcript's.
	Priced  bool            `json:"priced,omitempty"`
	File    string          `json:"file,omitempty"`
	Session string          `json:"session,omitempty"`
	Totals  []pricing.Money `json:"totals,omitempty"`
	// Replayed says the policies were replayed (not priced from the bill
	// alone); ErrorPct is the cross-check's error when the transcript
	// counts in the projection error ([cost.CrossCheck.SessionError]).
	Replayed bool     `json:"replayed,omitempty"`
	ErrorPct *float64 `json:"error_pct,omitempty"`
	// Text or JSON is the transcript's part of the output.
	Text string          `json:"text,omitempty"`
	JSON json.RawMessage `json:"json,omitempty"`
	// Runs and Calls are its rows (--parquet, --jsonl).
	Runs  []report.RunRow  `json:"runs,omitempty"`
	Calls []report.CallRow `json:"calls,omitempty"`
}

// An entryWarning is a warning about a transcript and its hint.
type entryWarning struct {
	Text string `json:"text"`
	Hint string `json:"hint,omitempty"`
}

func newEntryWarning(err error) entryWarning {
	w := entryWarning{Text: err.Error()}
	var h *hinted
	if errors.As(err, &h) {
		w.Hint = h.hint
	}
	return w
}

func (w entryWarning) error() error { return withHint(errors.New(w.Text), w.Hint) }

// transcript prices t's policies and its bill, unless prepare did, and
// adds them (or, in a shard, writes them to the partial); p is what
// [costRun.prepare] made of t, or its zero value.
func (r *costRun) transcript(t *transcript.Transcript, p costPrepared) error {
	ce, err := p.entry, p.err
	if ce == nil && err == nil {
		ce, err = r.entry(t, p.pr)
	}
	if err != nil {
		return err
	}
	if r.shard != nil {
		for _, w := range ce.Warnings {
			r.e.warn(w.error())
		}
		return addToShard(r.shard, t.File, ce)
	}
	return r.add(ce)
}

// entry prices t's policies and its bill; pr is what the pipeline
// prepared of t, or the zero Prepared.
func (r *costRun) entry(t *transcript.Transcript, pr batch.Prepared) (*costEntry, error) {
	ce := &costEntry{}
	if !r.ledger.InRange(t) {
		ce.OutOfRange = true
		return ce, nil
	}
	if r.billOnly() {
		le, err := r.ledger.Entry(t)
		if pricing.NotPriced(err) {
			ce.NotPriced = &unpriced{File: t.File, Reason: err.Error()}
			ce.Warnings = append(ce.Warnings, newEntryWarning(notPriced(fmt.Errorf("%s: the recorded usage is not priced: %w", t.File, err), "--prices")))
			return ce, nil
		}
		ce.Ledger = le
		return ce, err
	}
	le, lerr := r.ledger.Entry(t)
	if lerr != nil && !pricing.NotPriced(lerr) {
		return nil, lerr
	}
	var cmpr *cost.Comparison
	var unpricedRun, unpricedBill error
	// steps are the replayed transcript's, for its rows; none for one
	// priced from its bill.
	var steps []report.RunSteps
	if r.fromBill(t) {
		var err error
		switch {
		case r.ledger.Since != "" || r.ledger.Until != "":
			// The ledger's entry holds the days' calls, not the bill.
			cmpr, err = cost.Recorded(t, r.pols[0].Label, r.copt)
		case lerr != nil:
			err = lerr
		default: // the ledger prices as the recorded run does (--pricing-model is not given)
			cmpr, err = le.Recorded(t, r.pols[0].Label, r.copt)
		}
		if pricing.NotPriced(err) {
			unpricedRun, err = err, nil
		}
		if err != nil {
			return nil, err
		}
	} else {
		p, err := r.pipeline()
		if err != nil {
			return nil, err
		}
		sr, err := p.Replay(r.e.ctx, t, pr)
		if err != nil {
			return nil, err
		}
		s := sr.Session
		cmpr, unpricedRun, unpricedBill = sr.Comparison, s.NotPriced, s.BillNotPriced
		steps, r.steps = r.steps, nil
		takeSummaries(steps, s.Runs)
		if o, short := shortfall.ShortOutput(t, p.Estimators()[0]); short {
			ce.Warnings = append(ce.Warnings, newEntryWarning(fmt.Errorf("%s: %s", t.File, report.ShortOutputText(o))))
		}
	}
	ce.Ledger = le
	if unpricedRun != nil {
		ce.NotPriced = &unpriced{File: t.File, Reason: unpricedRun.Error()}
		ce.Warnings = append(ce.Warnings, newEntryWarning(notPriced(fmt.Errorf("%s: not priced: %w", t.File, unpricedRun), "--pricing-model", "--prices")))
		return ce, nil
	}
	if unpricedBill != nil {
		ce.Warnings = append(ce.Warnings, newEntryWarning(notPriced(fmt.Errorf("%s: the recorded usage is not priced: %w", t.File, unpricedBill), "--prices")))
	}
	if r.wantRows {
		ce.Runs, ce.Calls = rowsOf(t, r.pols, cmpr, steps)
	}
	ce.Priced, ce.Session, ce.File = true, cmp.Or(t.Parent, t.ID), t.File
	for _, p := range cmpr.Policies {
		ce.Totals = append(ce.Totals, p.Total)
	}
	ce.Replayed = !r.fromBill(t)
	if e, ok := cmpr.CrossCheck.SessionError(t.Calls); ok {
		ce.ErrorPct = &e
	}
	if r.c.JSON {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as env.writeJSON
		if err := enc.Encode(cmpr); err != nil {
			return nil, err
		}
		ce.JSON = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		return ce, nil
	}
	var b strings.Builder
	if err := report.WriteComparison(&b, cmpr); err != nil {
		return nil, err
	}
	ce.Text = b.String()
	return ce, nil
}

// add adds a transcript's entry to the totals and the outputs.
func (r *costRun) add(ce *costEntry) error {
	for _, w := range ce.Warnings {
		r.e.warn(w.error())
	}
	if ce.OutOfRange {
		r.res.OutOfRange++
		return nil
	}
	if ce.Ledger != nil {
		if err := r.ledger.AddEntry(ce.Ledger); err != nil {
			return err
		}
	}
	if ce.NotPriced != nil {
		r.res.NotPriced = append(r.res.NotPriced, *ce.NotPriced)
	}
	if !ce.Priced {
		return nil
	}
	if r.rows != nil {
		if err := r.rows.write(ce.Runs, ce.Calls); err != nil {
			return err
		}
	}
	if len(ce.Totals) != len(r.pols) {
		return fmt.Errorf("%s: %d policies' totals, want %d", ce.File, len(ce.Totals), len(r.pols))
	}
	if !r.sessions[ce.Session] {
		r.order = append(r.order, ce.Session)
		r.perSession[ce.Session] = make([]pricing.Money, len(r.pols))
	}
	for k, lp := range r.pols {
		sum, err := r.totals[lp.Label].Plus(ce.Totals[k])
		if err != nil {
			return fmt.Errorf("%s: adding its cost under %s to the policy's total: %w", ce.File, lp.Label, err)
		}
		r.totals[lp.Label] = sum
		// The session's sum is at most the policy's, just checked.
		r.perSession[ce.Session][k] += ce.Totals[k]
	}
	r.res.priced++
	r.sessions[ce.Session] = true
	if ce.Replayed {
		r.replayed++
	}
	if ce.ErrorPct != nil {
		r.errs = append(r.errs, *ce.ErrorPct)
	}
	if r.spool != nil {
		return r.spool.add(ce.JSON)
	}
	_, err := io.WriteString(r.e.stdout, ce.Text)
	return err
}

// parseDay reads a day as ccusage takes it: YYYY-MM-DD or YYYYMMDD.
func parseDay(flag, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	for _, layout := range []string{time.DateOnly, "20060102"} {
		if d, err := time.Parse(layout, s); err == nil {
			return d.Format(time.DateOnly), nil
		}
	}
	return "", fmt.Errorf("%s %q: want YYYY-MM-DD or YYYYMMDD", flag, s)
}

// orDefault returns list, or def when list is empty.
func orDefault(list, def []string) []string {
	if len(list) == 0 {
		return def
	}
	return list
}

// writeLedger writes the bill of the recorded usage when more than one
// transcript was priced, or when the bill is all that was asked.
func (r *costRun) writeLedger(w io.Writer) error {
	if r.res.priced < 2 && !(r.billOnly() && len(r.res.Sessions) > 0) {
		return nil
	}
	return report.WriteLedger(w, &r.ledger)
}
