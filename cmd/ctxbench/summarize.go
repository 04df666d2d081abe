package main

import (
	"cmp"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/dollars"
	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// summarizerFlags choose and configure the summarization provider:
// --summarizer SPEC, the policy SPEC's grammar (NAME:key=value,…). The
// ten flags it replaces are hidden aliases that warn, one release. A
// spec or flag given on the command line always wins over a config's
// provider block; the config's fills only what they leave unset.
type summarizerFlags struct {
	Summarizer []string `placeholder:"SPEC" sep:"none" help:"The summarizer of the policies that summarize: mock (the default), heuristic, anthropic or openai, as NAME:key=value,… (NAME left out: the config's provider) with keys model (anthropic: claude-haiku-4-5, openai: gpt-4o-mini), base_url (an OpenAI-compatible server: llama.cpp, Ollama, vLLM; default $ANTHROPIC_BASE_URL or $OPENAI_BASE_URL), cache_dir (the response cache), offline=true (the cache alone), max_usd (refuse calls past X dollars), timeout (per attempt, 2m), retries (4), legacy_max_tokens=true (older OpenAI-compatible servers), allow_failures=true (go on past failed calls); a value holds no comma. API keys: $ANTHROPIC_API_KEY, $OPENAI_API_KEY."`

	Provider      string         `hidden:"" enum:",mock,heuristic,anthropic,openai" default:""`
	Model         string         `hidden:""`
	BaseURL       string         `name:"base-url" hidden:""`
	CacheDir      string         `name:"cache-dir" hidden:""`
	Offline       bool           `hidden:""`
	MaxSummaryUSD *float64       `name:"max-summary-usd" hidden:""`
	MaxTokensOld  bool           `name:"legacy-max-tokens" hidden:""`
	Timeout       *time.Duration `name:"provider-timeout" hidden:""`
	Retries       *int           `name:"provider-retries" hidden:""`
	AllowFailures bool           `name:"allow-summary-failures" hidden:""`

	config suitecheck.ProviderConfig
}

// A summarizerSpec is a parsed --summarizer SPEC.
type summarizerSpec struct {
	name, model, baseURL, cacheDir         string
	offline, legacyMaxTokens, allowFailure bool
	maxUSD                                 float64
	timeout                                time.Duration
	retries                                int
	set                                    map[string]bool // the keys given
}

// summarizerKeys are the keys of a summarizer SPEC, in the help's order.
var summarizerKeys = []string{"model", "base_url", "cache_dir", "offline", "max_usd", "timeout", "retries", "legacy_max_tokens", "allow_failures"}

// parseSummarizer parses a summarizer SPEC: NAME, or NAME:key=value,….
func parseSummarizer(spec string) (summarizerSpec, error) {
	s := summarizerSpec{timeout: 2 * time.Minute, retries: 4, set: map[string]bool{}}
	name, rest, _ := strings.Cut(spec, ":")
	s.name = strings.TrimSpace(name)
	switch s.name {
	case "", "mock", "heuristic", "anthropic", "openai":
	default:
		return s, fmt.Errorf("--summarizer %q: no summarizer %q (mock, heuristic, anthropic or openai)", spec, s.name)
	}
	if strings.TrimSpace(rest) == "" {
		return s, nil
	}
	// The switches: on or off, on when named alone.
	switches := map[string]*bool{"offline": &s.offline, "legacy_max_tokens": &s.legacyMaxTokens, "allow_failures": &s.allowFailure}
	for kv := range strings.SplitSeq(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case k == "":
			return s, fmt.Errorf("--summarizer %q: an empty setting: want key=value, the settings apart by ','", spec)
		case !ok && switches[k] != nil:
			v = "true"
		case !ok && len(s.set) > 0:
			return s, fmt.Errorf("--summarizer %q: %q: want key=value (a value holds no ','; the settings are apart by ',')", spec, kv)
		case !ok:
			return s, fmt.Errorf("--summarizer %q: %q: want key=value", spec, kv)
		}
		if s.set[k] {
			return s, fmt.Errorf("--summarizer %q: %s given twice", spec, k)
		}
		bad := func(want string) error { return fmt.Errorf("--summarizer %q: %s=%s: want %s", spec, k, v, want) }
		var err error
		switch k {
		case "model":
			s.model = v
		case "base_url":
			s.baseURL = v
		case "cache_dir":
			s.cacheDir = v
		case "offline", "legacy_max_tokens", "allow_failures":
			b, perr := strconv.ParseBool(v)
			if perr != nil {
				return s, bad("true or false")
			}
			*switches[k] = b
		case "max_usd":
			if s.maxUSD, err = strconv.ParseFloat(v, 64); err != nil || !(s.maxUSD >= 0) || math.IsInf(s.maxUSD, 0) {
				return s, bad("a finite amount of dollars, 0 or more (0: no cap)")
			}
		case "timeout":
			if s.timeout, err = time.ParseDuration(v); err != nil || s.timeout <= 0 {
				return s, bad("a positive duration such as 30s or 2m")
			}
		case "retries":
			if s.retries, err = strconv.Atoi(v); err != nil || s.retries < 0 {
				return s, bad("a count, 0 or more")
			}
		default:
			return s, fmt.Errorf("--summarizer %q: no key %q (%s; a value holds no ',')", spec, k, strings.Join(summarizerKeys, ", "))
		}
		s.set[k] = true
	}
	return s, nil
}

