package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctxbench/ctxbench/window"
)

// Config is ctxbench.yaml (DESIGN.md §13). Paths are relative to the
// file. Only transcripts and policies are required.
type Config struct {
	// Transcripts are globs and folders.
	Transcripts []string
	// Policies are the policies to replay, each with a label.
	Policies []LabeledPolicy
	// Estimators name the token estimators (default cl100k_base).
	Estimators []string
	// Provider is the summarization provider (default mock).
	Provider ProviderConfig
	// Model is the model whose prices apply (the cost work reads it).
	Model string
	// Budgets, Tolerance and Baseline are read by ctxbench check.
	Budgets   map[string]float64
	Tolerance map[string]map[string]float64
	Baseline  string
}

// ProviderConfig is the provider block.
type ProviderConfig struct {
	Name    string `yaml:"name"`
	Model   string `yaml:"model"`
	BaseURL string `yaml:"base_url"`
}

// A LabeledPolicy is a policy and the name reports show for it.
type LabeledPolicy struct {
	Label  string
	Policy window.Policy
}

var configKeys = []string{"transcripts", "policies", "estimators", "provider", "model", "budgets", "tolerance", "baseline"}

// LoadConfig reads a ctxbench.yaml.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw map[string]yaml.Node
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(configKeys, k) {
			n := raw[k]
			return nil, fmt.Errorf("%s:%d: unknown key %q (valid: %s)", path, n.Line, k, strings.Join(configKeys, ", "))
		}
	}
	for _, k := range []string{"transcripts", "policies"} {
		if _, ok := raw[k]; !ok {
			return nil, fmt.Errorf("%s: %q is required", path, k)
		}
	}
	c := &Config{}
	dir := filepath.Dir(path)
	decode := func(key string, v any) error {
		n, ok := raw[key]
		if !ok {
			return nil
		}
		if err := n.Decode(v); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", path, n.Line, key, err)
		}
		return nil
	}
	var policies []yaml.Node
	for _, d := range []struct {
		key string
		v   any
	}{{"transcripts", &c.Transcripts}, {"policies", &policies}, {"estimators", &c.Estimators}, {"provider", &c.Provider},
		{"model", &c.Model}, {"budgets", &c.Budgets}, {"tolerance", &c.Tolerance}, {"baseline", &c.Baseline}} {
		if err := decode(d.key, d.v); err != nil {
			return nil, err
		}
	}
	for i, t := range c.Transcripts {
		if !filepath.IsAbs(t) {
			c.Transcripts[i] = filepath.Join(dir, t)
		}
	}
	if c.Baseline != "" && !filepath.IsAbs(c.Baseline) {
		c.Baseline = filepath.Join(dir, c.Baseline)
	}
	for _, n := range policies {
		lp, err := policyNode(n)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n.Line, err)
		}
		c.Policies = append(c.Policies, lp)
	}
	if len(c.Policies) == 0 {
		return nil, fmt.Errorf("%s: no policies", path)
	}
	return c, nil
}

// policyNode reads a policy: a SPEC string, or {name, label, params}.
func policyNode(n yaml.Node) (LabeledPolicy, error) {
	if n.Kind == yaml.ScalarNode {
		p, err := window.Parse(n.Value)
		if err != nil {
			return LabeledPolicy{}, err
		}
		return LabeledPolicy{Label: n.Value, Policy: p}, nil
	}
	var m struct {
		Name   string         `yaml:"name"`
		Label  string         `yaml:"label"`
		Params map[string]any `yaml:"params"`
	}
	if err := n.Decode(&m); err != nil {
		return LabeledPolicy{}, err
	}
	params := map[string]string{}
	for k, v := range m.Params {
		switch v := v.(type) {
		case string:
			params[k] = v
		case int:
			params[k] = strconv.Itoa(v)
		case float64:
			params[k] = strconv.FormatFloat(v, 'g', -1, 64)
		case bool:
			params[k] = strconv.FormatBool(v)
		default:
			return LabeledPolicy{}, fmt.Errorf("policy %s: %s: want a number, a boolean or text", m.Name, k)
		}
	}
	p, err := window.New(m.Name, params)
	if err != nil {
		return LabeledPolicy{}, err
	}
	label := m.Label
	if label == "" {
		label = Spec(p)
	}
	return LabeledPolicy{Label: label, Policy: p}, nil
}

// Spec renders a policy as the SPEC that builds it: its name and the
// parameters that differ from the defaults, in the registry's order.
func Spec(p window.Policy) string {
	s, err := window.Lookup(p.Name())
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
