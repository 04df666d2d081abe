package policy

import (
	"fmt"
	"github.com/ctxbench/ctxbench/estimate"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A Kind is a parameter's type.
type Kind string

// The parameter kinds.
const (
	KindInt    Kind = "int"
	KindFloat  Kind = "float"
	KindBool   Kind = "bool"
	KindString Kind = "string"
)

// A Param describes one policy parameter.
type Param struct {
	Name    string `json:"name"`
	Kind    Kind   `json:"type"`
	Default string `json:"default"`
	// Min and Max bound numbers (NaN: no bound); MinOpen excludes Min.
	Min     float64  `json:"-"`
	Max     float64  `json:"-"`
	MinOpen bool     `json:"-"`
	Enum    []string `json:"enum,omitempty"`
	Help    string   `json:"help"`
}

// Range describes the valid values, for help and errors.
func (p Param) Range() string {
	switch {
	case len(p.Enum) > 0:
		return "one of " + strings.Join(quoteEmpty(p.Enum), ", ")
	case p.Kind == KindBool:
		return "true or false"
	case p.Kind == KindString:
		return "any text"
	}
	lo, hi := "-inf", "+inf"
	if !math.IsNaN(p.Min) {
		lo = strconv.FormatFloat(p.Min, 'g', -1, 64)
	}
	if !math.IsNaN(p.Max) {
		hi = strconv.FormatFloat(p.Max, 'g', -1, 64)
	}
	if p.Kind == KindInt && math.IsNaN(p.Max) {
		return "an integer ≥ " + lo
	}
	open := "["
	if p.MinOpen {
		open = "("
	}
	kind := "a number"
	if p.Kind == KindInt {
		kind = "an integer"
	}
	return kind + " in " + open + lo + ", " + hi + "]"
}

func quoteEmpty(enum []string) []string {
	out := make([]string, len(enum))
	for i, e := range enum {
		out[i] = e
		if e == "" {
			out[i] = `""`
		}
	}
	return out
}

func (p Param) Check(v string) error {
	switch p.Kind {
	case KindBool:
		if _, err := strconv.ParseBool(v); err != nil {
			return fmt.Errorf("%s=%.40s: want true or false", p.Name, v)
		}
		return nil
	case KindString:
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, v) {
			return fmt.Errorf("%s=%.40s: want %s", p.Name, v, p.Range())
		}
		return nil
	}
	var f float64
	var err error
	if p.Kind == KindInt {
		var n int64
		n, err = strconv.ParseInt(v, 10, 64)
		if err == nil && (n > math.MaxInt32 || n < math.MinInt32) {
			// No parameter needs more, and sums of them must not overflow.
			return fmt.Errorf("%s=%.40s: want %s, at most %d", p.Name, v, p.Range(), math.MaxInt32)
		}
		f = float64(n)
	} else {
		f, err = strconv.ParseFloat(v, 64)
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%s=%.40s: want %s", p.Name, v, p.Range())
	}
	if (!math.IsNaN(p.Min) && (f < p.Min || p.MinOpen && f == p.Min)) || (!math.IsNaN(p.Max) && f > p.Max) {
		return fmt.Errorf("%s=%.40s: want %s", p.Name, v, p.Range())
	}
	return nil
}

// IntParam, FloatParam, BoolParam, EnumParam and StringParam make the
// parameters of a Spec.
func IntParam(name string, def int, min, max float64, help string) Param {
	return Param{Name: name, Kind: KindInt, Default: strconv.Itoa(def), Min: min, Max: max, Help: help}
}

func FloatParam(name string, def, min, max float64, minOpen bool, help string) Param {
	return Param{Name: name, Kind: KindFloat, Default: strconv.FormatFloat(def, 'g', -1, 64), Min: min, Max: max, MinOpen: minOpen, Help: help}
}

func BoolParam(name string, def bool, help string) Param {
	return Param{Name: name, Kind: KindBool, Default: strconv.FormatBool(def), Min: math.NaN(), Max: math.NaN(), Help: help}
}