// spec returns the summarizer the flags name: --summarizer, with the
// hidden old flags each mapped to its key (warned on stderr), and the
// config's provider block where neither names one.
func (f summarizerFlags) spec(e *env) (summarizerSpec, error) {
	if len(f.Summarizer) > 1 {
		return summarizerSpec{}, fmt.Errorf("--summarizer given %d times: give it once, its settings apart by ','", len(f.Summarizer))
	}
	given := ""
	if len(f.Summarizer) == 1 {
		given = f.Summarizer[0]
	}
	s, err := parseSummarizer(given)
	if err != nil {
		return s, err
	}
	var oldFlags, oldKeys []string
	if f.Provider != "" {
		if s.name != "" {
			return s, fmt.Errorf("--provider and --summarizer both given: give --summarizer alone")
		}
		oldFlags = append(oldFlags, "--provider")
		s.name = f.Provider
	}
	for _, o := range []struct {
		flag, key, value string
		given            bool
		apply            func()
	}{
		{"model", "model", f.Model, f.Model != "", func() { s.model = f.Model }},
		{"base-url", "base_url", f.BaseURL, f.BaseURL != "", func() { s.baseURL = f.BaseURL }},
		{"cache-dir", "cache_dir", f.CacheDir, f.CacheDir != "", func() { s.cacheDir = f.CacheDir }},
		{"offline", "offline", "true", f.Offline, func() { s.offline = true }},
		{"legacy-max-tokens", "legacy_max_tokens", "true", f.MaxTokensOld, func() { s.legacyMaxTokens = true }},
		{"allow-summary-failures", "allow_failures", "true", f.AllowFailures, func() { s.allowFailure = true }},
		{"max-summary-usd", "max_usd", fmtPtr(f.MaxSummaryUSD), f.MaxSummaryUSD != nil, func() { s.maxUSD = *f.MaxSummaryUSD }},
		{"provider-timeout", "timeout", fmtPtr(f.Timeout), f.Timeout != nil, func() { s.timeout = *f.Timeout }},
		{"provider-retries", "retries", fmtPtr(f.Retries), f.Retries != nil, func() { s.retries = *f.Retries }},
	} {
		if !o.given {
			continue
		}
		if s.set[o.key] {
			return s, fmt.Errorf("--%s and --summarizer's %s both given: give --summarizer alone", o.flag, o.key)
		}
		o.apply()
		s.set[o.key] = true
		oldFlags, oldKeys = append(oldFlags, "--"+o.flag), append(oldKeys, o.key+"="+o.value)
	}
	if len(oldFlags) > 0 {
		spec := s.name
		if len(oldKeys) > 0 {
			spec += ":" + strings.Join(oldKeys, ",")
		}
		fmt.Fprintf(e.stderr, "ctxbench: %s: old spelling, which goes in the next release; the same is --summarizer %s\n", strings.Join(oldFlags, ", "), spec)
	}
	if f.MaxSummaryUSD != nil && (!(s.maxUSD >= 0) || math.IsInf(s.maxUSD, 0)) {
		return s, fmt.Errorf("--max-summary-usd=%v: want a finite amount of dollars, 0 or more (0: no cap)", s.maxUSD)
	}
	if f.Retries != nil && s.retries < 0 {
		return s, fmt.Errorf("--provider-retries=%d: want 0 or more", s.retries)
	}
	if f.Timeout != nil && s.timeout <= 0 {
		return s, fmt.Errorf("--provider-timeout=%v: want a positive duration", s.timeout)
	}
	// The config's block fills what the command line leaves unset, when
	// the command line names its provider or none.
	if p := f.config; p.Name != "" && (s.name == "" || s.name == p.Name) {
		s.name = p.Name
		if !s.set["model"] {
			s.model = p.Model
		}
		if !s.set["base_url"] {
			s.baseURL = p.BaseURL
		}
	}
	return s, nil
}

