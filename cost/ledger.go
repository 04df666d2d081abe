package cost

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ctxbench/ctxbench/internal/resolve"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
)

// A Ledger totals the usage many transcripts recorded, and its bill, the
// way ccusage reports it: by session, a session's subagents rolled into it
// and listed beneath; by model; by day. Each call is counted once: a call
// a resumed session's file copies from the file before it (the same
// message id and request id) is counted where it was first seen, and the
// copies are counted apart ([Ledger.Duplicates]). Days are UTC dates of
// the calls' own timestamps.
//
// With Prices nil, a Ledger counts usage and prices nothing.
type Ledger struct {
	// Prices is the table the calls are priced at (nil: usage only); it
	// must not change once a transcript is added, nor once any pricing
	// has used it.
	Prices pricing.Prices
	// Model prices the calls that record no model (default: each
	// transcript's first model).
	Model string
	// Since and Until, when set (YYYY-MM-DD), keep the calls made on those
	// days and between them; a call with no time is kept.
	Since, Until string

	Sessions []*SessionBill
	ByModel  []ModelCost
	ByDay    []DayBill
	// Duplicates counts the calls left out as copies of calls already
	// counted.
	Duplicates int

	bySession map[string]*SessionBill
	seen      map[[2]string]bool
	day       dayName
}

// A dayName names the UTC day of a time, remembering the last day named:
// a transcript's calls fall on few days.
type dayName struct {
	from, until time.Time
	name        string
}

// of returns at's UTC date (YYYY-MM-DD).
func (d *dayName) of(at time.Time) string {
	if d.name == "" || at.Before(d.from) || !at.Before(d.until) {
		u := at.UTC()
		d.from = time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
		d.until = d.from.AddDate(0, 0, 1)
		d.name = d.from.Format(time.DateOnly)
	}
	return d.name
}

// A SessionBill is one session's usage and bill: its own transcript's and
// its subagents'.
type SessionBill struct {
	ID          string           `json:"id"`
	Transcripts []transcriptBill `json:"transcripts"`
	Calls       int              `json:"calls"`
	Usage       transcript.Usage `json:"usage"`
	Cost        pricing.Cost     `json:"cost"`
	TotalUSD    float64          `json:"total_usd"`
	ByModel     []ModelCost      `json:"by_model"`
	First       time.Time        `json:"first,omitzero"`
	Last        time.Time        `json:"last,omitzero"`
	// ReportedUSD is the cost the agent itself reported for the
	// session, where it did ([transcript.Transcript.ReportedCostUSD]).
	ReportedUSD float64 `json:"reported_usd,omitempty"`
}

// A transcriptBill is one transcript's part of its session's bill.
type transcriptBill struct {
	File     string           `json:"file"`
	ID       string           `json:"id"`
	Subagent string           `json:"subagent,omitempty"`
	Calls    int              `json:"calls"`
	Usage    transcript.Usage `json:"usage"`
	Cost     pricing.Cost     `json:"cost"`
	TotalUSD float64          `json:"total_usd"`
	// Duplicates counts its calls counted in an earlier file.
	Duplicates int `json:"duplicate_calls,omitempty"`
}

// A DayBill is one day's usage and bill.
type DayBill struct {
	Day      string           `json:"day"`
	Calls    int              `json:"calls"`
	Usage    transcript.Usage `json:"usage"`
	Cost     pricing.Cost     `json:"cost"`
	TotalUSD float64          `json:"total_usd"`
	ByModel  []ModelCost      `json:"by_model"`
}

// InRange reports whether t has a call in the ledger's days (or no call
// with a time).
func (l *Ledger) InRange(t *transcript.Transcript) bool {
	if l.Since == "" && l.Until == "" {
		return true
	}
	var day dayName
	for i := range t.Messages {
		if m := &t.Messages[i]; m.Role == transcript.RoleAssistant && l.keeps(m.Time, &day) {
			return true
		}
	}
	return false
}