func EnumParam(name, def string, enum []string, help string) Param {
	return Param{Name: name, Kind: KindString, Default: def, Enum: enum, Min: math.NaN(), Max: math.NaN(), Help: help}
}

func StringParam(name, def, help string) Param {
	return Param{Name: name, Kind: KindString, Default: def, Min: math.NaN(), Max: math.NaN(), Help: help}
}

// NoBound is a Min or Max that bounds nothing.
var NoBound = math.NaN()

// Values are a policy's resolved parameters: every parameter, by name.
type Values map[string]string

// Int returns an int parameter.
func (v Values) Int(name string) int { n, _ := strconv.Atoi(v[name]); return n }

// Float returns a float parameter.
func (v Values) Float(name string) float64 { f, _ := strconv.ParseFloat(v[name], 64); return f }

// Bool returns a bool parameter.
func (v Values) Bool(name string) bool { b, _ := strconv.ParseBool(v[name]); return b }

// String returns a string parameter.
func (v Values) String(name string) string { return v[name] }

// How a policy is held to the system it models (Spec.Held).
const (
	HeldConformance = "its real code run on the corpus (make conformance), call by call"
	HeldSource      = "table tests citing its source lines"
	HeldDocs        = "table tests of its documentation's parameters"
)

// A Spec is a registered policy: its name, the source it models, its
// parameters and how to build it.
type Spec struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// Models is the released version of the peer the policy reproduces
	// (empty for the seeds and baselines), and Held how the tests hold
	// the policy to it: the conformance goldens where its code runs, or
	// table tests of what its source or documentation says.
	Models string `json:"models,omitempty"`
	Held   string `json:"held,omitempty"`
	// Differs lists where the policy keeps a rule of its own on purpose,
	// and why.
	Differs []string `json:"differs,omitempty"`
	Summary string   `json:"summary"`
	Params  []Param  `json:"params"`
	// Expand, if set, turns parameters into others before validation
	// (aidf's config reads AIDF's config.yml).
	Expand func(map[string]string) (map[string]string, error) `json:"-"`
	// Check validates parameters against each other.
	Check func(Values) error `json:"-"`
	// Build makes the policy from its resolved values.
	Build func(Values) Policy `json:"-"`
	// NotModelled, when set, says what the policy leaves out of the
	// rules of the peer's version given (the one that recorded a
	// transcript) when that version is newer than those it models (""
	// otherwise).
	NotModelled func(version string) string `json:"-"`
}

// Base gives a policy its name and values: embedded, it is the
// policy's Name and Params.
type Base struct {
	name   string
	values Values
}

// NewBase returns the Base of the policy name with values v.
func NewBase(name string, v Values) Base { return Base{name, v} }

// Name is the policy's registered name.
func (b Base) Name() string { return b.name }

// Params are the policy's resolved values.
func (b Base) Params() Values { return b.values }

// Evict removes from step's history the items whose index drop holds,
// records them as evicted, and returns them.
func Evict(step *Step, drop func(index int) bool) []Item {
	var kept, dropped []Item
	for _, it := range step.History {
		if drop(it.Index()) {
			dropped = append(dropped, it)
		} else {
			kept = append(kept, it)
		}
	}
	step.Evicted = append(step.Evicted, ItemIDs(dropped)...)
	step.History = kept
	return dropped
}

// EstimatorParam is the parameter that chooses how a policy counts tokens.
func EstimatorParam(def, help string) Param {
	return EnumParam("estimator", def, estimate.Names(), help)
}

// EstimatorOf returns the policy's estimator (its names are validated).
func EstimatorOf(v Values) estimate.Estimator {
	return estimate.MustNew(v.String("estimator"), estimate.OverheadNone)
}

// Chars4 returns the chars4 estimator, with no overhead.
func Chars4() estimate.Estimator { return estimate.MustNew("chars4", estimate.OverheadNone) }
