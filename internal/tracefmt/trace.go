// Package tracefmt writes and reads the trace of a replay (`ctxbench
// replay --trace`), one JSON line per call of a run with what pricing
// adds to it, and the steps `ctxbench replay --json` writes: a run's
// contexts as runs of ids and shared prefixes, so that they grow
// linearly with the calls.
package tracefmt

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

// traceLine is one line of the trace (see [WriteTrace]): the transcript,
// the policy and its parameters, then the step's fields, and the call's
// cost.
type traceLine struct {
	Transcript string        `json:"transcript"`
	Policy     string        `json:"policy"`
	Params     window.Values `json:"params"`
	*replay.Step
	// Context is the step's, the prefix it shares with the previous
	// step's written "^N" (it shadows Step.Context).
	Context window.IDs `json:"context"`
	CostUSD *float64   `json:"cost_usd,omitempty"`
	*cacheBreak
}

// minShared is the shortest shared prefix written as "^N".
const minShared = 2

// sharedPrefix returns cur with the prefix it shares with prev written
// "^N"; they are known to share their first known ids.
func sharedPrefix(prev, cur window.IDs, known int) window.IDs {
	n := min(known, len(prev), len(cur))
	for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
		n++
	}
	if n < minShared {
		return cur
	}
	return append(window.IDs{"^" + strconv.Itoa(n)}, cur[n:]...)
}

type cacheBreak struct {
	Index    int     `json:"cache_break"`
	Rebilled int64   `json:"cache_rebilled_tokens"`
	CostUSD  float64 `json:"cache_break_cost_usd"`
}

// A PricedCall is what pricing adds to a call's line of the trace
// (package cost makes them).
type PricedCall struct {
	// CostUSD is the call's cost, without the summary call its step may
	// make.
	CostUSD float64
	// Break says the call broke the provider's cache: BreakAt is the
	// index, in the context, of the first item that differs from what the
	// previous call to the same model sent while its cache was warm;
	// Rebilled the tokens sent before that the call wrote again after it,
	// and BreakCostUSD what that cost over reading them.
	Break        bool
	BreakAt      int
	Rebilled     int64
	BreakCostUSD float64
}

// WriteTrace writes one JSON object per call of run, one per line.
// priced, if not nil, is each call's cost, in step order (the engine
// does not price: package cost does).
//
// The trace is a stable contract: fields may be added, none may change
// meaning. A line is
//
//	{"transcript": "…", "policy": "aidf", "params": {…}, "step": 12,
//	 "appended": ["m30", "m31"],
//	 "context": ["m0", "s1", "m24-m31"],          what is sent, in order ("^N": the previous line's first N)
//	 "evicted": ["m5", "m6"],                    dropped at this step
//	 "truncated": ["m9"],                        content cut at this step
//	 "summary": {"id": "s1", "covers": ["m1", …], "cached": false, "model": "…", "cost_usd": 0.001,
//	             "error": "", "input_tokens": 0, "output_tokens": 0},
//	 "fired": {"what": "auto-compact", "unit": "tokens", "trigger": 167000, "before": 167731, "after": 28565},
//	 "messages": 31, "tokens": {"cl100k_base": 9120},
//	 "recorded": {"input": 0, "cache_read": 0, "cache_write": 0, "output": 0},
//	 "retention": 0.93, "probes_asked": 6, "probes_kept": 2,
//	 "violations": [{"step": 12, "invariant": "cap", "detail": "…"}],
//	 "cost_usd": 0.0123,
//	 "cache_break": 2, "cache_rebilled_tokens": 30002, "cache_break_cost_usd": 0.1035}
//
// where m<i> is message i of the transcript (0-based) and s<k> the k-th
// synthetic message (a summary). Every list of ids (appended, context,
// evicted, truncated, covers, a violation's ids) writes a run of
// consecutive ids of one kind as one string, "m24-m25" for m24, m25:
// sending a whole history of n messages is ["m0-m<n-1>"], so a trace
// grows linearly with the calls. A context that starts with the previous
// line's (the previous call of the same run) starts with "^N", its first
// N ids: ["^41", "m42-m43"] after ["m0-m40", "s1"]. [ReadTrace] expands
// both; traces written before read the same. summary is absent when the step made
// none, fired when the policy's own trigger did not fire (what it
// counted, in its own unit, before and after; the headroom invariant
// reads it), recorded when the call recorded no usage, cost_usd when the run is
// not priced (never zero for "not priced"); violations is [] on a clean
// step. cache_break and the two fields after it are present when the call
// broke the provider's cache (see [PricedCall]), absent when it did not or
// the run is not priced. probes_asked and probes_kept are present at a
// call where the policy first stopped sending some messages verbatim and
// probes about them were asked (see [replay.Step.ProbesAsked]); absent, 0.
func WriteTrace(w io.Writer, run *replay.Run, priced []PricedCall) error {
	if priced != nil && len(priced) != len(run.Steps) {
		return fmt.Errorf("tracing %s: %d calls priced for %d steps", run.Transcript, len(priced), len(run.Steps))
	}
	bw := bufio.NewWriter(w)
	tw := NewTraceWriter(bw, run.Transcript, run.Policy, run.Params)
	for i := range run.Steps {
		var p *PricedCall
		if priced != nil {
			p = &priced[i]
		}
		if err := tw.Write(&run.Steps[i], p); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// A TraceWriter writes one run's trace a line at a time, as the steps
// are made ([replay.Options.Observe]): the same lines [WriteTrace] writes of
// the whole run, in memory that does not grow with the calls.
type TraceWriter struct {
	enc                *json.Encoder
	transcript, policy string
	params             window.Values
	// prev is the previous step's context: the engine never writes an
	// array a step's Context was given again, so it may be kept.
	prev     window.IDs
	prevStep int
}

// NewTraceWriter returns a writer of the trace of transcript's run
// under policy, with params, to w (which it does not buffer).
func NewTraceWriter(w io.Writer, transcript, policy string, params window.Values) *TraceWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &TraceWriter{enc: enc, transcript: transcript, policy: policy, params: params, prevStep: -1}
}

// Write writes step s's line, with what pricing adds to it (nil: the
// run is not priced).
func (tw *TraceWriter) Write(s *replay.Step, priced *PricedCall) error {
	l := traceLine{Transcript: tw.transcript, Policy: tw.policy, Params: tw.params, Step: s, Context: s.Context}
	if tw.prevStep >= 0 && s.Step == tw.prevStep+1 {
		l.Context = sharedPrefix(tw.prev, s.Context, s.Kept())
	}
	if priced != nil {
		l.CostUSD = &priced.CostUSD
		if priced.Break {
			l.cacheBreak = &cacheBreak{priced.BreakAt, priced.Rebilled, priced.BreakCostUSD}
		}
	}
	tw.prev, tw.prevStep = s.Context, s.Step
	return tw.enc.Encode(l)
}

// A TraceLine is one line of a trace as [ReadTrace] reads it: the
// step's lists expanded.
type TraceLine struct {
	Transcript string        `json:"transcript"`
	Policy     string        `json:"policy"`
	Params     window.Values `json:"params"`
	replay.Step
	CostUSD           *float64 `json:"cost_usd,omitempty"`
	CacheBreak        *int     `json:"cache_break,omitempty"`
	CacheRebilled     int64    `json:"cache_rebilled_tokens,omitempty"`
	CacheBreakCostUSD float64  `json:"cache_break_cost_usd,omitempty"`
}

// ReadTrace reads a trace [WriteTrace] wrote, calling fn with each line,
// its id lists expanded: a context's "^N" is the first N ids of the
// previous line's context, which must be the previous step of the same
// run. An error names the line.
func ReadTrace(r io.Reader, fn func(*TraceLine) error) error {
	dec := json.NewDecoder(r)
	var prev *TraceLine
	for line := 1; ; line++ {
		var l TraceLine
		if err := dec.Decode(&l); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("trace line %d: %w", line, err)
		}
		if len(l.Context) > 0 && strings.HasPrefix(l.Context[0], "^") {
			n, err := strconv.Atoi(l.Context[0][1:])
			switch {
			case err != nil || n < 0:
				return fmt.Errorf("trace line %d: context %.20q: want ^N", line, l.Context[0])
			case prev == nil || prev.Transcript != l.Transcript || prev.Policy != l.Policy || prev.Step.Step+1 != l.Step.Step || n > len(prev.Context):
				return fmt.Errorf("trace line %d: context %s refers to a previous step of the run that the line before is not", line, l.Context[0])
			}
			l.Context = append(slices.Clone(prev.Context[:n]), l.Context[1:]...)
		}
		if err := fn(&l); err != nil {
			return err
		}
		prev = &l
	}
}

