package window

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/suggest"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

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

// policyNames returns the registered policy names.
func policyNames() []string {
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
	if near := suggest.Closest(name, policyNames()); near != "" {
		return nil, fmt.Errorf("unknown policy %q, did you mean %q? (known: %s)", name, near, strings.Join(policyNames(), ", "))
	}
	return nil, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(policyNames(), ", "))
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
	if s.Expand != nil {
		if params, err = s.Expand(params); err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
	}
	v := Values{}
	for _, p := range s.Params {
		v[p.Name] = p.Default
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		i := slices.IndexFunc(s.Params, func(p policy.Param) bool { return p.Name == k })
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
		if err := s.Params[i].Check(params[k]); err != nil {
			return nil, &ParamError{Policy: name, Param: k, Err: err}
		}
		v[k] = params[k]
	}
	if s.Check != nil {
		if err := s.Check(v); err != nil {
			return nil, &ParamError{Policy: name, Err: err}
		}
	}
	return s.Build(v), nil
}

// format renders p as the SPEC that builds it, the inverse of [Parse]:
// its name and the parameters that differ from the defaults, in the
// registry's order; a chain's parts joined by "+".
func format(p Policy) string {
	if c, ok := p.(*chainPolicy); ok {
		parts := make([]string, len(c.parts))
		for i, q := range c.parts {
			parts[i] = format(q)
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

// changed returns the parameters of p that differ from its defaults (a
// chain's named "policy.param").
func changed(p Policy) map[string]string {
	out := map[string]string{}
	if c, ok := p.(*chainPolicy); ok {
		for _, q := range c.parts {
			for k, v := range changed(q) {
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
// SPEC, or a label a config gives it.
type Labeled struct {
	Label  string
	Policy Policy
}

// ParseLabeled parses each SPEC and labels the policy with the SPEC that
// builds it, the inverse of [Parse]: its name and the parameters that
// differ from the defaults, in the registry's order; a chain's parts
// joined by "+".
func ParseLabeled(specs []string) ([]Labeled, error) {
	out := make([]Labeled, 0, len(specs))
	for _, spec := range specs {
		p, err := Parse(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, Labeled{Label: format(p), Policy: p})
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
			for k, v := range changed(p) {
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
