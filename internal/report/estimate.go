package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/family"
	"github.com/ctxbench/ctxbench/internal/rework"
	"github.com/ctxbench/ctxbench/internal/selfcheck"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// EstimateResult is `ctxbench estimate`'s document: the estimators'
// accuracy per transcript, over all of them and against the bill by
// model family, the self-checks and the re-work at the recorded
// compactions, and the notes that say what the numbers mean.
type EstimateResult struct {
	Heuristics   []string                 `json:"heuristics"`
	Exact        []string                 `json:"exact"`
	Transcripts  []TranscriptAccuracy     `json:"transcripts"`
	Overall      *estimate.Accuracy       `json:"overall"`
	ByModel      []ModelAccuracy          `json:"billed_by_model"`
	SkippedFiles []transcript.SkippedFile `json:"skipped_files"`
	// SelfChecks hold Claude Code's own count at the compactions the
	// transcripts recorded against the claude-code policy's.
	SelfChecks []EstimateSelfCheck `json:"self_checks,omitempty"`
	// Rework is, at each compaction the transcripts recorded, the work
	// done again in the calls after it against the calls before it.
	Rework []EstimateRework `json:"rework,omitempty"`
	Notes  []string         `json:"notes"`
}

// EstimateRework is a recorded compaction's re-work.
type EstimateRework struct {
	File string `json:"file"`
	rework.Compaction
}

// EstimateSelfCheck is a transcript's compaction self-check.
type EstimateSelfCheck struct {
	File  string `json:"file"`
	Agent string `json:"agent_version"`
	SelfCheck
}

// TranscriptAccuracy is a transcript's estimators against the exact
// counts and the bill.
type TranscriptAccuracy struct {
	File     string             `json:"file"`
	ID       string             `json:"id"`
	Format   transcript.Format  `json:"format"`
	Models   []string           `json:"models"`
	Accuracy *estimate.Accuracy `json:"accuracy"`
}

// ModelAccuracy is a model family's estimators against the bill.
type ModelAccuracy struct {
	Family      string           `json:"family"`
	Transcripts int              `json:"transcripts"`
	Billed      *estimate.Billed `json:"billed"`
}

// A SelfCheck is a claude-code run's compaction against the one the
// recorded Claude Code made ([selfcheck.CompactionCheck]).
type SelfCheck struct {
	Label string `json:"label"`
	selfcheck.CompactionCheck
	Agrees bool `json:"agrees"`
}

// SelfCheckText says whether a claude-code run compacted where the
// recorded Claude Code (its version agent) did, over one part of the
// session.
func SelfCheckText(c SelfCheck, agent string) string {
	if agent == "" {
		agent = "version not recorded"
	}
	from, same, again := "", "", ""
	if c.From > 0 {
		from, same, again = fmt.Sprintf("from its compaction before call %d ", c.From), "from the same history ", " again"
	}
	var did string
	switch {
	case c.Call < 0:
		did = "did not compact again"
	case c.Trigger == "manual":
		did = fmt.Sprintf("was compacted by hand before call %d (%s tokens)", c.Call, Int(c.PreTokens))
	default:
		did = fmt.Sprintf("compacted%s before call %d (%s, %s tokens)", again, c.Call, c.Trigger, Int(c.PreTokens))
	}
	policy := "did not compact by then"
	if c.Fired >= 0 {
		policy = fmt.Sprintf("compacted at call %d, counting %s", c.Fired, Int(c.Counted))
	}
	verdict := "differs"
	if c.Agrees {
		verdict = "agrees"
		if d := int64(c.Counted) - c.PreTokens; c.Fired >= 0 && c.Call >= 0 && d != 0 {
			verdict += fmt.Sprintf(" (count %+d)", d)
		}
	}
	line := fmt.Sprintf("self-check: Claude Code (%s) %s%s; %s %s%s: %s", agent, from, did, c.Label, same, policy, verdict)
	if s, err := window.Lookup("claude-code"); err == nil && s.NotModelled != nil {
		if why := s.NotModelled(agent); why != "" {
			line += " (" + why + ")"
		}
	}
	return line
}

