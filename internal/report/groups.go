package report

import (
	"cmp"
	"fmt"
	"slices"
)

// A CostGroup is what the priced sessions of one model, or of one day,
// cost under each policy.
type CostGroup struct {
	// Key is the model priced, or the day (UTC) of the session's first
	// call, YYYY-MM-DD; NoDay for a session that records no time.
	Key string
	// Sessions counts the sessions priced under some policy; Priced and
	// USD are, for each policy in the report's order, the sessions priced
	// under it and their cost.
	Sessions int
	Priced   []int
	USD      []float64
}

// NoDay is the day of a session that records no time.
const NoDay = "no time recorded"

// CostByModel returns the cost of the priced sessions by the model they
// are priced as, by name.
func (r *Report) CostByModel() []CostGroup { return r.tallied().byModel.sorted() }

// CostByDay returns the cost of the priced sessions by the day (UTC) of
// their first call, in time order, the sessions without a time last. A
// session counts whole on the day it started.
func (r *Report) CostByDay() []CostGroup { return r.tallied().byDay.sorted() }

// costGroups sums the priced runs of sessions by a key.
type costGroups struct {
	policies int
	groups   map[string]*CostGroup
}

func newCostGroups(policies int) costGroups {
	return costGroups{policies: policies, groups: map[string]*CostGroup{}}
}

// add adds the cost of the runs of tr priced, under key.
func (g costGroups) add(key string, tr *TranscriptResult) {
	var c *CostGroup
	for k := range min(g.policies, len(tr.Runs)) {
		run := &tr.Runs[k]
		if run.CostUSD == nil {
			continue
		}
		if c == nil {
			if c = g.groups[key]; c == nil {
				c = &CostGroup{Key: key, Priced: make([]int, g.policies), USD: make([]float64, g.policies)}
				g.groups[key] = c
			}
			c.Sessions++
		}
		c.Priced[k]++
		c.USD[k] += *run.CostUSD
	}
}

// sorted returns the groups by key, NoDay last.
func (g costGroups) sorted() []CostGroup {
	out := make([]CostGroup, 0, len(g.groups))
	for _, c := range g.groups {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b CostGroup) int {
		return cmp.Or(cmp.Compare(b2i(a.Key == NoDay), b2i(b.Key == NoDay)), cmp.Compare(a.Key, b.Key))
	})
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A costTable is a table of the report beside the policies' totals: its
// first column names the row, the others are numbers but for the last
// when lastText.
type costTable struct {
	id, title string
	header    []string
	rows      [][]string
	lastText  bool
}

// costTables are the tables under the policies' totals: the spread of
// cost per session, and the cost by model and by day, those that have
// rows.
func costTables(r *Report) []costTable {
	var out []costTable
	if t, ok := costSection(r); ok {
		out = append(out, t)
	}
	if rows := spreadRows(r); len(rows) > 0 {
		out = append(out, costTable{"spread", "Cost per session", []string{"policy", "sessions priced", "median", "90th percentile", "most", "the costliest session"}, rows, true})
	}
	return append(out, groupTables(r)...)
}

// groupTables are the tables of cost by model and by day that have two
// rows at least.
func groupTables(r *Report) []costTable {
	var out []costTable
	for _, g := range []struct {
		id, title, key string
		groups         []CostGroup
	}{{"by-model", "Cost by model", "model", r.CostByModel()}, {"by-day", "Cost by day", "day", r.CostByDay()}} {
		if header, rows := groupTable(r, g.key, g.groups); rows != nil {
			out = append(out, costTable{g.id, g.title, header, rows, false})
		}
	}
	return out
}

// groupTable is a table of cost by model or by day: its header (what the
// key is, the sessions priced, then each policy priced somewhere) and a
// row per group; none when there are fewer than two groups, which the
// table of policies already shows whole.
func groupTable(r *Report, key string, groups []CostGroup) (header []string, rows [][]string) {
	if len(groups) < 2 {
		return nil, nil
	}
	var cols []int
	for k, label := range r.Policies {
		if slices.ContainsFunc(groups, func(c CostGroup) bool { return c.Priced[k] > 0 }) {
			cols = append(cols, k)
			header = append(header, label)
		}
	}
	header = append([]string{key, "sessions priced"}, header...)
	for _, c := range groups {
		row := []string{c.Key, Int(c.Sessions)}
		for _, k := range cols {
			switch c.Priced[k] {
			case 0:
				row = append(row, "not priced")
			case c.Sessions:
				row = append(row, USD(c.USD[k]))
			default:
				row = append(row, fmt.Sprintf("%s (%d of %d)", USD(c.USD[k]), c.Priced[k], c.Sessions))
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}
