package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/ctxbench/ctxbench/estimate"
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

type costTranscript struct {
	File       string       `json:"file"`
	ID         string       `json:"id"`
	Policies   []policyCost `json:"policies"`
	Billed     *billedCost  `json:"billed,omitempty"`
	CrossCheck *crossCheck  `json:"cross_check,omitempty"`
}

type policyCost struct {
	Label string `json:"label"`
	*replay.RunCost
	TotalUSD float64 `json:"total_usd"`
	// SavingVsNone is 1 − this total / none's total.
	SavingVsNone float64 `json:"saving_vs_none"`
}

type billedCost struct {
	replay.Cost
	TotalUSD float64 `json:"total_usd"`
	// ReportedUSD is the cost the agent itself reported, where it did.
	ReportedUSD float64 `json:"reported_usd,omitempty"`
}

// crossCheck compares the recorded policy's simulation with the bill.
type crossCheck struct {
	SimulatedUSD    float64 `json:"simulated_usd"`
	BilledUSD       float64 `json:"billed_usd"`
	ErrorPct        float64 `json:"error_pct"`
	CacheReadSim    int64   `json:"cache_read_simulated"`
	CacheReadBilled int64   `json:"cache_read_billed"`
	CacheWriteSim   int64   `json:"cache_write_simulated"`
	CacheWriteBill  int64   `json:"cache_write_billed"`
}

type unpricedTranscript struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

type projection struct {
	Label      string  `json:"label"`
	SessionUSD float64 `json:"per_session_usd"`
	DayUSD     float64 `json:"per_day_usd"`
	MonthUSD   float64 `json:"per_30_days_usd"`
}

