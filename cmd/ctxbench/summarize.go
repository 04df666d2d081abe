package main

import (
	"cmp"
	"fmt"
	"math"
	"net/url"
	"time"

	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/suite"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// summarizerFlags choose and configure the summarization provider. A
// flag given on the command line always wins over a config's provider
// block; the config's fills only what the flags leave unset.
type summarizerFlags struct {
	Provider      string        `enum:",mock,heuristic,anthropic,openai" default:"" placeholder:"NAME" help:"Summarization provider: mock (the default), heuristic, anthropic or openai."`
	Model         string        `help:"Summarizer model for anthropic (default claude-haiku-4-5) or openai (default gpt-4o-mini)."`
	BaseURL       string        `name:"base-url" placeholder:"URL" help:"API base URL (default: $ANTHROPIC_BASE_URL or $OPENAI_BASE_URL, else the provider's): an OpenAI-compatible server such as llama.cpp (http://127.0.0.1:8080/v1), Ollama (http://localhost:11434/v1) or vLLM (http://localhost:8000/v1)."`
	CacheDir      string        `name:"cache-dir" placeholder:"DIR" help:"Response cache directory (default: ctxbench/ in the user cache directory)."`
	Offline       bool          `help:"Serve summaries from the response cache only; a miss is an error."`
	MaxSummaryUSD float64       `name:"max-summary-usd" placeholder:"X" help:"Refuse summarization calls that could take spending past X dollars (0: no cap)."`
	MaxTokensOld  bool          `name:"legacy-max-tokens" help:"Send max_tokens instead of max_completion_tokens (older OpenAI-compatible servers)."`
	Timeout       time.Duration `name:"provider-timeout" default:"2m" placeholder:"D" help:"Give up on a summarization attempt after D (a call's attempts and waits together stop after 5 minutes, or D if longer)."`
	Retries       int           `name:"provider-retries" default:"4" placeholder:"N" help:"Retry a failed summarization call (429, 5xx, no answer) up to N times."`
	AllowFailures bool          `name:"allow-summary-failures" help:"Go on when summarization calls fail (each policy then does what its source does without a summary), and exit 0; without it a failed call fails the command, and 3 stop the run."`
}

// providerRun is what a run of an HTTP summarizer reports at its end:
// the spending against the cap, and the calls that failed.
type providerRun struct {
	budget *summarize.Budget
	run    *summarize.Run
	allow  bool
}

// finish says what the summaries cost against the cap, and fails the
// command when a summarization call failed, unless
// --allow-summary-failures. A nil providerRun (mock, heuristic) says
// nothing.
func (p *providerRun) finish(e *env) error {
	if p == nil {
		return nil
	}
	if p.budget != nil {
		fmt.Fprintf(e.stderr, "ctxbench: summaries cost %s of the %s cap\n", pricing.FormatUSD(p.budget.Spent()), pricing.FormatUSD(p.budget.MaxUSD))
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
		"the results hold the policies' fallbacks where a summary failed; pass --allow-summary-failures to accept them")
}

// withConfig fills what the flags leave unset from a config's provider
// block.
func (f summarizerFlags) withConfig(p suite.ProviderConfig) summarizerFlags {
	if f.Provider == "" && p.Name != "" {
		f.Provider = p.Name
		if f.Model == "" {
			f.Model = p.Model
		}
		if f.BaseURL == "" {
			f.BaseURL = p.BaseURL
		}
	}
	return f
}

// build returns the summarizer the flags describe. API keys come from the
// environment only (ANTHROPIC_API_KEY, OPENAI_API_KEY), as do the
// providers' SDKs' base URL variables (ANTHROPIC_BASE_URL,
// OPENAI_BASE_URL) when --base-url is not given.
func (f summarizerFlags) build(e *env) (summarize.Summarizer, *providerRun, error) {
	if f.Model != "" && (f.Provider == "" || f.Provider == "mock" || f.Provider == "heuristic") {
		return nil, nil, fmt.Errorf("--model %q names the summarizer's model, and the %s summarizer uses none (give --provider anthropic or openai); to price the calls as %[1]q, the flag is --pricing-model (cost, replay, report, check)",
			f.Model, cmp.Or(f.Provider, "mock"))
	}
	switch f.Provider {
	case "", "mock":
		return &summarize.Mock{}, nil, nil
	case "heuristic":
		return summarize.Heuristic{}, nil, nil
	}
	if !(f.MaxSummaryUSD >= 0) || math.IsInf(f.MaxSummaryUSD, 0) {
		return nil, nil, fmt.Errorf("--max-summary-usd=%v: want a finite amount of dollars, 0 or more (0: no cap)", f.MaxSummaryUSD)
	}
	if f.Retries < 0 {
		return nil, nil, fmt.Errorf("--provider-retries=%d: want 0 or more", f.Retries)
	}
	if f.Timeout <= 0 {
		return nil, nil, fmt.Errorf("--provider-timeout=%v: want a positive duration", f.Timeout)
	}
	c := summarize.Client{Timeout: f.Timeout, MaxRetries: f.Retries, MaxCallTime: max(5*time.Minute, f.Timeout), Run: &summarize.Run{}}
	if f.Retries == 0 {
		c.MaxRetries = -1
	}
	if f.AllowFailures {
		c.Run.MaxFailedCalls = -1
	}
	run := &providerRun{run: c.Run, allow: f.AllowFailures}
	dir := f.CacheDir
	if dir == "" {
		d, err := summarize.DefaultCacheDir()
		if err != nil {
			return nil, nil, fmt.Errorf("--cache-dir: %w", err)
		}
		dir = d
	}
	c.Cache = &summarize.Cache{Dir: dir}
	c.Offline = f.Offline
	if f.MaxSummaryUSD > 0 {
		c.Budget = &summarize.Budget{MaxUSD: f.MaxSummaryUSD, Prices: pricing.Default()}
		run.budget = c.Budget
	}
	switch f.Provider {
	case "anthropic":
		key := e.getenv(summarize.AnthropicKeyEnv)
		if key == "" && !f.Offline {
			return nil, nil, fmt.Errorf("the anthropic provider needs %s in the environment", summarize.AnthropicKeyEnv)
		}
		base := cmp.Or(f.BaseURL, e.getenv("ANTHROPIC_BASE_URL"), summarize.AnthropicBaseURL)
		if err := checkBaseURL(base); err != nil {
			return nil, nil, err
		}
		return &summarize.Anthropic{Client: c, BaseURL: base, APIKey: key, Model: f.Model}, run, nil
	default:
		base := cmp.Or(f.BaseURL, e.getenv("OPENAI_BASE_URL"), summarize.OpenAIBaseURL)
		if err := checkBaseURL(base); err != nil {
			return nil, nil, err
		}
		return &summarize.OpenAI{Client: c, BaseURL: base, APIKey: e.getenv(summarize.OpenAIKeyEnv), Model: f.Model,
			LegacyMaxTokens: f.MaxTokensOld}, run, nil
	}
}

// checkBaseURL refuses a base URL that is not http or https with a host.
func checkBaseURL(base string) error {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--base-url %q: want http:// or https:// and a host", base)
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
	tmpl, err := summarize.TemplateByName(c.Template)
	if err != nil {
		return fmt.Errorf("--template: %w", err)
	}
	if c.TemplateFile != "" {
		if tmpl, err = summarize.LoadTemplate(c.TemplateFile, tmpl); err != nil {
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
			t.File, len(t.Messages), sum.Name(), res.Model, res.Usage.Prompt(), res.Usage.Output, pricing.FormatUSD(res.CostUSD), cached)
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
