package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Anthropic summarizes with the Anthropic Messages API:
// POST {BaseURL}/v1/messages with x-api-key and anthropic-version
// 2023-06-01.
type Anthropic struct {
	Client
	// BaseURL defaults to https://api.anthropic.com.
	BaseURL string
	// APIKey is the key; the command line reads it from ANTHROPIC_API_KEY
	// and nowhere else.
	APIKey string
	// Model defaults to claude-haiku-4-5.
	Model string
}

// Anthropic defaults.
const (
	anthropicBaseURL  = "https://api.anthropic.com"
	anthropicModel    = "claude-haiku-4-5"
	anthropicVersion  = "2023-06-01"
	anthropicKeyEnv   = "ANTHROPIC_API_KEY"
	openAIBaseURL     = "https://api.openai.com/v1"
	openAIModel       = "gpt-4o-mini"
	openAIKeyEnv      = "OPENAI_API_KEY"
	anthropicProvider = "anthropic"
	openaiProvider    = "openai"
)

// Name returns "anthropic".
func (*Anthropic) Name() string { return anthropicProvider }

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    string             `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type anthropicResponse struct {
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Usage *struct {
		InputTokens   int64 `json:"input_tokens"`
		OutputTokens  int64 `json:"output_tokens"`
		CacheRead     int64 `json:"cache_read_input_tokens"`
		CacheCreation int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// Summarize sends req as one user message (the template's system prompt
// apart) and returns the text blocks of the answer.
func (a *Anthropic) Summarize(ctx context.Context, req Request) (Result, error) {
	p, err := req.Render()
	if err != nil {
		return Result{}, err
	}
	model := orDefault(a.Model, anthropicModel)
	base := strings.TrimSuffix(orDefault(a.BaseURL, anthropicBaseURL), "/")
	body, err := json.Marshal(anthropicRequest{Model: model, MaxTokens: p.MaxTokens, System: p.System,
		Messages: []anthropicMessage{{Role: "user", Content: p.User}}})
	if err != nil {
		return Result{}, err
	}
	return a.do(ctx, &provider{
		name: anthropicProvider, baseURL: base, model: model, key: a.APIKey, keyEnv: anthropicKeyEnv,
		request: func(ctx context.Context, body []byte) (*http.Request, error) {
			return jsonRequest(ctx, base+"/v1/messages", body, map[string]string{
				"x-api-key": a.APIKey, "anthropic-version": anthropicVersion})
		},
		parseError: func(status int, body []byte) *apiError {
			var e struct {
				Error struct{ Type, Message string } `json:"error"`
			}
			_ = json.Unmarshal(body, &e)
			return &apiError{Provider: anthropicProvider, Status: status, Type: e.Error.Type, Message: orBody(e.Error.Message, body)}
		},
		parse: func(body []byte) (Result, error) {
			var r anthropicResponse
			if err := json.Unmarshal(body, &r); err != nil {
				return Result{}, err
			}
			if r.Usage == nil {
				return Result{}, fmt.Errorf("no usage in the response")
			}
			var text []string
			for _, c := range r.Content {
				if c.Type == "text" {
					text = append(text, c.Text)
				}
			}
			u := r.Usage
			return Result{Text: strings.Join(text, ""), Model: orDefault(r.Model, model),
				Usage: usageOf(u.InputTokens, u.CacheRead, u.CacheCreation, u.OutputTokens)}, nil
		},
	}, body, p)
}

// OpenAI summarizes with the Chat Completions API, or any compatible
// server (llama.cpp at http://127.0.0.1:8080/v1, Ollama at
// http://localhost:11434/v1, vLLM at http://localhost:8000/v1):
// POST {BaseURL}/chat/completions.
type OpenAI struct {
	Client
	// BaseURL defaults to https://api.openai.com/v1.
	BaseURL string
	// APIKey is sent as a bearer token when set (local servers need none);
	// the command line reads it from OPENAI_API_KEY and nowhere else.
	APIKey string
	// Model defaults to gpt-4o-mini.
	Model string
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens,
	// for servers that only know the older field.
	LegacyMaxTokens bool
}

// Name returns "openai".
func (*OpenAI) Name() string { return openaiProvider }

type openaiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openaiRequest struct {
	Model               string          `json:"model"`
	Messages            []openaiMessage `json:"messages"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
}

type openaiResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		PromptDetails    *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// Summarize sends req as a system message (when the template has one) and
// a user message, and returns the first choice's text.
func (o *OpenAI) Summarize(ctx context.Context, req Request) (Result, error) {
	p, err := req.Render()
	if err != nil {
		return Result{}, err
	}
	model := orDefault(o.Model, openAIModel)
	base := strings.TrimSuffix(orDefault(o.BaseURL, openAIBaseURL), "/")
	r := openaiRequest{Model: model}
	if p.System != "" {
		r.Messages = append(r.Messages, openaiMessage{"system", p.System})
	}
	r.Messages = append(r.Messages, openaiMessage{"user", p.User})
	if o.LegacyMaxTokens {
		r.MaxTokens = p.MaxTokens
	} else {
		r.MaxCompletionTokens = p.MaxTokens
	}
	body, err := json.Marshal(r)
	if err != nil {
		return Result{}, err
	}
	headers := map[string]string{}
	if o.APIKey != "" {
		headers["authorization"] = "Bearer " + o.APIKey
	}
	return o.do(ctx, &provider{
		name: openaiProvider, baseURL: base, model: model, key: o.APIKey, keyEnv: openAIKeyEnv,
		request: func(ctx context.Context, body []byte) (*http.Request, error) {
			return jsonRequest(ctx, base+"/chat/completions", body, headers)
		},
		parseError: func(status int, body []byte) *apiError {
			var e struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
					Code    any    `json:"code"`
				} `json:"error"`
			}
			_ = json.Unmarshal(body, &e)
			typ := e.Error.Type
			if c, ok := e.Error.Code.(string); ok && c != "" {
				typ = c
			}
			return &apiError{Provider: openaiProvider, Status: status, Type: typ, Message: orBody(e.Error.Message, body)}
		},
		parse: func(body []byte) (Result, error) {
			var r openaiResponse
			if err := json.Unmarshal(body, &r); err != nil {
				return Result{}, err
			}
			if len(r.Choices) == 0 || r.Choices[0].Message.Content == nil {
				return Result{}, fmt.Errorf("no message in the response")
			}
			u := r.Usage
			if u == nil {
				return Result{}, fmt.Errorf("no usage in the response")
			}
			var cached int64
			if u.PromptDetails != nil {
				cached = u.PromptDetails.CachedTokens
			}
			return Result{Text: *r.Choices[0].Message.Content, Model: orDefault(r.Model, model),
				Usage: usageOf(u.PromptTokens-cached, cached, 0, u.CompletionTokens)}, nil
		},
	}, body, p)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// orBody returns msg, or a short excerpt of a body that is not the API's
// error JSON.
func orBody(msg string, body []byte) string {
	if msg != "" {
		return msg
	}
	s := strings.Join(strings.Fields(string(body[:min(len(body), 4096)])), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