func (c *costCmd) Run(e *env) error {
	prices := replay.DefaultPrices()
	if c.Prices != "" {
		var err error
		if prices, err = replay.LoadPrices(c.Prices); err != nil {
			return fmt.Errorf("--prices: %w", err)
		}
	}
	if c.ListModels {
		return listModels(e.stdout, prices)
	}
	if c.ModelName != "" {
		if _, _, err := prices.Lookup(c.ModelName); err != nil {
			return fmt.Errorf("--model: %w", err)
		}
	}
	est, err := estimate.New(c.Estimator, estimate.OverheadNone)
	if err != nil {
		return fmt.Errorf("--estimator: %w", err)
	}
	specs := c.Policies
	if len(specs) == 0 {
		specs = defaultPolicies
	}
	type labeled struct {
		label string
		p     window.Policy
	}
	var pols []labeled
	for _, s := range specs {
		p, err := window.Parse(s)
		if err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
		pols = append(pols, labeled{replay.Spec(p), p})
	}
	sum, _, err := c.build()
	if err != nil {
		return err
	}
	counts := estimate.NewCache()
	ropt := replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Counts: counts, Artifacts: replay.NewArtifactCache()}
	copt := replay.CostOptions{Prices: prices, Model: c.ModelName, CacheSim: c.CacheSim, Estimator: est, Counts: counts}
	none, _ := window.Parse("none")
	recorded, _ := window.Parse("recorded")
	out := []costTranscript{}
	unpriced := []unpricedTranscript{}
	totals := map[string]replay.Money{}
	sessions := 0
	_, err = readInputs(e, c.Paths, c.inputFlags, true, func(t *transcript.Transcript) error {
		ctx := context.Background()
		recRun, err := replay.Replay(ctx, t, recorded, ropt)
		if err != nil {
			return err
		}
		constant := replay.Constant(recRun, est.Name())
		noneRun, err := replay.Replay(ctx, t, none, ropt)
		if err != nil {
			return err
		}
		noneCost, err := replay.PriceRun(noneRun, t, constant, copt)
		if err != nil {
			// No model recorded, or no price for it: say so and go on.
			unpriced = append(unpriced, unpricedTranscript{File: t.File, Reason: err.Error()})
			if !c.JSON {
				fmt.Fprintf(e.stdout, "%s: not priced: %v\n\n", t.File, err)
			}
			return nil
		}
		ct := costTranscript{File: t.File, ID: t.ID}
		ps := make([]window.Policy, len(pols))
		for k, lp := range pols {
			ps[k] = lp.p
			if lp.p.Name() == "none" {
				ps[k] = nil // the none run above serves
			}
		}
		runs, err := replayPolicies(ctx, t, ps, ropt)
		if err != nil {
			return err
		}
		for k, lp := range pols {
			run := runs[k]
			if run == nil {
				run = noneRun
			}
			rc, err := replay.PriceRun(run, t, constant, copt)
			if err != nil {
				return err
			}
			pc := policyCost{Label: lp.label, RunCost: rc, TotalUSD: rc.Total.USD()}
			if n := noneCost.Total; n > 0 {
				pc.SavingVsNone = 1 - float64(rc.Total)/float64(n)
			}
			ct.Policies = append(ct.Policies, pc)
			totals[lp.label] += rc.Total
		}
		if t.Usage().Prompt() > 0 {
			model := c.ModelName
			if model == "" && len(t.Models) > 0 {
				model = t.Models[0]
			}
			billed, err := replay.RecordedCost(t, prices, model)
			if err != nil {
				return err
			}
			ct.Billed = &billedCost{Cost: billed, TotalUSD: billed.Total().USD(), ReportedUSD: t.ReportedCostUSD}
			sim, err := replay.PriceRun(recRun, t, constant, copt)
			if err != nil {
				return err
			}
			u := t.Usage()
			ct.CrossCheck = &crossCheck{SimulatedUSD: sim.Calls.Total().USD(), BilledUSD: billed.Total().USD(),
				CacheReadSim: sim.Usage.CacheRead, CacheReadBilled: u.CacheRead, CacheWriteSim: sim.Usage.CacheWrite, CacheWriteBill: u.CacheWrite}
			if b := billed.Total(); b > 0 {
				ct.CrossCheck.ErrorPct = (float64(sim.Calls.Total()) - float64(b)) / float64(b) * 100
			}
		}
		sessions++
		out = append(out, ct)
		if !c.JSON {
			return writeCostText(e.stdout, ct)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var proj []projection
	if c.SessionsPerDay > 0 && sessions > 0 {
		for _, lp := range pols {
			per := totals[lp.label].USD() / float64(sessions)
			proj = append(proj, projection{Label: lp.label, SessionUSD: per, DayUSD: per * c.SessionsPerDay, MonthUSD: per * c.SessionsPerDay * 30})
		}
	}
	if c.JSON {
		return writeJSON(e.stdout, map[string]any{"transcripts": out, "not_priced": unpriced, "projection": proj})
	}
	if len(proj) > 0 {
		t := reports.Table{Header: []string{"policy", "per session (mean)", fmt.Sprintf("per day (%g sessions)", c.SessionsPerDay), "per 30 days"},
			Right: []bool{false, true, true, true}}
		for _, p := range proj {
			t.Rows = append(t.Rows, []string{p.Label, usd(p.SessionUSD), usd(p.DayUSD), usd(p.MonthUSD)})
		}
		fmt.Fprintf(e.stdout, "Projection over the %d sessions above\n", sessions)
		return t.WriteText(e.stdout)
	}
	return nil
}

// usd formats dollars to 4 decimals with thousands separators.
func usd(v float64) string {
	whole := math.Trunc(v)
	frac := fmt.Sprintf("%.4f", v-whole)
	if frac == "1.0000" {
		whole++
		frac = "0.0000"
	}
	return "$" + reports.Int(int64(whole)) + frac[1:]
}

func writeCostText(w io.Writer, ct costTranscript) error {
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

func listModels(w io.Writer, prices replay.Prices) error {
	names := make([]string, 0, len(prices))
	for k := range prices {
		names = append(names, k)
	}
	sort.Strings(names)
	t := reports.Table{Header: []string{"model", "provider", "input", "output", "cache read", "cache write", "max input", "source"},
		Right: []bool{false, false, true, true, true, true, true, false}}
	for _, n := range names {
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

// replayPolicies replays t under the policies that are not nil, side by
// side, and returns the runs in their places (nil where the policy is).
func replayPolicies(ctx context.Context, t *transcript.Transcript, ps []window.Policy, opt replay.Options) ([]*replay.Run, error) {
	var some []window.Policy
	for _, p := range ps {
		if p != nil {
			some = append(some, p)
		}
	}
	done, err := replay.ReplayAll(ctx, t, some, opt, 0)
	if err != nil {
		return nil, err
	}
	runs := make([]*replay.Run, len(ps))
	k := 0
	for i, p := range ps {
		if p != nil {
			runs[i] = done[k]
			k++
		}
	}
	return runs, nil
}
