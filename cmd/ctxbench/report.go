package main

import (
	"context"
	"fmt"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// reportPolicies is the default policy set of the report.
var reportPolicies = []string{"none", "aidf", "aidf:max_messages=30,summarize_on_trim=true", "two-tier", "prune", "compress", "gemini-cli", "codex"}

// The report's sweep: aidf's cap against its preserved tail.
var reportSweep = []replay.GridKey{
	{Key: "max_messages", Values: []string{"10", "20", "30", "40", "60", "80"}},
	{Key: "preserve_first_n", Values: []string{"0", "1", "2", "4", "8"}},
}

type reportCmd struct {
	inputFlags
	summarizerFlags
	Out      string   `default:"ctxbench-report" placeholder:"DIR" help:"Output folder; an existing one is replaced only if ctxbench made it."`
	Policies []string `name:"policy" sep:"none" placeholder:"SPEC" help:"Policies to replay, repeatable (default: none, aidf, aidf:max_messages=30,summarize_on_trim=true, two-tier, prune, compress, gemini-cli, codex)."`
	Paths    []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: the embedded samples."`
}

var reportNotes = []string{
	"Responses are never regenerated: each policy changes what would have been sent, call by call; what came back is the recorded response.",
	"Retention is a proxy: the share of the file paths, shell commands, URLs, error lines and tool calls seen so far that the context still holds, summary text included.",
	"Costs simulate the provider's prompt cache on what each policy sends, priced at the embedded table (ctxbench cost --list-models); transcripts whose model has no price are not priced.",
	"Summaries are made by the mock summarizer unless --provider says otherwise: their text is a stand-in, their token counts are what a real call of that size reports.",
}

func (c *reportCmd) Run(e *env) error {
	specs := c.Policies
	if len(specs) == 0 {
		specs = reportPolicies
	}
	var pols []replay.LabeledPolicy
	for _, s := range specs {
		p, err := window.Parse(s)
		if err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
		pols = append(pols, replay.LabeledPolicy{Label: replay.Spec(p), Policy: p})
	}
	sum, _, err := c.build()
	if err != nil {
		return err
	}
	est := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	counts := estimate.NewCache()
	ropt := replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Counts: counts, Artifacts: replay.NewArtifactCache()}
	prices := replay.DefaultPrices()
	rep := &reports.Report{Estimator: est.Name(), Notes: reportNotes}
	for _, p := range pols {
		rep.Policies = append(rep.Policies, p.Label)
	}
	var ests []estimate.Estimator
	for _, n := range append(append([]string(nil), heuristicNames...), exactNames...) {
		ests = append(ests, estimate.MustNew(n, estimate.OverheadNone))
	}
	none, _ := window.Parse("none")
	recorded, _ := window.Parse("recorded")
	var all []*transcript.Transcript
	_, err = readInputs(e, c.Paths, c.inputFlags, true, func(t *transcript.Transcript) error {
		ctx := context.Background()
		all = append(all, t)
		rep.Counts = append(rep.Counts, estimate.Analyze(t, ests))
		// Every run of the transcript at once, side by side: none (the
		// baseline), recorded (the prompt constant), then the policies.
		ps := []window.Policy{none, recorded}
		for _, lp := range pols {
			ps = append(ps, lp.Policy)
		}
		runs, err := replay.ReplayAll(ctx, t, ps, ropt, 0)
		if err != nil {
			return err
		}
		base, recRun := runs[0], runs[1]
		constant := replay.Constant(recRun, est.Name())
		copt := replay.CostOptions{Prices: prices, Estimator: est, Counts: counts}
		tr := reports.TranscriptResult{File: t.File, ID: t.ID, Format: t.Format, Calls: t.Calls}
		priced := true
		if len(t.Models) == 0 {
			priced = false
		} else if _, name, err := prices.Lookup(t.Models[0]); err != nil {
			priced = false
		} else {
			tr.Model = name
			if t.Usage().Prompt() > 0 {
				b, err := replay.RecordedCost(t, prices, "")
				if err == nil {
					v := b.Total().USD()
					tr.BilledUSD = &v
					tr.Billed = billedPerCall(t, prices)
				}
			}
		}
		for k, lp := range pols {
			run := runs[2+k]
			pr := reports.PolicyResult{Label: lp.Label, Summary: run.Summary}
			if b := base.Summary.InputTokens[est.Name()]; b > 0 {
				pr.ShareOfNone = float64(run.Summary.InputTokens[est.Name()]) / float64(b)
			}
			if g, ok := lp.Policy.(window.Guarantor); ok {
				pr.MessageCap = g.Guarantees().MaxMessages
			}
			for _, s := range run.Steps {
				pr.Messages = append(pr.Messages, s.Messages)
				pr.Tokens = append(pr.Tokens, s.Tokens[est.Name()])
				pr.Retention = append(pr.Retention, s.Retention)
			}
			if priced {
				rc, err := replay.PriceRun(run, t, constant, copt)
				if err == nil {
					v := rc.Total.USD()
					pr.CostUSD = &v
					for _, m := range rc.PerStep {
						pr.Cost = append(pr.Cost, m.USD())
					}
				}
			}
			tr.Runs = append(tr.Runs, pr)
		}
		rep.Transcripts = append(rep.Transcripts, tr)
		return nil
	})
	if err != nil {
		return err
	}
	if len(all) > 0 {
		s, err := replay.Sweep(context.Background(), all, "aidf", map[string]string{"preserve_last_n": "4"}, reportSweep, ropt, 0, nil)
		if err != nil {
			return err
		}
		replay.SortPoints(s.Points, reportSweep)
		rep.Sweep = s
	}
	index, err := reports.WriteReport(c.Out, rep)
	if err != nil {
		return err
	}
	if err := writeReportSummary(e, rep); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "\nreport: %s\n", index)
	return err
}

