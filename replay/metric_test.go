package replay

import (
	"testing"

	"github.com/ctxbench/ctxbench/internal/metric"
)

// TestSummaryMetrics: every metric the tables show is computed from a
// summary, a share within 0 to 1.
func TestSummaryMetrics(t *testing.T) {
	s := Summary{MinRetention: 0.25, MeanRetention: 0.5}
	v := s.Metrics()
	for _, m := range metric.Shown() {
		x, ok := v[m.Name]
		if _, computed := shownOf[m.Name]; !ok || !computed {
			t.Fatalf("%s: not computed from a summary", m.Name)
		}
		if m.Unit == metric.Share && (x < 0 || x > 1) {
			t.Fatalf("%s: a share of %v", m.Name, x)
		}
	}
	if v["worst_retention"] != 0.25 {
		t.Fatalf("worst retention %v, want the summary's 0.25", v["worst_retention"])
	}
	if len(v) != len(metric.Shown()) || len(shownOf) != len(v) {
		t.Fatalf("values %v, of %d metrics, %d computations", v, len(metric.Shown()), len(shownOf))
	}
}
