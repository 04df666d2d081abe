package report

import (
	"fmt"
	"io"
	"slices"

	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/internal/printable"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/replay"
)

// ProbeText writes a probe score as a cell: the share of the session's
// probes not lost, and how many were lost of how many ("86% (31 of 220
// lost)").
func ProbeText(l probe.Loss) string {
	lost, of := l.Totals()
	return fmt.Sprintf("%.0f%% (%s of %s lost)", l.Score()*100, Int(lost), Int(of))
}

// ProbeNote says what the probe score and retention columns are.
const ProbeNote = "probes is the share of the session's probes (its files and commands, errors, the user's rules and numbers, each next step) " +
	"that the policy did not lose: a probe is lost when the policy stops sending the message it is about and the context it sent can no longer answer it, " +
	"judged exactly (ctxbench probes lists them); retention is the older proxy, the mean share of the files, commands, URLs, " +
	"errors and tool calls seen so far that the context still holds"

// TranscriptProbes are a transcript's probes, as `ctxbench probes`
// writes them: the whole history's, or under a policy those asked at
// each call and how many it kept and lost.
type TranscriptProbes struct {
	File   string `json:"file"`
	ID     string `json:"id"`
	Policy string `json:"policy,omitempty"`
	// Probes are the whole history's (no --policy); Calls, Score (the
	// probes asked and kept), Loss and ProbeScore the policy's.
	Probes     []probe.Probe       `json:"probes,omitempty"`
	Calls      []replay.CallProbes `json:"calls,omitempty"`
	Score      *probe.Score        `json:"score,omitempty"`
	Loss       *probe.Loss         `json:"loss,omitempty"`
	ProbeScore *float64            `json:"probe_score,omitempty"`
	// LLMScore is the LLM judge's (--judge llm).
	LLMScore *probe.LLMScore `json:"llm_score,omitempty"`
}

// WriteProbes writes a transcript's probes as a titled table, and under
// a policy the score per kind (and the LLM judge's, when it judged).
func WriteProbes(w io.Writer, tp TranscriptProbes) error {
	title := printable.String(tp.File) + " (" + printable.String(tp.ID) + ")"
	if tp.Policy == "" {
		fmt.Fprintf(w, "%s: %d probes of the whole history\n", title, len(tp.Probes))
		t := Table{Header: []string{"kind", "question", "answer", "message"}}
		for _, p := range tp.Probes {
			t.Rows = append(t.Rows, []string{string(p.Kind), shortCell(p.Question), shortCell(p.Answer), msgid.Of(p.Message)})
		}
		if err := t.WriteText(w); err != nil {
			return err
		}
		_, err := fmt.Fprintln(w)
		return err
	}
	fmt.Fprintf(w, "%s under %s: %d calls lost messages\n", title, tp.Policy, len(tp.Calls))
	t := Table{Header: []string{"call", "kind", "question", "answer", "kept"}}
	if tp.LLMScore != nil {
		t.Header = append(t.Header, "llm")
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for _, c := range tp.Calls {
		for _, p := range c.Probes {
			row := []string{fmt.Sprint(c.Step), string(p.Kind), shortCell(p.Question), shortCell(p.Answer), yes(p.Kept)}
			if p.LLM != nil {
				row = append(row, fmt.Sprintf("%s (accuracy %d)", yes(p.LLM.Kept), p.LLM.Grade.Accuracy))
			}
			t.Rows = append(t.Rows, row)
		}
		if d := c.Distractor; d != nil {
			t.Rows = append(t.Rows, []string{fmt.Sprint(c.Step), "distractor", shortCell(d.Asked), "not in the context", "", yes(d.Kept)})
		}
	}
	if len(t.Rows) > 0 {
		if err := t.WriteText(w); err != nil {
			return err
		}
	}
	s := Table{Header: []string{"kind", "asked", "kept", "share kept", "lost", "of the session's", "score"}, Right: []bool{false, true, true, true, true, true, true}}
	share := func(ok bool, v float64) string {
		if !ok {
			return ""
		}
		return fmt.Sprintf("%.0f%%", 100*v)
	}
	for _, k := range probe.Kinds() {
		asked, askedOK := tp.Score.Share(k)
		score, scoreOK := tp.Loss.KindScore(k)
		if !scoreOK {
			continue
		}
		s.Rows = append(s.Rows, []string{string(k), Int(tp.Score.Total[k]), Int(tp.Score.Kept[k]), share(askedOK, asked),
			Int(tp.Loss.Lost[k]), Int(tp.Loss.Of[k]), share(true, score)})
	}
	if len(s.Rows) > 0 {
		kept, total := tp.Score.Totals()
		lost, of := tp.Loss.Totals()
		all, ok := tp.Score.Overall()
		s.Rows = append(s.Rows, []string{"all", Int(total), Int(kept), share(ok, all), Int(lost), Int(of), share(true, *tp.ProbeScore)})
		if err := s.WriteText(w); err != nil {
			return err
		}
		fmt.Fprintln(w, "asked: at the calls where the policy first stopped sending a message; lost: asked where the context could not answer (each probe once); score: the share of the session's probes not lost")
	}
	if ls := tp.LLMScore; ls != nil {
		if err := writeLLMScore(w, ls); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// writeLLMScore writes the LLM judge's score: kept per kind, the mean of
// each dimension, the distractors answered right, the prompts' digest.
func writeLLMScore(w io.Writer, ls *probe.LLMScore) error {
	s := Table{Header: []string{"llm judge", "kept", "probes", "share"}, Right: []bool{false, true, true, true}}
	for _, k := range probe.Kinds() {
		if share, ok := ls.Share(k); ok {
			s.Rows = append(s.Rows, []string{string(k), Int(ls.Kept[k]), Int(ls.Total[k]), fmt.Sprintf("%.0f%%", 100*share)})
		}
	}
	if ls.Distractors > 0 {
		s.Rows = append(s.Rows, []string{"distractors", Int(ls.DistractorsRight), Int(ls.Distractors),
			fmt.Sprintf("%.0f%%", 100*float64(ls.DistractorsRight)/float64(ls.Distractors))})
	}
	if err := s.WriteText(w); err != nil {
		return err
	}
	if len(ls.MeanGrade) > 0 {
		g := Table{Header: []string{"dimension", "mean (0-5)"}, Right: []bool{false, true}}
		for _, d := range probe.Dimensions {
			g.Rows = append(g.Rows, []string{d, fmt.Sprintf("%.2f", ls.MeanGrade[d])})
		}
		if err := g.WriteText(w); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "llm judge prompts sha256 %s\n", ls.Prompts)
	return err
}

// shortCell is s printable, cut to 80 characters for a table (--json has
// it whole): in the middle, so that a path keeps its file name and a
// question its end ("What was last done to /home/…/live/session_live.ex?"),
// the end starting at a slash where one is near.
func shortCell(s string) string {
	r := []rune(printable.String(s))
	if len(r) <= 80 {
		return string(r)
	}
	tail := r[len(r)-40:]
	if k := slices.Index(tail, '/'); k >= 0 && k < 20 {
		tail = tail[k:]
	}
	return string(r[:79-len(tail)]) + "…" + string(tail)
}