// fmtPtr formats *v, "" when v is nil.
func fmtPtr[T any](v *T) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(*v)
}

// providerRun is what a run of an HTTP summarizer reports at its end:
// the spending against the cap, and the calls that failed.
type providerRun struct {
	run   *summarize.Run
	allow bool
}

// finish says what the summaries cost against the cap, and fails the
// command when a summarization call failed, unless
// allow_failures. A nil providerRun (mock, heuristic) says
// nothing.
func (p *providerRun) finish(e *env) error {
	if p == nil {
		return nil
	}
	if p.run.MaxUSD != 0 {
		fmt.Fprintf(e.stderr, "ctxbench: summaries cost %s of the %s cap\n", dollars.Format(p.run.Spent()), dollars.Format(p.run.MaxUSD))
	}
	n, first := p.run.Failed()
	if n == 0 {
		return nil
	}
	if p.allow {
		fmt.Fprintf(e.stderr, "ctxbench: %d summarization calls failed (allowed); the first: %v\n", n, first)
		return nil
	}
	return withHint(fmt.Errorf("%d summarization calls failed; the first: %w", n, first),
		"the results hold the policies' fallbacks where a summary failed; pass --summarizer NAME:allow_failures=true to accept them")
}

// withConfig fills what the flags leave unset from a config's provider
// block.
func (f summarizerFlags) withConfig(p suitecheck.ProviderConfig) summarizerFlags {
	f.config = p
	return f
}

// build returns the summarizer the flags describe. API keys come from the
// environment only (ANTHROPIC_API_KEY, OPENAI_API_KEY), as do the
// providers' SDKs' base URL variables (ANTHROPIC_BASE_URL,
// OPENAI_BASE_URL) when base_url is not given.
func (f summarizerFlags) build(e *env) (summarize.Summarizer, *providerRun, error) {
	sp, err := f.spec(e)
	if err != nil {
		return nil, nil, err
	}
	if sp.model != "" && (sp.name == "" || sp.name == "mock" || sp.name == "heuristic") {
		return nil, nil, fmt.Errorf("the summarizer's model %q (--model, or model= in --summarizer) names the model a summarizer calls, and the %s summarizer calls none (give --summarizer anthropic:model=%[1]s or openai:model=%[1]s); to price the calls as %[1]q, the flag is --pricing-model (cost, replay, report, check)",
			sp.model, cmp.Or(sp.name, "mock"))
	}
	switch sp.name {
	case "", "mock":
		return &summarize.Mock{}, nil, nil
	case "heuristic":
		return summarize.Heuristic{}, nil, nil
	}
	c := summarize.Client{Timeout: sp.timeout, MaxRetries: sp.retries, MaxCallTime: max(5*time.Minute, sp.timeout), Run: &summarize.Run{}}
	if sp.retries == 0 {
		c.MaxRetries = -1
	}
	if sp.allowFailure {
		c.Run.MaxFailedCalls = -1
	}
	run := &providerRun{run: c.Run, allow: sp.allowFailure}
	dir := sp.cacheDir
	if dir == "" {
		d, err := defaultCacheDir()
		if err != nil {
			return nil, nil, fmt.Errorf("the summarizer's cache_dir: %w", err)
		}
		dir = d
	}
	c.CacheDir = dir
	c.Offline = sp.offline
	if sp.maxUSD > 0 {
		c.Run.MaxUSD, c.Run.Prices = sp.maxUSD, pricing.Default()
	}
	switch sp.name {
	case "anthropic":
		key := e.getenv(anthropicKeyEnv)
		if key == "" && !sp.offline {
			return nil, nil, fmt.Errorf("the anthropic provider needs %s in the environment", anthropicKeyEnv)
		}
		base := cmp.Or(sp.baseURL, e.getenv("ANTHROPIC_BASE_URL")) // "": the provider's own
		if base != "" {
			if err := checkBaseURL(base); err != nil {
				return nil, nil, err
			}
		}
		return &summarize.Anthropic{Client: c, BaseURL: base, APIKey: key, Model: sp.model}, run, nil
	default:
		base := cmp.Or(sp.baseURL, e.getenv("OPENAI_BASE_URL")) // "": the provider's own
		if base != "" {
			if err := checkBaseURL(base); err != nil {
				return nil, nil, err
			}
		}
		return &summarize.OpenAI{Client: c, BaseURL: base, APIKey: e.getenv(openAIKeyEnv), Model: sp.model,
			LegacyMaxTokens: sp.legacyMaxTokens}, run, nil
	}
}