// writeBilled writes the billed comparison by model family: the calls
// whose prompt grew, one ratio over them and one over every call less the
// thinking the API dropped, and what the shrinking calls were.
func writeBilled(w io.Writer, byModel []ModelAccuracy, x0 string) error {
	billed := Table{Header: []string{"model family", "transcripts", "calls", "billed tokens", "estimator", "estimated", "billed per estimated", "mean abs per call", "all calls, less thinking", "alpha"},
		Right: []bool{false, true, true, true, false, true, true, true, true, true}}
	for _, m := range byModel {
		for _, be := range m.Billed.Estimators {
			alpha := "-"
			if be.AlphaGrowths > 0 {
				alpha = ratio(be.Alpha)
			}
			billed.Rows = append(billed.Rows, []string{m.Family, Int(m.Transcripts), Int(m.Billed.Calls),
				Int(m.Billed.BilledTokens), be.Estimator, Int(be.Tokens), ratio(be.Ratio), absPct(be.MeanAbsPct), ratio(be.NetRatio), alpha})
		}
	}
	fmt.Fprintln(w, "\nAgainst billed usage: prompt growth between consecutive calls")
	if err := billed.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "alpha is the median of billed over estimated growth, weighted by growth, over %d or more growths: what ctxbench cost prices a policy's tokens with.\n", family.MinGrowths)
	var fallback []string
	for _, m := range byModel {
		if a, _, _, ok := family.ModelAlpha(m.Family, x0); ok {
			fallback = append(fallback, fmt.Sprintf("%s %.3f", m.Family, a))
		} else {
			fallback = append(fallback, m.Family+" 1")
		}
	}
	if len(fallback) > 0 {
		fmt.Fprintf(w, "With fewer growths, a model's alpha in %s is its tokenizer family's over the corpus: %s.\n", x0, strings.Join(fallback, ", "))
	}
	for _, m := range byModel {
		b := m.Billed
		for _, be := range b.Estimators {
			if be.Estimator != x0 {
				continue
			}
			if m.Family != "openai" && be.Ratio > 0 {
				fmt.Fprintf(w, "%s models do not use tiktoken: on these %s calls they billed %.3f tokens per %s token (%s).\n",
					m.Family, Int(b.Calls), be.Ratio, x0, signedPct((be.Ratio-1)*100))
			}
			if b.Shrank > 0 || be.DroppedThinking > 0 {
				fmt.Fprintf(w, "%s: %s of %s compared calls did not grow the billed prompt (%s tokens less in all) and are left out of the per-call ratio; "+
					"the API dropped %s %s tokens of thinking of turns that ended, and over all %s calls, less that thinking, the ratio is %s.\n",
					m.Family, Int(b.Shrank), Int(b.Calls+b.Shrank), Int(b.ShrankTokens),
					Int(be.DroppedThinking), x0, Int(b.Calls+b.Shrank), ratio(be.NetRatio))
			}
			if be.Unexplained > 0 {
				fmt.Fprintf(w, "%s: %s shrank by %s tokens with no thinking dropped to explain it: the prompt lost something the transcript still holds.\n",
					m.Family, Count(be.Unexplained, "call", "calls"), Int(be.UnexplainedTokens))
			}
		}
	}
	return nil
}