// keeps reports whether a call at at is in the ledger's days; d names
// the days.
func (l *Ledger) keeps(at time.Time, d *dayName) bool {
	if at.IsZero() || l.Since == "" && l.Until == "" {
		return true
	}
	day := d.of(at)
	return (l.Since == "" || day >= l.Since) && (l.Until == "" || day <= l.Until)
}

// Add counts t's calls. When a call's model has no price, it returns the
// error [pricing.NotPriced] recognizes and counts nothing of t; a call
// or a sum past what a bill can be is an error too ([Ledger.Entry],
// [Ledger.AddEntry]).
func (l *Ledger) Add(t *transcript.Transcript) error {
	e, err := l.Entry(t)
	if err != nil {
		return err
	}
	return l.AddEntry(e)
}

// A LedgerEntry is what a transcript adds to a [Ledger]: its calls in the
// ledger's days, priced. [Ledger.Entry] makes it and [Ledger.AddEntry]
// counts it, so that a transcript's part can be made on one machine and
// counted on another (a sharded run's merge): entries added in the
// order of their transcripts total as the transcripts would.
type LedgerEntry struct {
	// Session is the session the transcript's calls count in: its
	// parent's id for a subagent's.
	Session     string       `json:"session"`
	File        string       `json:"file"`
	ID          string       `json:"id"`
	Subagent    string       `json:"subagent,omitempty"`
	Own         bool         `json:"own,omitempty"` // the session's own transcript, not a subagent's
	ReportedUSD float64      `json:"reported_usd,omitempty"`
	Items       []ledgerItem `json:"items"`
}

// A ledgerItem is a call's usage and cost, or usage the transcript
// recorded for no call (Call false).
type ledgerItem struct {
	Call bool `json:"call,omitempty"`
	// CallID and RequestID tell a call copied from an earlier file (both
	// set): it is counted where it was first seen.
	CallID    string           `json:"call_id,omitempty"`
	RequestID string           `json:"request_id,omitempty"`
	Model     string           `json:"model"`
	Usage     transcript.Usage `json:"usage"`
	Cost      pricing.Cost     `json:"cost"`
	At        time.Time        `json:"at,omitzero"`
	// Line is the call's line in the entry's file (0: unknown, or usage
	// recorded for no call), for an error to name.
	Line int `json:"line,omitempty"`
}

// where names it in errors: its file and line, or the usage the file
// recorded for no call.
func (it *ledgerItem) where(file string) string {
	switch {
	case it.Line > 0:
		return file + ":" + strconv.Itoa(it.Line)
	case !it.Call:
		return file + ": the usage recorded for no call"
	}
	return file
}

