package suitecheck

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/strictyaml"
	"github.com/ctxbench/ctxbench/window"
)

// Config is ctxbench.yaml: the suite `ctxbench check` runs. Paths in it
// are relative to the file. Only transcripts and policies are required;
// every value is checked when the file is loaded, so a mistake is
// reported with its line before anything is replayed.
type Config struct {
	// Path is the file the config was read from, and Dir its folder, to
	// which the baseline's transcript paths are relative.
	Path, Dir string
	// Transcripts are globs and folders.
	Transcripts []string
	// Policies are the policies to replay, each with a label.
	Policies []window.Labeled
	// Estimators name the token estimators (default cl100k_base); the
	// first one's counts are compared and budgeted.
	Estimators []string
	// Provider is the summarization provider (default mock).
	Provider ProviderConfig
	// Model prices the calls (default: each transcript's own model).
	Model string
	// Budgets are limits on each case's metrics, by name (the registry's).
	Budgets map[string]float64
	// Tolerance is how far each metric may move from the baseline.
	Tolerance Tolerances
	// Baseline is the baseline file ("": ctxbench.baseline.json beside
	// the config).
	Baseline string
	// Digest identifies the suite: the SHA-256 of the config file, which
	// the partials of a sharded run carry.
	Digest string
}

// ProviderConfig is the provider block.
type ProviderConfig struct {
	Name    string `yaml:"name"`
	Model   string `yaml:"model"`
	BaseURL string `yaml:"base_url"`
}

var configKeys = []string{"transcripts", "policies", "estimators", "provider", "model", "budgets", "tolerance", "baseline"}

// LoadConfig reads a ctxbench.yaml. Any problem — an unknown key, a
// policy or parameter, estimator, budget or tolerance that does not
// exist, a value out of range, a second YAML document — is an error that
// names the file and line.
func LoadConfig(path string) (*Config, error) {
	b, err := limit.ReadFile(path, limit.Config)
	if err != nil {
		return nil, err
	}
	raw, err := configNodes(path, b)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	c := &Config{Path: path, Dir: filepath.Dir(path), Digest: hex.EncodeToString(sum[:])}
	at := func(n *yaml.Node, err error) error { return fmt.Errorf("%s:%d: %w", path, n.Line, err) }
	var policies []yaml.Node
	for _, d := range []struct {
		key string
		v   any
	}{{"transcripts", &c.Transcripts}, {"policies", &policies}, {"estimators", &c.Estimators}, {"provider", &c.Provider},
		{"model", &c.Model}, {"budgets", &c.Budgets}, {"baseline", &c.Baseline}} {
		if n, ok := raw[d.key]; ok {
			if err := n.Decode(d.v); err != nil {
				return nil, at(&n, fmt.Errorf("%s: %w", d.key, err))
			}
		}
	}
	if err := c.resolvePaths(); err != nil {
		return nil, err
	}
	if c.Policies, err = configPolicies(policies, at); err != nil {
		return nil, err
	}
	if len(c.Policies) == 0 {
		return nil, fmt.Errorf("%s: no policies", path)
	}
	if n, ok := raw["estimators"]; ok {
		for _, name := range c.Estimators {
			if _, err := estimate.New(name, estimate.OverheadNone); err != nil {
				return nil, at(&n, fmt.Errorf("estimators: %w", err))
			}
		}
	}
	if n, ok := raw["budgets"]; ok {
		if err := checkBudgets(c.Budgets); err != nil {
			return nil, at(&n, err)
		}
	}
	if n, ok := raw["tolerance"]; ok {
		if c.Tolerance, err = tolerances(&n); err != nil {
			return nil, fmt.Errorf("%s:%w", path, err)
		}
	}
	return c, nil
}

