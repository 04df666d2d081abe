package window

import (
	"fmt"
	"github.com/ctxbench/ctxbench/internal/suggest"
	"maps"
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

func (p Param) check(v string) error {
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

// Parameter constructors for the registry.
func intParam(name string, def int, min, max float64, help string) Param {
	return Param{Name: name, Kind: KindInt, Default: strconv.Itoa(def), Min: min, Max: max, Help: help}
}

func floatParam(name string, def, min, max float64, minOpen bool, help string) Param {
	return Param{Name: name, Kind: KindFloat, Default: strconv.FormatFloat(def, 'g', -1, 64), Min: min, Max: max, MinOpen: minOpen, Help: help}
}

func boolParam(name string, def bool, help string) Param {
	return Param{Name: name, Kind: KindBool, Default: strconv.FormatBool(def), Min: math.NaN(), Max: math.NaN(), Help: help}
}

func enumParam(name, def string, enum []string, help string) Param {
	return Param{Name: name, Kind: KindString, Default: def, Enum: enum, Min: math.NaN(), Max: math.NaN(), Help: help}
}

func stringParam(name, def, help string) Param {
	return Param{Name: name, Kind: KindString, Default: def, Min: math.NaN(), Max: math.NaN(), Help: help}
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

// How a policy is held to the system it models (Spec.Held).
const (
	heldConformance = "its real code run on the corpus (make conformance), call by call"
	heldSource      = "table tests citing its source lines"
	heldDocs        = "table tests of its documentation's parameters"
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
var order = []string{"none", "recorded", "agent", "aidf", "two-tier", "prune", "cross-turn", "compress", "gemini-cli", "opencode", "codex", "claude-code", "langchain-trim", "langchain-summarization", "langchain-clear-tool-uses", "anthropic-clear-tool-uses", "anthropic-clear-thinking", "anthropic-compaction", "openai-compaction", "vercel-prune", "openai-trim", "cline"}

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
	if near := suggest.Closest(name, Names()); near != "" {
		return nil, fmt.Errorf("unknown policy %q, did you mean %q? (known: %s)", name, near, strings.Join(Names(), ", "))
	}
	return nil, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(Names(), ", "))
}

// A ParamError is a parameter value a policy rejects: out of the
// parameter's range, or at odds with another parameter (a preserved tail
// longer than the cap). An unknown policy or parameter is another error:
// a sweep skips the grid points whose values are at odds (Param "") and
// stops at any other error.
type ParamError struct {
	Policy string
	// Param names the parameter whose value is refused whatever the
	// others are (not a number, out of its range); "" when the values are
	// at odds with each other.
	Param string
	Err   error
}

func (e *ParamError) Error() string { return "policy " + e.Policy + ": " + e.Err.Error() }

func (e *ParamError) Unwrap() error { return e.Err }

// New builds the policy named name with the given parameters (the others
// take their defaults). An unknown parameter or an invalid value is an
// error that says what is valid. A name of policies joined by "+" builds
// a chain of them (see [Parse]), its parameters named "policy.param".
func New(name string, params map[string]string) (Policy, error) {
	if strings.Contains(name, "+") {
		return newChain(strings.Split(name, "+"), params)
	}
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
	for _, k := range slices.Sorted(maps.Keys(params)) {
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
			return nil, &ParamError{Policy: name, Param: k, Err: err}
		}
		v[k] = params[k]
	}
	if s.check != nil {
		if err := s.check(v); err != nil {
			return nil, &ParamError{Policy: name, Err: err}
		}
	}
	return s.build(v), nil
}

// Format renders p as the SPEC that builds it, the inverse of [Parse]:
// its name and the parameters that differ from the defaults, in the
// registry's order; a chain's parts joined by "+".
func Format(p Policy) string {
	if c, ok := p.(*chainPolicy); ok {
		parts := make([]string, len(c.parts))
		for i, q := range c.parts {
			parts[i] = Format(q)
		}
		return strings.Join(parts, "+")
	}
	s, err := Lookup(p.Name())
	if err != nil {
		return p.Name()
	}
	var kv []string
	for _, pa := range s.Params {
		if v := p.Params()[pa.Name]; v != pa.Default {
			kv = append(kv, pa.Name+"="+v)
		}
	}
	if len(kv) == 0 {
		return p.Name()
	}
	return p.Name() + ":" + strings.Join(kv, ",")
}

// Changed returns the parameters of p that differ from its defaults (a
// chain's named "policy.param").
func Changed(p Policy) map[string]string {
	out := map[string]string{}
	if c, ok := p.(*chainPolicy); ok {
		for _, q := range c.parts {
			for k, v := range Changed(q) {
				out[q.Name()+"."+k] = v
			}
		}
		return out
	}
	if s, err := Lookup(p.Name()); err == nil {
		for _, pa := range s.Params {
			if v := p.Params()[pa.Name]; v != pa.Default {
				out[pa.Name] = v
			}
		}
	}
	return out
}

// A Labeled is a policy and the name reports show for it: by default its
// SPEC ([Format]), or a label a config gives it.
type Labeled struct {
	Label  string
	Policy Policy
}

// ParseLabeled parses each SPEC and labels the policy with its [Format].
func ParseLabeled(specs []string) ([]Labeled, error) {
	out := make([]Labeled, 0, len(specs))
	for _, spec := range specs {
		p, err := Parse(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, Labeled{Label: Format(p), Policy: p})
	}
	return out, nil
}

// Parse builds a policy from a SPEC: NAME or NAME:key=value,key=value;
// or SPECs joined by "+", a chain that applies them in order at each
// call (anthropic-clear-thinking+anthropic-clear-tool-uses:keep=5, as
// the API applies its edits).
func Parse(spec string) (Policy, error) {
	if strings.Contains(spec, "+") {
		var names []string
		params := map[string]string{}
		for _, part := range strings.Split(spec, "+") {
			p, err := Parse(part)
			if err != nil {
				return nil, err
			}
			names = append(names, p.Name())
			for k, v := range Changed(p) {
				params[p.Name()+"."+k] = v
			}
		}
		return newChain(names, params)
	}
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
