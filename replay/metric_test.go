package replay

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMetricFolder: each fold of three sessions' values, added in turn.
func TestMetricFolder(t *testing.T) {
	of := func(s *Summary) float64 { return 0 }
	f := MetricFolder{of: []Metric{
		{Name: "sum", Fold: FoldSum, Of: of},
		{Name: "max", Fold: FoldMax, Of: of},
		{Name: "min", Fold: FoldMin, Of: of},
		{Name: "mean", Fold: FoldMean, Of: of},
	}}
	if v := f.Values(); v != nil {
		t.Fatalf("no session: %v, want nil", v)
	}
	for _, x := range []float64{3, -1, 4} {
		f.Add(MetricValues{"sum": x, "max": x, "min": x, "mean": x})
	}
	want := MetricValues{"sum": 6, "max": 4, "min": -1, "mean": 2}
	if diff := cmp.Diff(want, f.Values()); diff != "" {
		t.Fatalf("folded (-want +got):\n%s", diff)
	}
}

// TestMetricsOf: every metric of the registry, read from a summary, has
// a name, a heading, a unit and a fold, and a share is within 0 to 1.
func TestMetricsOf(t *testing.T) {
	s := Summary{MinRetention: 0.25, MeanRetention: 0.5}
	v := MetricsOf(&s)
	names := map[string]bool{}
	for _, m := range Metrics() {
		if m.Name == "" || m.Heading == "" || m.Of == nil || names[m.Name] {
			t.Fatalf("metric %+v: a name (once), a heading and its computation", m)
		}
		names[m.Name] = true
		switch m.Unit {
		case UnitCount, UnitUSD:
		case UnitShare:
			if x := v[m.Name]; x < 0 || x > 1 {
				t.Fatalf("%s: a share of %v", m.Name, x)
			}
		default:
			t.Fatalf("%s: unit %q", m.Name, m.Unit)
		}
		if m.Fold < FoldSum || m.Fold > FoldMean {
			t.Fatalf("%s: fold %d", m.Name, m.Fold)
		}
	}
	if len(v) != len(names) {
		t.Fatalf("values %v, of %d metrics", v, len(names))
	}
}