// billedPerCall prices each recorded call.
func billedPerCall(t *transcript.Transcript, prices replay.Prices) []float64 {
	var out []float64
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Role != transcript.RoleAssistant {
			continue
		}
		v := 0.0
		if m.Usage != nil {
			if p, _, err := prices.Lookup(m.Model); err == nil {
				v = p.CallCost(*m.Usage).Total().USD()
			} else if p, _, err := prices.Lookup(t.Models[0]); err == nil {
				v = p.CallCost(*m.Usage).Total().USD()
			}
		}
		out = append(out, v)
	}
	return out
}

// writeReportSummary prints, per policy, the totals over all transcripts.
func writeReportSummary(e *env, r *reports.Report) error {
	t := reports.Table{Header: []string{"policy", "transcripts", "input tokens", "of none", "peak tokens", "mean retention", "violations", "cost (priced sessions)"},
		Right: []bool{false, true, true, true, true, true, true, true}}
	var baseline int64
	for _, tr := range r.Transcripts {
		for _, p := range tr.Runs {
			if p.Label == "none" {
				baseline += p.Summary.InputTokens[r.Estimator]
			}
		}
	}
	for k, label := range r.Policies {
		var in int64
		peak, nv, n := 0, 0, 0
		ret, cost := 0.0, 0.0
		for _, tr := range r.Transcripts {
			p := tr.Runs[k]
			in += p.Summary.InputTokens[r.Estimator]
			peak = max(peak, p.Summary.PeakTokens[r.Estimator])
			ret += p.Summary.MeanRetention
			for _, v := range p.Summary.Violations {
				nv += v
			}
			if p.CostUSD != nil {
				cost += *p.CostUSD
			}
			n++
		}
		share := "-"
		if baseline > 0 {
			share = fmt.Sprintf("%.1f%%", float64(in)/float64(baseline)*100)
		}
		t.Rows = append(t.Rows, []string{label, reports.Int(n), reports.Int(in), share, reports.Int(peak),
			fmt.Sprintf("%.1f%%", ret/float64(max(1, n))*100), reports.Int(nv), usd(cost)})
	}
	return t.WriteText(e.stdout)
}
