package main

import (
	"cmp"
	"fmt"

	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/suite"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// summarizerFlags choose and configure the summarization provider. A
// flag given on the command line always wins over a config's provider
// block; the config's fills only what the flags leave unset.
type summarizerFlags struct {
	Provider      string  `enum:",mock,heuristic,anthropic,openai" default:"" help:"Summarization provider: mock (the default), heuristic, anthropic or openai."`
	Model         string  `help:"Summarizer model for anthropic (default claude-haiku-4-5) or openai (default gpt-4o-mini)."`
	BaseURL       string  `name:"base-url" placeholder:"URL" help:"API base URL (default: $ANTHROPIC_BASE_URL or $OPENAI_BASE_URL, else the provider's): an OpenAI-compatible server such as llama.cpp (http://127.0.0.1:8080/v1), Ollama (http://localhost:11434/v1) or vLLM (http://localhost:8000/v1)."`
	CacheDir      string  `name:"cache-dir" placeholder:"DIR" help:"Response cache directory (default: ctxbench/ in the user cache directory)."`
	Offline       bool    `help:"Serve summaries from the response cache only; a miss is an error."`
	MaxSummaryUSD float64 `name:"max-summary-usd" placeholder:"X" help:"Refuse summarization calls that could take spending past X dollars (0: no cap)."`
	MaxTokensOld  bool    `name:"legacy-max-tokens" help:"Send max_tokens instead of max_completion_tokens (older OpenAI-compatible servers)."`
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
func (f summarizerFlags) build(e *env) (summarize.Summarizer, *summarize.Budget, error) {
	switch f.Provider {
	case "", "mock":
		return &summarize.Mock{}, nil, nil
	case "heuristic":
		return summarize.Heuristic{}, nil, nil
	}
	var c summarize.Client
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
	}
	switch f.Provider {
	case "anthropic":
		key := e.getenv(summarize.AnthropicKeyEnv)
		if key == "" && !f.Offline {
			return nil, nil, fmt.Errorf("the anthropic provider needs %s in the environment", summarize.AnthropicKeyEnv)
		}
		return &summarize.Anthropic{Client: c, BaseURL: cmp.Or(f.BaseURL, e.getenv("ANTHROPIC_BASE_URL")), APIKey: key, Model: f.Model}, c.Budget, nil
	default:
		return &summarize.OpenAI{Client: c, BaseURL: cmp.Or(f.BaseURL, e.getenv("OPENAI_BASE_URL")), APIKey: e.getenv(summarize.OpenAIKeyEnv), Model: f.Model,
			LegacyMaxTokens: f.MaxTokensOld}, c.Budget, nil
	}
}

type summarizeCmd struct {
	inputFlags
	summarizerFlags
	Template     string   `default:"generic" help:"Prompt: aidf (seed 000), two-tier (seed 001), cross-turn (seed 003) or generic (seed 004)."`
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
	sum, budget, err := c.build(e)
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
		fmt.Fprintf(e.stderr, "ctxbench: %s: %d messages summarized by %s %s: %d input, %d output tokens, $%.4f%s\n",
			t.File, len(t.Messages), sum.Name(), res.Model, res.Usage.Prompt(), res.Usage.Output, res.CostUSD, cached)
		_, err = fmt.Fprintln(e.stdout, res.Text)
		return err
	})
	if err != nil {
		return err
	}
	if budget != nil && !c.JSON {
		fmt.Fprintf(e.stderr, "ctxbench: summaries cost $%.4f of the $%.2f cap\n", budget.Spent(), budget.MaxUSD)
	}
	if c.JSON {
		return writeJSON(e.stdout, map[string]any{"summaries": outs})
	}
	return nil
}
