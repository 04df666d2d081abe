package suitecheck

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
)

// A Report is a result checked against a baseline: every case with its
// deltas, the warnings, and the baseline the result would record.
type Report struct {
	Cases    []Case
	Warnings []string
	// Current is the baseline an update writes: the result's cases.
	Current *Baseline
	// Strict fails a case on any change beyond tolerance.
	Strict bool
	// NoBaseline says there was none to compare with.
	NoBaseline bool
}

// Check compares res with base (nil: none) under cfg's tolerances: each
// case gets its deltas and parameter changes, the baseline's entries the
// suite no longer replays become Removed cases, and those it lacks are
// Missing. Run whole or merged from shards (internal/batch), the same cases give
// the same report.
func Check(cfg *Config, res *Result, base *Baseline, strict bool) *Report {
	rep := &Report{Warnings: res.Warnings, Strict: strict, NoBaseline: base == nil,
		Current: &Baseline{Estimator: res.Estimator, Entries: map[string]Entry{}}}
	seen := map[string]bool{}
	for _, c := range res.Cases {
		c.Deltas, c.ParamChanges, c.Baseline, c.Missing = nil, nil, nil, false
		k := c.Key()
		seen[k] = true
		rep.Current.Entries[k] = Entry{Policy: c.Name, Params: c.Params, Metrics: c.Metrics}
		if base != nil {
			if e, ok := base.Entries[k]; ok {
				c.Baseline = &e
				c.Deltas = Compare(e.Metrics, c.Metrics, cfg.Tolerance)
				c.ParamChanges = paramChanges(e, c)
			} else {
				c.Missing = true
			}
		}
		rep.Cases = append(rep.Cases, c)
	}
	if base != nil {
		for _, k := range slices.Sorted(maps.Keys(base.Entries)) {
			if !seen[k] {
				file, policy, _ := strings.Cut(k, " | ")
				e := base.Entries[k]
				rep.Cases = append(rep.Cases, Case{File: file, Policy: policy, Name: e.Policy, Params: e.Params, Baseline: &e, Removed: true})
			}
		}
	}
	slices.SortStableFunc(rep.Cases, func(a, b Case) int { return strings.Compare(a.Key(), b.Key()) })
	return rep
}

// paramChanges lists the parameters of c that differ from its entry's
// (an entry from before parameters were recorded lists none).
func paramChanges(e Entry, c Case) []ParamChange {
	if e.Params == nil {
		return nil
	}
	var out []ParamChange
	names := maps.Clone(e.Params)
	maps.Copy(names, c.Params)
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if e.Params[n] != c.Params[n] {
			out = append(out, ParamChange{Name: n, Old: e.Params[n], New: c.Params[n]})
		}
	}
	return out
}

// Failed returns how many cases fail.
func (r *Report) Failed() int {
	n := 0
	for i := range r.Cases {
		if r.Cases[i].Failed(r.Strict) {
			n++
		}
	}
	return n
}

// Blocking returns the cases an update must accept: those failing for a
// reason recording them would hide (see [Case.Blocking]).
func (r *Report) Blocking() []*Case {
	var out []*Case
	for i := range r.Cases {
		if r.Cases[i].Blocking() {
			out = append(out, &r.Cases[i])
		}
	}
	return out
}

// Improved returns how many cases have a metric better beyond its
// tolerance and nothing failing.
func (r *Report) Improved() int {
	n := 0
	for i := range r.Cases {
		c := &r.Cases[i]
		if !c.Failed(r.Strict) && slices.ContainsFunc(c.Deltas, func(d Delta) bool { return d.Verdict == Better }) {
			n++
		}
	}
	return n
}

// KnownViolations returns how many cases break invariants no more often
// than their baseline records: known, and passing.
func (r *Report) KnownViolations() int {
	n := 0
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Baseline != nil && len(c.Violations) > 0 && !slices.ContainsFunc(c.Deltas, func(d Delta) bool { return d.IsViolation() && d.Verdict == Worse }) {
			n++
		}
	}
	return n
}

// A Kind is what a row of the report says, worst first.
type Kind int

const (
	KindBudget Kind = iota
	KindRegression
	KindViolation
	KindMissing
	KindRemoved
	KindParam
	KindBetter
	KindWithin
)