// configNodes reads a config's top-level keys, refusing a key it does
// not know and requiring transcripts and policies.
func configNodes(path string, b []byte) (map[string]yaml.Node, error) {
	if err := strictyaml.Check(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var raw map[string]yaml.Node
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
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
	return raw, nil
}

// resolvePaths makes the transcripts and the baseline paths from the
// config's directory, ~ expanded.
func (c *Config) resolvePaths() error {
	if len(c.Transcripts) == 0 {
		return fmt.Errorf("%s: no transcripts: list the suite's files or globs under transcripts", c.Path)
	}
	for i, t := range c.Transcripts {
		t, err := expandHome(t)
		if err != nil {
			return fmt.Errorf("%s: transcripts: %q: %w", c.Path, c.Transcripts[i], err)
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(c.Dir, t)
		}
		c.Transcripts[i] = t
	}
	var err error
	if c.Baseline, err = expandHome(c.Baseline); err != nil {
		return fmt.Errorf("%s: baseline: %w", c.Path, err)
	}
	if c.Baseline != "" && !filepath.IsAbs(c.Baseline) {
		c.Baseline = filepath.Join(c.Dir, c.Baseline)
	}
	return nil
}

// configPolicies reads the policies' nodes, refusing two of one label;
// at names a node's line.
func configPolicies(nodes []yaml.Node, at func(*yaml.Node, error) error) ([]window.Labeled, error) {
	var out []window.Labeled
	labels := map[string]int{}
	for _, n := range nodes {
		lp, err := policyNode(n)
		if err != nil {
			return nil, at(&n, err)
		}
		if line, dup := labels[lp.Label]; dup {
			return nil, at(&n, fmt.Errorf("policies: a second policy labelled %q (the first at line %d): give one a label ({name, label, params})", lp.Label, line))
		}
		labels[lp.Label] = n.Line
		out = append(out, lp)
	}
	return out, nil
}

// BaselinePath returns the baseline file: the config's, else
// ctxbench.baseline.json beside the config.
func (c *Config) BaselinePath() string {
	if c.Baseline != "" {
		return c.Baseline
	}
	return filepath.Join(c.Dir, "ctxbench.baseline.json")
}

// Estimator returns the estimator whose counts are compared and budgeted:
// the first of Estimators, else cl100k_base.
func (c *Config) Estimator() estimate.Estimator {
	if len(c.Estimators) > 0 {
		return estimate.MustNew(c.Estimators[0], estimate.OverheadNone)
	}
	return estimate.MustNew("cl100k_base", estimate.OverheadNone)
}

// checkBudgets rejects a budget that does not exist, a limit that is
// not a finite number ≥ 0, and a minimum share over 1.
func checkBudgets(b map[string]float64) error {
	for _, name := range slices.Sorted(maps.Keys(b)) {
		if !slices.Contains(budgetNames, name) {
			return fmt.Errorf("budgets: unknown budget %q (valid: %s)", name, strings.Join(budgetNames, ", "))
		}
		if v := b[name]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("budgets: %s is %v; want a number ≥ 0", name, v)
		}
		if v := b[name]; strings.HasPrefix(name, "min_") && v > 1 {
			return fmt.Errorf("budgets: %s is %v; want a share, 0 to 1", name, v)
		}
	}
	return nil
}

// tolerances reads the tolerance block ({default: {relative: …},
// peak_tokens: {relative: …, absolute: …}}); its errors start with the
// line.
func tolerances(n *yaml.Node) (Tolerances, error) {
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%d: tolerance: want a mapping of metrics to {relative, absolute}", n.Line)
	}
	t := Tolerances{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		name := key.Value
		if name != "default" && !slices.Contains(checkedMetrics, name) {
			return nil, fmt.Errorf("%d: tolerance: unknown metric %q (valid: default, %s)", key.Line, name, strings.Join(checkedMetrics, ", "))
		}
		var fields map[string]yaml.Node
		if err := val.Decode(&fields); err != nil {
			return nil, fmt.Errorf("%d: tolerance %s: want {relative: X, absolute: Y}", val.Line, name)
		}
		var tol Tol
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			f := fields[k]
			x, err := strconv.ParseFloat(f.Value, 64)
			if f.Kind != yaml.ScalarNode || err != nil {
				return nil, fmt.Errorf("%d: tolerance %s.%s: %q is not a number", f.Line, name, k, f.Value)
			}
			switch k {
			case "relative":
				tol.Relative = x
			case "absolute":
				tol.Absolute = x
			default:
				return nil, fmt.Errorf("%d: tolerance %s: unknown field %q (valid: relative, absolute)", f.Line, name, k)
			}
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%d: tolerance %s.%s: %v; want a number ≥ 0", f.Line, name, k, x)
			}
		}
		t[name] = tol
	}
	return t, nil
}

// policyNode reads a policy: a SPEC string, or {name, label, params}. Its
// label, which names its cases, is the one given, else the policy's name:
// parameters are not part of a case's identity.
func policyNode(n yaml.Node) (window.Labeled, error) {
	if n.Kind == yaml.ScalarNode {
		p, err := window.Parse(n.Value)
		if err != nil {
			return window.Labeled{}, err
		}
		return window.Labeled{Label: p.Name(), Policy: p}, nil
	}
	var m struct {
		Name   string         `yaml:"name"`
		Label  string         `yaml:"label"`
		Params map[string]any `yaml:"params"`
	}
	if err := n.Decode(&m); err != nil {
		return window.Labeled{}, err
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
			return window.Labeled{}, fmt.Errorf("policy %s: %s: want a number, a boolean or text", m.Name, k)
		}
	}
	p, err := window.New(m.Name, params)
	if err != nil {
		return window.Labeled{}, err
	}
	label := m.Label
	if label == "" {
		label = p.Name()
	}
	if label != p.Name() && isPolicy(label) {
		// The baseline would take one policy's case for the other's.
		return window.Labeled{}, fmt.Errorf("policies: the label %q is another policy's name; label %s otherwise", label, p.Name())
	}
	return window.Labeled{Label: label, Policy: p}, nil
}