// Entry prices t's calls in the ledger's days. When a call's model has
// no price, it returns the error [pricing.NotPriced] recognizes; a call
// that costs more than [pricing.MaxCall] is an error naming its line.
// Entry and InRange change nothing of the ledger: several goroutines may
// call them at once, while one adds the entries ([Ledger.AddEntry]).
func (l *Ledger) Entry(t *transcript.Transcript) (*LedgerEntry, error) {
	var res *resolve.Resolver
	if l.Prices != nil {
		res = resolve.Of(l.Prices)
	}
	e := &LedgerEntry{Session: cmp.Or(t.Parent, t.ID), File: t.File, ID: t.ID, Subagent: t.Subagent, Own: t.Parent == "", ReportedUSD: t.ReportedCostUSD}
	fallback := fallbackModel(t, l.Model)
	look := lastLookup{resolver: res}
	var day dayName
	add := func(m *transcript.Message, name string, u transcript.Usage, at time.Time) error {
		it := ledgerItem{Model: name, Usage: u, At: at}
		if m != nil {
			it.Call, it.Line = true, m.Pos.Line
			if m.CallID != "" && m.RequestID != "" {
				it.CallID, it.RequestID = m.CallID, m.RequestID
			}
		}
		if l.Prices != nil {
			p, table, err := look.Lookup(name)
			if err != nil {
				return err
			}
			it.Model = table
			if it.Cost, err = p.At(at).CallCost(u); err != nil {
				return fmt.Errorf("%s: pricing the call at %s: %w", it.where(t.File), table, err)
			}
		}
		e.Items = append(e.Items, it)
		return nil
	}
	n := 1 + len(t.UnattributedByModel) // the most items: one a call with usage, and these
	for i := range t.Messages {
		if t.Messages[i].Usage != nil {
			n++
		}
	}
	if n > 1 {
		e.Items = make([]ledgerItem, 0, n)
	}
	var last time.Time
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Usage == nil || !l.keeps(m.Time, &day) {
			continue
		}
		name := m.Model
		if name == "" || name == "<synthetic>" {
			name = fallback
		}
		if err := add(m, name, *m.Usage, m.Time); err != nil {
			return nil, err
		}
		if m.Time.After(last) {
			last = m.Time
		}
	}
	if last.IsZero() {
		// No call records usage (Copilot's event log): the usage
		// recorded apart is dated at the last message.
		for i := range t.Messages {
			if at := t.Messages[i].Time; at.After(last) {
				last = at
			}
		}
	}
	if u := t.Unattributed; u != nil && l.keeps(last, &day) {
		if err := add(nil, fallback, *u, last); err != nil {
			return nil, err
		}
	}
	for _, mu := range t.UnattributedByModel {
		if !l.keeps(last, &day) {
			break
		}
		if err := add(nil, mu.Model, mu.Usage, last); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// AddEntry counts a transcript's entry ([Ledger.Entry]). An item that
// costs more than [pricing.MaxCall] (an entry read from elsewhere), or
// a sum that would pass [pricing.MaxTotal], is an error naming the
// item's line, and the ledger is then left with part of the entry.
func (l *Ledger) AddEntry(e *LedgerEntry) error {
	if l.bySession == nil {
		l.bySession, l.seen = map[string]*SessionBill{}, map[[2]string]bool{}
	}
	s := l.bySession[e.Session]
	if s == nil {
		s = &SessionBill{ID: e.Session}
		l.bySession[e.Session] = s
		l.Sessions = append(l.Sessions, s)
	}
	s.ReportedUSD += e.ReportedUSD
	tb := transcriptBill{File: e.File, ID: e.ID, Subagent: e.Subagent}
	for i := range e.Items {
		it := &e.Items[i]
		if err := checkCall(it.Cost); err != nil {
			return fmt.Errorf("%s: %w", it.where(e.File), err)
		}
		if it.CallID != "" && it.RequestID != "" {
			k := [2]string{it.CallID, it.RequestID}
			if l.seen[k] {
				tb.Duplicates++
				l.Duplicates++
				continue
			}
			l.seen[k] = true
		}
		calls := 0
		if it.Call {
			calls = 1
		}
		err := tb.Cost.Add(it.Cost)
		if err == nil {
			err = s.Cost.Add(it.Cost)
		}
		if err == nil {
			s.ByModel, err = addModel(s.ByModel, it.Model, calls, it.Usage, it.Cost)
		}
		if err == nil {
			l.ByModel, err = addModel(l.ByModel, it.Model, calls, it.Usage, it.Cost)
		}
		if err == nil && !it.At.IsZero() {
			err = l.addDay(l.day.of(it.At), it.Model, calls, it.Usage, it.Cost)
		}
		if err != nil {
			return fmt.Errorf("%s: adding the call to the bill: %w", it.where(e.File), err)
		}
		tb.Calls += calls
		tb.Usage.Add(it.Usage)
		s.Calls += calls
		s.Usage.Add(it.Usage)
		if !it.At.IsZero() {
			if s.First.IsZero() || it.At.Before(s.First) {
				s.First = it.At
			}
			if it.At.After(s.Last) {
				s.Last = it.At
			}
		}
	}
	tb.TotalUSD = tb.Cost.Total().USD()
	s.TotalUSD = s.Cost.Total().USD()
	if e.Own {
		s.Transcripts = slices.Insert(s.Transcripts, 0, tb) // the session's own first
	} else {
		s.Transcripts = append(s.Transcripts, tb)
	}
	return nil
}

// checkCall returns an error when c is more than one call can cost: an
// entry's item read from elsewhere (a shard's partial), where pricing
// did not make it.
func checkCall(c pricing.Cost) error {
	if err := c.Check(); err != nil {
		return err
	}
	if t := c.Total(); t > pricing.MaxCall || t < -pricing.MaxCall {
		return &pricing.AmountError{USD: t.USD()}
	}
	return nil
}

// addDay adds a call to its day, keeping the days in date order, or
// returns the error of a sum past what Money holds.
func (l *Ledger) addDay(day, model string, calls int, u transcript.Usage, c pricing.Cost) error {
	i, found := slices.BinarySearchFunc(l.ByDay, day, func(d DayBill, day string) int { return cmp.Compare(d.Day, day) })
	if !found {
		l.ByDay = slices.Insert(l.ByDay, i, DayBill{Day: day})
	}
	d := &l.ByDay[i]
	if err := d.Cost.Add(c); err != nil {
		return err
	}
	var err error
	if d.ByModel, err = addModel(d.ByModel, model, calls, u, c); err != nil {
		return err
	}
	d.Calls += calls
	d.Usage.Add(u)
	d.TotalUSD = d.Cost.Total().USD()
	return nil
}

// addModel adds a call to its model's entry of list, or returns the
// error of a sum past what Money holds.
func addModel(list []ModelCost, model string, calls int, u transcript.Usage, c pricing.Cost) ([]ModelCost, error) {
	i := slices.IndexFunc(list, func(m ModelCost) bool { return m.Model == model })
	if i < 0 {
		list = append(list, ModelCost{Model: model})
		i = len(list) - 1
	}
	if err := list[i].Cost.Add(c); err != nil {
		return list, err
	}
	list[i].Calls += calls
	list[i].Usage.Add(u)
	return list, nil
}

// A lastLookup looks models up through a Resolver, remembering the last
// name it looked up: the calls of a transcript name few models, one
// after another. It is not safe for concurrent use.
type lastLookup struct {
	resolver *resolve.Resolver
	name     string
	set      bool
	price    pricing.Price
	table    string
	err      error
}

// Lookup is the Resolver's Lookup of model.
func (l *lastLookup) Lookup(model string) (pricing.Price, string, error) {
	if !l.set || model != l.name {
		l.price, l.table, l.err = l.resolver.Lookup(model)
		l.name, l.set = model, true
	}
	return l.price, l.table, l.err
}

// A BillTotal is the sum of the rows of one of a ledger's tables.
type BillTotal struct {
	Calls    int              `json:"calls"`
	Usage    transcript.Usage `json:"usage"`
	Cost     pricing.Cost     `json:"cost"`
	TotalUSD float64          `json:"total_usd"`
}

func (b *BillTotal) add(calls int, u transcript.Usage, c pricing.Cost) error {
	if err := b.Cost.Add(c); err != nil {
		return fmt.Errorf("the bill's total: %w", err)
	}
	b.Calls += calls
	b.Usage.Add(u)
	b.TotalUSD = b.Cost.Total().USD()
	return nil
}

// Totals returns the sums of l's sessions, of its models and of its days.
func (l *Ledger) Totals() (sessions, models, days BillTotal, err error) {
	for _, s := range l.Sessions {
		if err = sessions.add(s.Calls, s.Usage, s.Cost); err != nil {
			return
		}
	}
	for _, m := range l.ByModel {
		if err = models.add(m.Calls, m.Usage, m.Cost); err != nil {
			return
		}
	}
	for _, d := range l.ByDay {
		if err = days.add(d.Calls, d.Usage, d.Cost); err != nil {
			return
		}
	}
	return sessions, models, days, nil
}