func (k Kind) String() string {
	return [...]string{"budget", "regression", "violations", "missing", "removed", "parameter", "improvement", "within tolerance"}[k]
}

// Fails reports whether rows of the kind fail the check (under strict,
// improvements too).
func (k Kind) Fails(strict bool) bool {
	return k <= KindRemoved || strict && k == KindBetter
}

// A Row is one line of the report's table.
type Row struct {
	// File and Policy key the row's case; Shown names its policy with
	// its parameters ([Case.Shown]).
	File, Policy, Shown string
	Kind                Kind
	// Metric, Base and Now: the metric (a budget's name, a parameter's,
	// violations.INVARIANT) and its values; HasValues is false for rows
	// without numbers (missing, removed).
	Metric    string
	Base, Now float64
	HasValues bool
	// Pct is Now's change from Base in percent (±Inf from 0); only for
	// deltas.
	Pct    float64
	HasPct bool
	// Note says more: a budget's limit, a violation's first call, a
	// parameter's values.
	Note string
	// Line is the transcript line the row points at (0: none).
	Line int
}

// Rows returns the report's table, causes first: parameter changes
// (what the metrics after them follow from), then worst first: budgets
// exceeded, regressions (largest change first), violations more frequent
// than the baseline's (by invariant, with the first call), cases missing
// from or removed from the baseline, improvements, then changes within
// tolerance; within a kind, by case.
func (r *Report) Rows() []Row {
	var rows []Row
	for i := range r.Cases {
		c := &r.Cases[i]
		shown := c.Shown()
		row := func(k Kind) Row { return Row{File: c.File, Policy: c.Policy, Shown: shown, Kind: k} }
		for _, b := range c.Budgets {
			x := row(KindBudget)
			x.Metric, x.Now, x.Base, x.HasValues, x.Note = b.Budget, b.Got, b.Limit, true, b.String()
			rows = append(rows, x)
		}
		switch {
		case c.Missing && c.Blocking():
			x := row(KindMissing)
			x.Note = "not in the baseline, and failing: check it, then run 'ctxbench check --update --accept' to add it (--update alone refuses)"
			rows = append(rows, x)
		case c.Missing:
			x := row(KindMissing)
			x.Note = "not in the baseline: run 'ctxbench check --update' to add it"
			rows = append(rows, x)
		case c.Removed:
			x := row(KindRemoved)
			x.Note = "in the baseline but not replayed: a transcript or policy was removed (run --update if intended)"
			rows = append(rows, x)
		}
		for _, p := range c.ParamChanges {
			x := row(KindParam)
			x.Metric, x.Note = p.Name, p.Old+" → "+p.New
			rows = append(rows, x)
		}
		for _, d := range c.Deltas {
			x := row(KindWithin)
			switch {
			case d.Verdict == Better:
				x.Kind = KindBetter
			case d.Verdict == Worse && d.IsViolation():
				x.Kind = KindViolation
			case d.Verdict == Worse:
				x.Kind = KindRegression
			}
			x.Metric, x.Base, x.Now, x.HasValues, x.Pct, x.HasPct = d.Metric, d.Base, d.Now, true, d.Pct(), true
			if d.IsViolation() {
				inv := strings.TrimPrefix(d.Metric, "violations.")
				for _, g := range c.Violations {
					if g.Invariant == inv {
						x.Note, x.Line = "first: "+g.First, g.FirstLine
					}
				}
			}
			rows = append(rows, x)
		}
		if c.Baseline == nil && !c.Removed {
			// No baseline: every violation is new.
			for _, g := range c.Violations {
				x := row(KindViolation)
				x.Metric, x.Now, x.HasValues, x.Note, x.Line = "violations."+g.Invariant, float64(g.Count), true, "first: "+g.First, g.FirstLine
				rows = append(rows, x)
			}
		}
	}
	rank := func(k Kind) int {
		if k == KindParam {
			return -1
		}
		return int(k)
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		if c := cmp.Compare(rank(a.Kind), rank(b.Kind)); c != 0 {
			return c
		}
		if a.Kind == KindRegression {
			if c := cmp.Compare(math.Abs(b.Pct), math.Abs(a.Pct)); c != 0 {
				return c
			}
		}
		return strings.Compare(Key(a.File, a.Policy), Key(b.File, b.Policy))
	})
	return rows
}