// checkBaseURL refuses a base URL that is not http or https with a host.
func checkBaseURL(base string) error {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the summarizer's base URL %q: want http:// or https:// and a host", base)
	}
	return nil
}

type summarizeCmd struct {
	inputFlags `group:"input"`
	summarizerFlags
	Template     string   `default:"generic" help:"Prompt: aidf (AIDF's v0.8.0 plan), two-tier (ralph-gpu's Decision 005), cross-turn (the AI Context Management document) or generic (Dexto's Complete Context Management Plan)."`
	TemplateFile string   `name:"template-file" placeholder:"FILE" help:"Read the prompt from FILE, a text/template using {{.Conversation}} and {{.Previous}}."`
	MaxTokens    int      `name:"max-tokens" help:"Output limit (default: the template's)."`
	JSON         bool     `help:"Print one JSON document."`
	Paths        []string `arg:"" name:"path" help:"Transcripts whose messages to summarize."`
}

type summarizeOutput struct {
	File     string           `json:"file"`
	ID       string           `json:"id"`
	Provider string           `json:"provider"`
	Model    string           `json:"model"`
	Messages int              `json:"messages"`
	Cached   bool             `json:"cached"`
	Usage    transcript.Usage `json:"usage"`
	CostUSD  float64          `json:"cost_usd"`
	Summary  string           `json:"summary"`
}

func (c *summarizeCmd) Run(e *env) error {
	tmpl, err := templateByName(c.Template)
	if err != nil {
		return fmt.Errorf("--template: %w", err)
	}
	if c.TemplateFile != "" {
		if tmpl, err = loadTemplate(c.TemplateFile, tmpl); err != nil {
			return fmt.Errorf("--template-file: %w", err)
		}
	}
	sum, prun, err := c.build(e)
	if err != nil {
		return err
	}
	var outs []summarizeOutput
	_, err = readInputs(e, c.Paths, c.inputFlags, false, func(t *transcript.Transcript) error {
		res, err := sum.Summarize(e.ctx, summarize.Request{Messages: t.Messages, Template: tmpl, MaxTokens: c.MaxTokens})
		if err != nil {
			return fmt.Errorf("%s: summarizing: %w", t.File, err)
		}
		out := summarizeOutput{File: t.File, ID: t.ID, Provider: sum.Name(), Model: res.Model, Messages: len(t.Messages),
			Cached: res.Cached, Usage: res.Usage, CostUSD: res.CostUSD, Summary: res.Text}
		if c.JSON {
			outs = append(outs, out)
			return nil
		}
		cached := ""
		if res.Cached {
			cached = ", from the cache"
		}
		fmt.Fprintf(e.stderr, "ctxbench: %s: %d messages summarized by %s %s: %d input, %d output tokens, %s%s\n",
			t.File, len(t.Messages), sum.Name(), res.Model, res.Usage.Prompt(), res.Usage.Output, dollars.Format(res.CostUSD), cached)
		_, err = fmt.Fprintln(e.stdout, res.Text)
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		if err := e.writeJSON(map[string]any{"summaries": outs}); err != nil {
			return err
		}
	}
	return prun.finish(e)
}

// The environment variables the providers' API keys are read from, and
// from nowhere else.
const (
	anthropicKeyEnv = "ANTHROPIC_API_KEY"
	openAIKeyEnv    = "OPENAI_API_KEY"
)

// defaultCacheDir returns ctxbench's directory in the user's cache
// directory: where the summarizers' responses are cached.
func defaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ctxbench"), nil
}

// summaryTemplates are the prompts --template names.
var summaryTemplates = []*summarize.Template{summarize.AIDF, summarize.TwoTier, summarize.CrossTurn, summarize.Generic}

// templateByName returns the template called name.
func templateByName(name string) (*summarize.Template, error) {
	var names []string
	for _, t := range summaryTemplates {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return nil, fmt.Errorf("unknown template %q (known: %s)", name, strings.Join(names, ", "))
}

// loadTemplate reads a prompt from a file, to use in place of base's: the
// file is a text/template using {{.Conversation}} and, optionally,
// {{.Previous}}. The result keeps base's output limit.
func loadTemplate(path string, base *summarize.Template) (*summarize.Template, error) {
	b, err := limit.ReadFile(path, limit.Config)
	if err != nil {
		return nil, err
	}
	t := &summarize.Template{Name: "file:" + path, Source: path, Prompt: string(b), MaxTokens: base.MaxTokens}
	if _, err := (summarize.Request{Template: t}).Render(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !strings.Contains(t.Prompt, "{{.Conversation}}") {
		return nil, fmt.Errorf("%s: the template never uses {{.Conversation}}", path)
	}
	return t, nil
}
