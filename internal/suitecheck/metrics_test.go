package suitecheck

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/replay"
)

// setField sets the field of m whose JSON name is name to v (a pointer
// field to a new value), or its value of the shown metric
// ([metric.Shown]) of that name, and reports whether m has one.
func setField(m *Metrics, name string, v float64) bool {
	if mt, ok := metric.Named(name); ok && mt.Shown {
		if m.Values == nil {
			m.Values = metric.Values{}
		}
		m.Values[name] = v
		return true
	}
	rv := reflect.ValueOf(m).Elem()
	for i := range rv.NumField() {
		tag, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
		if tag != name {
			continue
		}
		f := rv.Field(i)
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.New(f.Type().Elem()))
			f = f.Elem()
		}
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(v))
		case reflect.Float64:
			f.SetFloat(v)
		default:
			return false
		}
		return true
	}
	return false
}

// TestMetricRegistry holds each registered metric to the field of
// Metrics that the baseline names as it: a change of that field alone
// is reported as a change of that metric alone, in the direction the
// registry gives, and its budget (if any) reads it.
func TestMetricRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, mt := range metric.All() {
		if seen[mt.Name] {
			t.Errorf("%s registered twice", mt.Name)
		}
		seen[mt.Name] = true
		base, now := Metrics{}, Metrics{}
		if !setField(&base, mt.Name, 0.5) || !setField(&now, mt.Name, 0.75) {
			t.Errorf("%s: no field of Metrics is named so", mt.Name)
			continue
		}
		if mt.Unit != "share" && mt.Unit != "usd" {
			setField(&base, mt.Name, 100)
			setField(&now, mt.Name, 200)
		}
		ds := Compare(base, now, Tolerances{})
		if len(ds) != 1 || ds[0].Metric != mt.Name {
			t.Errorf("%s alone changed: Compare reports %+v", mt.Name, ds)
			continue
		}
		if want := map[bool]Verdict{true: Better, false: Worse}[mt.HigherIsBetter]; ds[0].Verdict != want {
			t.Errorf("%s went up: %v, want %v", mt.Name, ds[0].Verdict, want)
		}
		if mt.Budget == "" {
			continue
		}
		got, ok := mt.Of(&now)
		fails, err := CheckBudgets(now, map[string]float64{mt.Budget: got})
		if err != nil || !ok || len(fails) != 0 {
			t.Errorf("%s at its own value: %v %v", mt.Budget, fails, err)
		}
		limit := got + 1
		if !mt.HigherIsBetter {
			limit = got - 1
		}
		if fails, _ := CheckBudgets(now, map[string]float64{mt.Budget: limit}); len(fails) != 1 || fails[0].Got != got {
			t.Errorf("%s beyond %v at %v: %v", mt.Budget, limit, got, fails)
		}
	}
	for _, b := range budgetNames {
		if _, ok := metric.Budgeted(b); !ok {
			t.Errorf("budget %s limits no metric", b)
		}
	}
}

// TestReplayMetrics: each shown metric ([metric.Shown]) is checked,
// read from a run's summary into the baseline's values, rounded as its
// unit is kept.
func TestReplayMetrics(t *testing.T) {
	s := replay.Summary{MinRetention: 0.123456, MeanRetention: 0.5, PeakTokens: map[string]int{}, InputTokens: map[string]int64{}}
	m := MetricsOf(&replay.Run{Summary: s}, "cl100k_base", nil)
	for _, mt := range metric.Shown() {
		if slices.Contains(budgetNames, mt.Name) {
			t.Errorf("%s is a budget's name too", mt.Name)
		}
		if !slices.Contains(checkedMetrics, mt.Name) {
			t.Errorf("%s: not checked", mt.Name)
		}
		got, ok := mt.Of(&m)
		want := s.Metrics()[mt.Name]
		if mt.Unit == metric.Share {
			want = round4(want)
		}
		if !ok || got != want {
			t.Errorf("%s: %v (%v), want %v", mt.Name, got, ok, want)
		}
	}
}
