package main

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

type costCmd struct {
	inputFlags
	summarizerFlags `embed:"" prefix:"summary-"`
	ModelName       string   `name:"model" placeholder:"M" help:"Price every call as this model (default: each transcript's own)."`
	Prices          string   `placeholder:"FILE" help:"Prices: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	CacheSim        string   `name:"cache-sim" enum:",anthropic,openai,none" default:"" help:"Prompt-cache simulation: anthropic, openai or none (default: the model's provider's)."`
	SessionsPerDay  float64  `name:"sessions-per-day" placeholder:"N" help:"Project the cost per day and per 30 days for N sessions a day."`
	Policies        []string `name:"policy" sep:"none" placeholder:"SPEC" help:"Policies to price, repeatable (default: none, recorded, aidf:max_messages=30)."`
	Estimator       string   `short:"e" default:"cl100k_base" placeholder:"NAME" help:"Estimator for the prompt sizes."`
	ListModels      bool     `name:"list-models" help:"List the models of the price table and exit."`
	JSON            bool     `help:"Print one JSON document."`
	Paths           []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: the embedded samples."`
}

// costResult is the --json document.
type costResult struct {
	NotPriced   []unpriced         `json:"not_priced"`
	Projection  []cost.Projection  `json:"projection"`
	Transcripts []*cost.Comparison `json:"transcripts"`
}

type unpriced struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

func (c *costCmd) Run(e *env) error {
	prices, err := loadPrices(c.Prices)
	if err != nil {
		return err
	}
	if c.ListModels {
		return listModels(e.stdout, prices)
	}
	if c.ModelName != "" {
		if _, _, err := prices.Lookup(c.ModelName); err != nil {
			return notPriced(fmt.Errorf("--model: %w", err), "--prices")
		}
	}
	est, err := estimate.New(c.Estimator, estimate.OverheadNone)
	if err != nil {
		return fmt.Errorf("--estimator: %w", err)
	}
	pols, err := window.ParseLabeled(orDefault(c.Policies, defaultPolicies))
	if err != nil {
		return fmt.Errorf("--policy: %w", err)
	}
	sum, _, err := c.build(e)
	if err != nil {
		return err
	}
	ropt := replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Counts: estimate.NewCache(), Artifacts: replay.NewArtifactCache()}
	copt := cost.Options{Prices: prices, Model: c.ModelName, CacheSim: c.CacheSim}
	res := costResult{Transcripts: []*cost.Comparison{}, NotPriced: []unpriced{}}
	totals := map[string]pricing.Money{}
	_, err = readInputs(e, c.Paths, c.inputFlags, true, func(t *transcript.Transcript) error {
		cmpr, s, err := cost.Compare(e.ctx, t, pols, ropt, copt)
		if err != nil {
			return err
		}
		if s.NotPriced != nil {
			res.NotPriced = append(res.NotPriced, unpriced{File: t.File, Reason: s.NotPriced.Error()})
			e.warn(notPriced(fmt.Errorf("%s: not priced: %w", t.File, s.NotPriced), "--model", "--prices"))
			return nil
		}
		if s.BillNotPriced != nil {
			e.warn(notPriced(fmt.Errorf("%s: the recorded usage is not priced: %w", t.File, s.BillNotPriced), "--prices"))
		}
		for _, p := range cmpr.Policies {
			totals[p.Label] += p.Total
		}
		res.Transcripts = append(res.Transcripts, cmpr)
		if c.JSON {
			return nil
		}
		return writeCostText(e.stdout, cmpr)
	})
	if err != nil {
		return err
	}
	if n := len(res.Transcripts); c.SessionsPerDay > 0 && n > 0 {
		for _, lp := range pols {
			res.Projection = append(res.Projection, cost.Project(lp.Label, totals[lp.Label], n, c.SessionsPerDay))
		}
	}
	if c.JSON {
		return writeJSON(e.stdout, res)
	}
	return writeProjection(e.stdout, res.Projection, len(res.Transcripts), c.SessionsPerDay)
}