// A StepEncoder writes a run's steps as JSON objects, one per line, in
// order (`ctxbench replay --json` writes its runs' steps so): a step's
// fields as [replay.Step]'s JSON, its context written as the trace writes it —
// runs of consecutive ids, and "^N" for the first N ids of the previous
// step's context — so that a run's steps grow linearly with its calls.
// [ExpandSteps] reads the contexts back.
type StepEncoder struct {
	enc      *json.Encoder
	prev     window.IDs
	prevStep int
}

// NewStepEncoder returns an encoder of one run's steps to w.
func NewStepEncoder(w io.Writer) *StepEncoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &StepEncoder{enc: enc, prevStep: -1}
}

// stepLine is a step with its context as the trace writes it.
type stepLine struct {
	*replay.Step
	Context window.IDs `json:"context"`
}

// Encode writes step s.
func (e *StepEncoder) Encode(s *replay.Step) error {
	l := stepLine{Step: s, Context: s.Context}
	if e.prevStep >= 0 && s.Step == e.prevStep+1 {
		l.Context = sharedPrefix(e.prev, s.Context, s.Kept())
	}
	e.prev, e.prevStep = s.Context, s.Step
	return e.enc.Encode(l)
}

// ExpandSteps expands the "^N" of the contexts of a run's steps as
// [StepEncoder] wrote them (read into [replay.Step]s, whose ids' runs are
// already expanded): "^N" is the first N ids of the previous step's
// context, which must be the step before.
func ExpandSteps(steps []replay.Step) error {
	for i := range steps {
		c := steps[i].Context
		if len(c) == 0 || !strings.HasPrefix(c[0], "^") {
			continue
		}
		n, err := strconv.Atoi(c[0][1:])
		switch {
		case err != nil || n < 0:
			return fmt.Errorf("step %d: context %.20q: want ^N", steps[i].Step, c[0])
		case i == 0 || steps[i-1].Step+1 != steps[i].Step || n > len(steps[i-1].Context):
			return fmt.Errorf("step %d: context %s refers to a step before it that is not there", steps[i].Step, c[0])
		}
		steps[i].Context = append(slices.Clone(steps[i-1].Context[:n]), c[1:]...)
	}
	return nil
}
