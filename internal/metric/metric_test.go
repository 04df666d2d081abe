package metric

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFolder: each fold of three sessions' values, added in turn.
func TestFolder(t *testing.T) {
	f := Folder{of: []Metric{
		{Name: "sum", Fold: FoldSum},
		{Name: "max", Fold: FoldMax},
		{Name: "min", Fold: FoldMin},
		{Name: "mean", Fold: FoldMean},
	}}
	if v := f.Values(); v != nil {
		t.Fatalf("no session: %v, want nil", v)
	}
	for _, x := range []float64{3, -1, 4} {
		f.Add(Values{"sum": x, "max": x, "min": x, "mean": x})
	}
	want := Values{"sum": 6, "max": 4, "min": -1, "mean": 2}
	if diff := cmp.Diff(want, f.Values()); diff != "" {
		t.Fatalf("folded (-want +got):\n%s", diff)
	}
}

// TestRegistry: every metric has a name (once), a unit and where a row
// keeps it; a shown one a heading, a fold and its place among a row's
// values; a budget limits one metric, and is no metric's name.
func TestRegistry(t *testing.T) {
	names, budgets := map[string]bool{}, map[string]bool{}
	for _, m := range All() {
		if m.Name == "" || names[m.Name] || m.of == nil {
			t.Fatalf("metric %+v: a name (once) and where a row keeps it", m)
		}
		names[m.Name] = true
		switch m.Unit {
		case Tokens, Messages, Count, Share, USD:
		default:
			t.Fatalf("%s: unit %q", m.Name, m.Unit)
		}
		if m.Shown {
			if m.Heading == "" || m.Fold < FoldSum || m.Fold > FoldMean {
				t.Fatalf("%s: shown with heading %q, fold %d", m.Name, m.Heading, m.Fold)
			}
			r := Row{Values: Values{m.Name: 0.5}}
			if v, ok := m.Of(&r); !ok || v != 0.5 {
				t.Fatalf("%s: %v (%v) of a row's values", m.Name, v, ok)
			}
			if _, ok := m.Of(&Row{}); ok {
				t.Fatalf("%s: measured in a row without values", m.Name)
			}
		}
		if m.Budget != "" {
			if budgets[m.Budget] {
				t.Fatalf("budget %s limits two metrics", m.Budget)
			}
			budgets[m.Budget] = true
			if b, ok := Budgeted(m.Budget); !ok || b.Name != m.Name {
				t.Fatalf("budget %s: limits %+v, want %s", m.Budget, b, m.Name)
			}
		}
		if n, ok := Named(m.Name); !ok || n.Name != m.Name {
			t.Fatalf("%s: named %+v", m.Name, n)
		}
	}
	for b := range budgets {
		if names[b] {
			t.Fatalf("budget %s is a metric's name too", b)
		}
	}
	bs := Budgets()
	if len(bs) != len(budgets) {
		t.Fatalf("budgets %v, want the %d budgets", bs, len(budgets))
	}
	// The maxima first, then the minima.
	first := slices.IndexFunc(bs, func(b string) bool { m, _ := Budgeted(b); return m.HigherIsBetter })
	for i, b := range bs {
		if m, _ := Budgeted(b); m.HigherIsBetter != (first >= 0 && i >= first) {
			t.Fatalf("budgets %v: %s out of place", bs, b)
		}
	}
	if _, ok := Named("nothing"); ok {
		t.Fatal("a metric named nothing")
	}
	if _, ok := Budgeted(""); ok {
		t.Fatal("the empty budget limits a metric")
	}
}
