package window

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A Kind is a parameter's type.
type Kind string

// The parameter kinds.
const (
	Int    Kind = "int"
	Float  Kind = "float"
	Bool   Kind = "bool"
	String Kind = "string"
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
	case p.Kind == Bool:
		return "true or false"
	case p.Kind == String:
		return "any text"
	}
	lo, hi := "-inf", "+inf"
	if !math.IsNaN(p.Min) {
		lo = strconv.FormatFloat(p.Min, 'g', -1, 64)
	}
	if !math.IsNaN(p.Max) {
		hi = strconv.FormatFloat(p.Max, 'g', -1, 64)
	}
	if p.Kind == Int && math.IsNaN(p.Max) {
		return "an integer ≥ " + lo
	}
	open := "["
	if p.MinOpen {
		open = "("
	}
	kind := "a number"
	if p.Kind == Int {
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

func (p Param) check(v string) error {
	switch p.Kind {
	case Bool:
		if _, err := strconv.ParseBool(v); err != nil {
			return fmt.Errorf("%s=%s: want true or false", p.Name, v)
		}
		return nil
	case String:
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, v) {
			return fmt.Errorf("%s=%s: want %s", p.Name, v, p.Range())
		}
		return nil
	}
	var f float64
	var err error
	if p.Kind == Int {
		var n int64
		n, err = strconv.ParseInt(v, 10, 64)
		f = float64(n)
	} else {
		f, err = strconv.ParseFloat(v, 64)
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%s=%s: want %s", p.Name, v, p.Range())
	}
	if (!math.IsNaN(p.Min) && (f < p.Min || p.MinOpen && f == p.Min)) || (!math.IsNaN(p.Max) && f > p.Max) {
		return fmt.Errorf("%s=%s: want %s", p.Name, v, p.Range())
	}
	return nil
}

// Parameter constructors for the registry.
func intParam(name string, def int, min, max float64, help string) Param {
	return Param{Name: name, Kind: Int, Default: strconv.Itoa(def), Min: min, Max: max, Help: help}
}

func floatParam(name string, def, min, max float64, minOpen bool, help string) Param {
	return Param{Name: name, Kind: Float, Default: strconv.FormatFloat(def, 'g', -1, 64), Min: min, Max: max, MinOpen: minOpen, Help: help}
}

func boolParam(name string, def bool, help string) Param {
	return Param{Name: name, Kind: Bool, Default: strconv.FormatBool(def), Min: math.NaN(), Max: math.NaN(), Help: help}
}

func enumParam(name, def string, enum []string, help string) Param {
	return Param{Name: name, Kind: String, Default: def, Enum: enum, Min: math.NaN(), Max: math.NaN(), Help: help}
}

func stringParam(name, def, help string) Param {
	return Param{Name: name, Kind: String, Default: def, Min: math.NaN(), Max: math.NaN(), Help: help}
}

var none = math.NaN()

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

// A Spec is a registered policy: its name, the source it models, its
// parameters and how to build it.
type Spec struct {
	Name    string  `json:"name"`
	Source  string  `json:"source"`
	Summary string  `json:"summary"`
	Params  []Param `json:"params"`
	// expand, if set, turns parameters into others before validation
	// (aidf's config reads AIDF's config.yml).
	expand func(map[string]string) (map[string]string, error)
	// check validates parameters against each other.
	check func(Values) error
	build func(Values) Policy
}

var registry []*Spec

func register(s *Spec) { registry = append(registry, s) }

// order is the order policies are listed in: the baselines, the seeds,
// the public agents.
var order = []string{"none", "recorded", "aidf", "two-tier", "prune", "cross-turn", "compress", "gemini-cli", "opencode", "codex", "langchain-trim"}

// Specs returns every registered policy: the baselines, the seed systems,
// then the public agents.
func Specs() []*Spec {
	out := append([]*Spec(nil), registry...)
	rank := func(s *Spec) int {
		if i := slices.Index(order, s.Name); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out, func(a, b *Spec) int { return rank(a) - rank(b) })
	return out
}

// Names returns the registered policy names.
func Names() []string {
	var out []string
	for _, s := range Specs() {
		out = append(out, s.Name)
	}
	return out
}

// Lookup returns the spec named name.
func Lookup(name string) (*Spec, error) {
	for _, s := range registry {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(Names(), ", "))
}

// New builds the policy named name with the given parameters (the others
// take their defaults). An unknown parameter or an invalid value is an
// error that says what is valid.
func New(name string, params map[string]string) (Policy, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if s.expand != nil {
		if params, err = s.expand(params); err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
	}
	v := Values{}
	for _, p := range s.Params {
		v[p.Name] = p.Default
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		i := slices.IndexFunc(s.Params, func(p Param) bool { return p.Name == k })
		if i < 0 {
			var names []string
			for _, p := range s.Params {
				names = append(names, p.Name)
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("policy %s: unknown parameter %q (it takes none)", name, k)
			}
			return nil, fmt.Errorf("policy %s: unknown parameter %q (valid: %s)", name, k, strings.Join(names, ", "))
		}
		if err := s.Params[i].check(params[k]); err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
		v[k] = params[k]
	}
	if s.check != nil {
		if err := s.check(v); err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
	}
	return s.build(v), nil
}

// Parse builds a policy from a SPEC: NAME or NAME:key=value,key=value.
func Parse(spec string) (Policy, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	params := map[string]string{}
	if rest != "" {
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" {
				return nil, fmt.Errorf("policy %s: %q is not key=value", name, kv)
			}
			if _, dup := params[k]; dup {
				return nil, fmt.Errorf("policy %s: %s given twice", name, k)
			}
			params[k] = v
		}
	}
	return New(name, params)
}

// base gives a policy its name and values.
type base struct {
	name   string
	values Values
}

func (b base) Name() string   { return b.name }
func (b base) Params() Values { return b.values }