// orDefault returns list, or def when list is empty.
func orDefault(list, def []string) []string {
	if len(list) == 0 {
		return def
	}
	return list
}

func writeProjection(w io.Writer, proj []cost.Projection, sessions int, perDay float64) error {
	if len(proj) == 0 {
		return nil
	}
	t := reports.Table{Header: []string{"policy", "per session (mean)", fmt.Sprintf("per day (%g sessions)", perDay), "per 30 days"},
		Right: []bool{false, true, true, true}}
	for _, p := range proj {
		t.Rows = append(t.Rows, []string{p.Label, reports.USD(p.SessionUSD), reports.USD(p.DayUSD), reports.USD(p.MonthUSD)})
	}
	fmt.Fprintf(w, "Projection over the %d sessions above\n", sessions)
	return t.WriteText(w)
}

func writeCostText(w io.Writer, ct *cost.Comparison) error {
	usd := reports.USD
	head := ct.Policies[0]
	fmt.Fprintf(w, "%s (%s; priced as %s; cache: %s; %s tokens per call not in the transcript)\n", ct.File, ct.ID, head.Model, head.CacheSim, reports.Int(head.Constant))
	t := reports.Table{Header: []string{"policy", "input", "cache read", "cache write", "output", "summaries", "total", "saving vs none"},
		Right: []bool{false, true, true, true, true, true, true, true}}
	for _, p := range ct.Policies {
		t.Rows = append(t.Rows, []string{p.Label, usd(p.Calls.Input.USD()), usd(p.Calls.CacheRead.USD()), usd(p.Calls.CacheWrite.USD()),
			usd(p.Calls.Output.USD()), usd(p.Summaries.Total().USD()), usd(p.TotalUSD), fmt.Sprintf("%.1f%%", p.SavingVsNone*100)})
	}
	if b := ct.Billed; b != nil {
		t.Rows = append(t.Rows, []string{"billed (recorded usage)", usd(b.Input.USD()), usd(b.CacheRead.USD()), usd(b.CacheWrite.USD()),
			usd(b.Output.USD()), "", usd(b.TotalUSD), ""})
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	for _, a := range head.Assumptions {
		fmt.Fprintf(w, "assumption: %s\n", a)
	}
	if x := ct.CrossCheck; x != nil {
		fmt.Fprintf(w, "cross-check: the recorded policy simulated %s against %s billed (%+.1f%%); cache reads %s simulated, %s billed; cache writes %s simulated, %s billed\n",
			usd(x.SimulatedUSD), usd(x.BilledUSD), x.ErrorPct, reports.Int(x.CacheReadSim), reports.Int(x.CacheReadBilled), reports.Int(x.CacheWriteSim), reports.Int(x.CacheWriteBill))
		if b := ct.Billed; b.ReportedUSD > 0 {
			fmt.Fprintf(w, "the agent itself reported %s\n", usd(b.ReportedUSD))
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

func listModels(w io.Writer, prices pricing.Prices) error {
	t := reports.Table{Header: []string{"model", "provider", "input", "output", "cache read", "cache write", "max input", "source"},
		Right: []bool{false, false, true, true, true, true, true, false}}
	for _, n := range slices.Sorted(maps.Keys(prices)) {
		p := prices[n]
		src := p.Source
		if p.Date != "" {
			src += ", " + p.Date
		}
		t.Rows = append(t.Rows, []string{n, p.Provider, fmt.Sprintf("%g", p.Input), fmt.Sprintf("%g", p.Output), fmt.Sprintf("%g", p.CacheRead),
			fmt.Sprintf("%g", p.CacheWrite5m), reports.Int(p.MaxInput), src})
	}
	fmt.Fprintln(w, "USD per million tokens")
	return t.WriteText(w)
}
