package decode

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// OpenaiMessage is a Chat Completions message, as logged by agents: the
// standard fields plus the usage some logs attach (top level, or
// mini-swe-agent's extra.response). A line holding "messages" instead is a
// whole conversation.
type OpenaiMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	FunctionCall *struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function_call"`
	ToolCallID       string       `json:"tool_call_id"`
	ReasoningContent *string      `json:"reasoning_content"`
	Usage            *OpenaiUsage `json:"usage"`
	Model            string       `json:"model"`
	ID               string       `json:"id"`
	Timestamp        string       `json:"timestamp"`
	Extra            *struct {
		Response *struct {
			Created int64        `json:"created"`
			ID      string       `json:"id"`
			Model   string       `json:"model"`
			Usage   *OpenaiUsage `json:"usage"`
		} `json:"response"`
	} `json:"extra"`

	Messages   json.RawMessage `json:"messages"`
	InstanceID string          `json:"instance_id"`
	Info       *struct {
		ModelStats *struct {
			InstanceCost float64 `json:"instance_cost"`
		} `json:"model_stats"`
	} `json:"info"`
}

// OpenaiUsage is the Chat Completions usage object, with the cache fields
// that LiteLLM (Anthropic models) and DeepSeek add.
type OpenaiUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	PromptDetails    *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	CacheCreation       int64  `json:"cache_creation_input_tokens"`
	CacheReadInput      *int64 `json:"cache_read_input_tokens"`
	PromptCacheHitToken *int64 `json:"prompt_cache_hit_tokens"`
}

// Usage converts OpenAI-style usage: prompt_tokens counts the whole prompt,
// so the uncached input is prompt_tokens − cached_tokens −
// cache_creation_input_tokens (the last is LiteLLM's report of Anthropic
// cache writes, which prompt_tokens includes).
func (o *OpenaiUsage) Usage() *model.Usage {
	if o == nil {
		return nil
	}
	var cached int64
	switch {
	case o.PromptDetails != nil && o.PromptDetails.CachedTokens > 0:
		cached = o.PromptDetails.CachedTokens
	case o.CacheReadInput != nil:
		cached = *o.CacheReadInput
	case o.PromptCacheHitToken != nil:
		cached = *o.PromptCacheHitToken
	}
	u := &model.Usage{CacheRead: cached, CacheWrite: o.CacheCreation, Output: o.CompletionTokens}
	u.Input = o.PromptTokens - cached - o.CacheCreation
	if o.PromptTokens < 0 {
		// A negative count is kept, for the usage check to refuse it.
		u.Input = o.PromptTokens
	} else if u.Input < 0 {
		// prompt_tokens did not include the cache writes.
		u.Input = max(0, o.PromptTokens-cached)
	}
	if o.CompletionDetails != nil {
		u.Reasoning = o.CompletionDetails.ReasoningTokens
	}
	return u
}

// OpenaiRoles are the roles a chat message may have: OpenAI's, and
// mini-swe-agent's "exit" (its last message, kept as it is).
var OpenaiRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true,
	"tool": true, "function": true, "exit": true}

func OpenaiMessageOf(m OpenaiMessage) (model.Message, error) {
	msg := model.Message{Role: model.Role(m.Role), Name: m.Name, Time: model.ParseTime(m.Timestamp)}
	if e := m.Extra; e != nil && e.Response != nil && e.Response.Created > 0 && msg.Time.IsZero() {
		msg.Time = time.Unix(e.Response.Created, 0).UTC()
	}
	if m.Role == "developer" {
		msg.Role = model.RoleSystem
	}
	content, err := OpenaiContent(m.Content)
	if err != nil {
		return msg, err
	}
	switch m.Role {
	case "tool", "function":
		var texts []string
		var rich bool
		for _, b := range content {
			if b.Type == model.BlockText {
				texts = append(texts, b.Text)
			} else {
				rich = true
			}
		}
		b := model.Block{Type: model.BlockToolResult, ID: m.ToolCallID, Text: strings.Join(texts, "\n")}
		if rich {
			b.Raw = CompactJSON(m.Content)
		}
		msg.Role = model.RoleTool
		msg.Blocks = []model.Block{b}
		return msg, nil
	}
	if m.ReasoningContent != nil && *m.ReasoningContent != "" {
		msg.Blocks = append(msg.Blocks, model.Block{Type: model.BlockThinking, Text: *m.ReasoningContent})
	}
	msg.Blocks = append(msg.Blocks, content...)
	for _, tc := range m.ToolCalls {
		msg.Blocks = append(msg.Blocks, model.Block{Type: model.BlockToolUse, ID: tc.ID, Name: tc.Function.Name, Input: ArgumentsJSON(tc.Function.Arguments)})
	}
	if fc := m.FunctionCall; fc != nil {
		msg.Blocks = append(msg.Blocks, model.Block{Type: model.BlockToolUse, Name: fc.Name, Input: ArgumentsJSON(fc.Arguments)})
	}
	if msg.Role == model.RoleAssistant {
		msg.Model, msg.CallID, msg.Usage = m.Model, m.ID, m.Usage.Usage()
		if e := m.Extra; e != nil && e.Response != nil {
			if msg.Model == "" {
				msg.Model = e.Response.Model
			}
			if msg.CallID == "" {
				msg.CallID = e.Response.ID
			}
			if msg.Usage == nil {
				msg.Usage = e.Response.Usage.Usage()
			}
		}
	}
	return msg, nil
}

// OpenaiContent reads chat content: a string, null, or a list of parts.
func OpenaiContent(raw json.RawMessage) ([]model.Block, error) {
	return TypedParts(raw, func(typ, text string, p json.RawMessage) model.Block {
		switch typ {
		case "text", "input_text", "output_text":
			return model.Block{Type: model.BlockText, Text: text}
		case "image_url", "image":
			return model.Block{Type: model.BlockImage, Raw: CompactJSON(p)}
		}
		return model.Block{Type: model.BlockOther, Raw: CompactJSON(p)}
	})
}

// TypedParts reads content that is a string, null, or a list of
// {"type", "text", …} parts, each turned into a block by block.
func TypedParts(raw json.RawMessage, block func(typ, text string, part json.RawMessage) model.Block) ([]model.Block, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []model.Block{{Type: model.BlockText, Text: s}}, nil
	}
	var parts []json.RawMessage
	if err := Unmarshal(raw, &parts); err != nil {
		return nil, ErrContent
	}
	blocks := make([]model.Block, 0, len(parts))
	for _, p := range parts {
		var part struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := Unmarshal(p, &part); err != nil {
			// An object of another type whose fields do not fit these
			// (another format's part, written back as it was) is kept as
			// it is, an other block; a text part whose text is not a
			// string is an error.
			var obj map[string]json.RawMessage
			if Unmarshal(p, &obj) != nil {
				return nil, ErrContent
			}
			if typ := stringField(obj, "type"); typ == "text" || typ == "input_text" || typ == "output_text" {
				return nil, fmt.Errorf("content: %s part: %s", typ, wrongField(err))
			}
			part.Type, part.Text = "", ""
		}
		blocks = append(blocks, block(part.Type, part.Text, p))
	}
	return blocks, nil
}

// stringField returns the string value of key in obj, or "".
func stringField(obj map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := obj[key]; ok && Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

type contentError struct{}

func (contentError) Error() string { return "content: expected a string, null or a list of parts" }

var ErrContent error = contentError{}