// ratio formats a billed-per-estimated ratio, "-" when there is none.
func ratio(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

func signedPct(v float64) string { return fmt.Sprintf("%+.1f%%", v) }
func absPct(v float64) string    { return fmt.Sprintf("%.1f%%", v) }

// WriteEstimate writes `ctxbench estimate`'s text: each estimator's
// total against the exact counts, the error per message, per block kind
// and per script, against the bill by model family, per transcript, the
// self-checks at the recorded compactions, the work done again after
// them, and the notes.
func WriteEstimate(w io.Writer, res *EstimateResult) error {
	x0 := res.Exact[0]
	for _, write := range []func(io.Writer, *EstimateResult, string) error{writeEstimateTotals, writeEstimateErrors, writeEstimatePer, writeEstimateChecks} {
		if err := write(w, res, x0); err != nil {
			return err
		}
	}
	return nil
}

// writeEstimateTotals writes each estimator's total over all messages
// against the exact ones, and the images no estimator counts.
func writeEstimateTotals(w io.Writer, res *EstimateResult, _ string) error {
	o := res.Overall
	fmt.Fprintf(w, "Token estimates: %s, %s; heuristics against exact BPE counts\n\n", Count(len(res.Transcripts), "transcript", "transcripts"), Count(o.Messages, "message", "messages"))

	totals := Table{Header: []string{"estimator", "tokens"}, Right: []bool{false, true}}
	for _, x := range res.Exact {
		totals.Header = append(totals.Header, "vs "+x)
		totals.Right = append(totals.Right, true)
	}
	for _, n := range append(append([]string(nil), res.Heuristics...), res.Exact...) {
		row := []string{n, Int(o.Totals[n])}
		for _, x := range res.Exact {
			row = append(row, signedPct(float64(o.Totals[n]-o.Totals[x])/float64(max(1, o.Totals[x]))*100))
		}
		totals.Rows = append(totals.Rows, row)
	}
	fmt.Fprintln(w, "Totals over all messages")
	if err := totals.WriteText(w); err != nil {
		return err
	}
	if im := o.Images; im != nil {
		fmt.Fprintf(w, "Images: %s, not in the totals (no estimator counts pixels); against the bill each counts its provider's rule, %s tokens in all",
			Int(im.Images), Int(im.Tokens))
		if im.Unsized > 0 {
			fmt.Fprintf(w, "; %s with no rule or of unknown size count 0", Int(im.Unsized))
		}
		fmt.Fprintln(w, ".")
	}
	return nil
}

// writeEstimateErrors writes the error per message, per block by kind
// and per message by script against x0, and against the bill by model.
func writeEstimateErrors(w io.Writer, res *EstimateResult, x0 string) error {
	o := res.Overall
	errs := Table{
		Header: []string{"heuristic", "exact", "messages", "mean signed", "mean abs", "p50 abs", "p90 abs", "p99 abs", "max abs", "whole set"},
		Right:  []bool{false, false, true, true, true, true, true, true, true, true},
	}
	for _, s := range o.Errors {
		errs.Rows = append(errs.Rows, []string{s.Heuristic, s.Exact, Int(s.Samples), signedPct(s.MeanPct), absPct(s.MeanAbs),
			absPct(s.P50Abs), absPct(s.P90Abs), absPct(s.P99Abs), absPct(s.MaxAbs), signedPct(s.TotalPct)})
	}
	fmt.Fprintln(w, "\nError per message")
	if err := errs.WriteText(w); err != nil {
		return err
	}

	kinds := Table{Header: []string{"block kind", "heuristic", "blocks", "mean signed", "mean abs", "p90 abs", "whole set"},
		Right: []bool{false, false, true, true, true, true, true}}
	for _, s := range o.ByKind {
		if s.Exact == x0 {
			kinds.Rows = append(kinds.Rows, []string{s.Kind, s.Heuristic, Int(s.Samples), signedPct(s.MeanPct), absPct(s.MeanAbs), absPct(s.P90Abs), signedPct(s.TotalPct)})
		}
	}
	fmt.Fprintf(w, "\nError per block, by kind (against %s)\n", x0)
	if err := kinds.WriteText(w); err != nil {
		return err
	}

	scripts := Table{Header: []string{"script", "heuristic", "messages", "mean signed", "mean abs", "whole set"},
		Right: []bool{false, false, true, true, true, true}}
	for _, s := range o.ByScript {
		if s.Exact == x0 {
			scripts.Rows = append(scripts.Rows, []string{s.Bucket, s.Heuristic, Int(s.Samples), signedPct(s.MeanPct), absPct(s.MeanAbs), signedPct(s.TotalPct)})
		}
	}
	fmt.Fprintf(w, "\nError per message, by share of non-ASCII characters (against %s)\n", x0)
	if err := scripts.WriteText(w); err != nil {
		return err
	}

	if len(res.ByModel) > 0 {
		if err := writeBilled(w, res.ByModel, x0); err != nil {
			return err
		}
	}
	return nil
}

// writeEstimatePer writes each transcript's count with x0, chars4's
// error and its billed ratio.
func writeEstimatePer(w io.Writer, res *EstimateResult, x0 string) error {
	per := Table{Header: []string{"transcript", "format", "messages", x0, "chars4 vs " + x0, "billed calls", "billed per " + x0, "shrank", "all calls, less thinking", "constant (" + x0 + ")"},
		Right: []bool{false, false, true, true, true, true, true, true, true, true}}
	for _, t := range res.Transcripts {
		a := t.Accuracy
		row := []string{shortPath(t.File), string(t.Format), Int(a.Messages), Int(a.Totals[x0])}
		row = append(row, signedPct(a.Errors[0].TotalPct))
		if a.Billed != nil {
			for _, be := range a.Billed.Estimators {
				if be.Estimator == x0 {
					row = append(row, Int(a.Billed.Calls), ratio(be.Ratio), Int(a.Billed.Shrank), ratio(be.NetRatio), Int(*be.Constant))
				}
			}
		} else {
			row = append(row, "0", "-", "-", "-", "-")
		}
		per.Rows = append(per.Rows, row)
	}
	fmt.Fprintln(w, "\nPer transcript (the constant is the system prompt and tool schemas the transcript does not hold)")
	if err := per.WriteText(w); err != nil {
		return err
	}
	return nil
}

// writeEstimateChecks writes the self-checks at the recorded
// compactions, the work done again after them, and the notes.
func writeEstimateChecks(w io.Writer, res *EstimateResult, _ string) error {
	fmt.Fprintln(w)
	if len(res.SelfChecks) > 0 {
		fmt.Fprintln(w, "Claude Code's own count where it compacted, against ctxbench's claude-code policy")
		for _, c := range res.SelfChecks {
			fmt.Fprintf(w, "%s: %s\n", shortPath(c.File), SelfCheckText(c.SelfCheck, c.Agent))
		}
		fmt.Fprintln(w)
	}
	if len(res.Rework) > 0 {
		fmt.Fprintf(w, "Work done again after each recorded compaction: in the %d calls after it, tool calls that repeat one made before it (the same tool and input) and reads of a file read before it; in the %d calls before it, the same against the calls before them\n",
			rework.DefaultCalls, rework.DefaultCalls)
		for _, r := range res.Rework {
			fmt.Fprintf(w, "%s: %s\n", shortPath(r.File), reworkText(r.Compaction))
		}
		fmt.Fprintln(w)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(w, "Note: "+n)
	}
	return nil
}

// reworkText says what a compaction's windows repeated.
func reworkText(r rework.Compaction) string {
	what := "compaction"
	if r.Trigger != "" {
		what = r.Trigger + " compaction"
	}
	side := func(w rework.Window) string {
		return fmt.Sprintf("%s of %s tool calls repeated (%.1f%%), %s of %s reads of a file read before (%.1f%%) in %s calls",
			Int(w.Repeated), Int(w.ToolCalls), w.RepeatedShare()*100, Int(w.Reread), Int(w.Reads), w.RereadShare()*100, Int(w.Calls))
	}
	return fmt.Sprintf("%s %d (before message %d): after it %s; before it %s", what, r.Index+1, r.Message, side(r.After), side(r.Before))
}

// shortPath keeps the last two elements of a path, which are enough to
// tell transcripts apart in a table.
func shortPath(p string) string {
	dir, file := filepath.Split(p)
	dir = filepath.Base(filepath.Clean(dir))
	if dir == "." || dir == "/" {
		return file
	}
	return dir + "/" + file
}
