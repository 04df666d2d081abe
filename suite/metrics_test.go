package suite

import (
	"reflect"
	"strings"
	"testing"
)

// setField sets the field of m whose JSON name is name to v (a pointer
// field to a new value), and reports whether m has one.
func setField(m *Metrics, name string, v float64) bool {
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
	for _, mt := range MetricList() {
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
		got, ok := mt.Value(&now)
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
	for _, b := range Budgets {
		if budgetMetric(b) == nil {
			t.Errorf("budget %s limits no metric", b)
		}
	}
}
