package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
)

// Write writes t to w in format f: one JSON line in [FormatOpenAIChat]
// ({"id", "model", "messages"}) or [FormatAnthropic] ({"id", "model",
// "system", "messages"}), or, in [FormatOTel], a line per span (an OTLP
// JSON TracesData object each: a chat span per call under an
// invoke_agent span, see writeOTel); reading the output back gives the
// same messages, up to what the target format cannot say:
//
//   - openai-chat puts an assistant message's thinking first (as
//     reasoning_content, joined by newlines), then its content, then its
//     tool calls; a user message's tool results become "tool" messages
//     before the rest of it;
//   - anthropic puts leading system messages in "system", and a run of tool
//     messages becomes one user message of tool_result blocks;
//   - neither keeps compaction markers or skipped-record counts; openai-chat
//     has no field for the 1-hour share of cache writes, anthropic none for
//     reasoning tokens;
//   - otel keeps the messages, their times and the compactions (what the
//     agent sent at each call), but no skipped-record counts, the 1-hour
//     share of cache writes, or usage recorded apart from the calls.
//
// Recorded usage is written on assistant messages in the target's own
// fields, so it reads back unchanged.
func Write(w io.Writer, t *Transcript, f Format) error {
	var v any
	switch f {
	case FormatOpenAIChat:
		v = openaiDoc(t)
	case FormatAnthropic:
		v = anthropicDoc(t)
	case FormatOTel:
		if err := writeOTel(w, t); err != nil {
			return fmt.Errorf("writing %s: %w", t.ID, err)
		}
		return nil
	default:
		return fmt.Errorf("writing %s: cannot write format %q (can: %s, %s, %s)", t.ID, f, FormatOpenAIChat, FormatAnthropic, FormatOTel)
	}
	line, err := decode.MarshalNoEscape(v)
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.ID, err)
	}
	_, err = w.Write(append(line, '\n'))
	return err
}

type outDoc struct {
	ID       string          `json:"id"`
	Model    string          `json:"model,omitempty"`
	System   json.RawMessage `json:"system,omitempty"`
	Messages []any           `json:"messages"`
}

func firstModel(t *Transcript) string {
	if len(t.Models) > 0 {
		return t.Models[0]
	}
	return ""
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaMessage struct {
	Role             string       `json:"role"`
	Name             string       `json:"name,omitempty"`
	Content          any          `json:"content"`
	ReasoningContent string       `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string       `json:"tool_call_id,omitempty"`
	ID               string       `json:"id,omitempty"`
	Model            string       `json:"model,omitempty"`
	Usage            *oaUsage     `json:"usage,omitempty"`
	Timestamp        string       `json:"timestamp,omitempty"`
}

type oaUsage struct {
	PromptTokens      int64        `json:"prompt_tokens"`
	CompletionTokens  int64        `json:"completion_tokens"`
	PromptDetails     oaCached     `json:"prompt_tokens_details"`
	CompletionDetails *oaReasoning `json:"completion_tokens_details,omitempty"`
	CacheCreation     int64        `json:"cache_creation_input_tokens,omitempty"`
}

type oaCached struct {
	CachedTokens int64 `json:"cached_tokens"`
}

type oaReasoning struct {
	ReasoningTokens int64 `json:"reasoning_tokens"`
}

func openaiDoc(t *Transcript) outDoc {
	d := outDoc{ID: t.ID, Model: firstModel(t), Messages: []any{}}
	for i := range t.Messages {
		m := &t.Messages[i]
		var rest []Block
		var thinking []string
		var calls []oaToolCall
		for _, b := range m.Blocks {
			switch {
			case b.Type == BlockToolResult:
				content := any(b.Text)
				if len(b.Raw) > 0 {
					content = b.Raw
				}
				d.Messages = append(d.Messages, oaMessage{Role: "tool", Name: m.Name, ToolCallID: b.ID, Content: content, Timestamp: timestamp(m.Time)})
			case b.Type == BlockThinking && m.Role == RoleAssistant && len(b.Raw) == 0:
				thinking = append(thinking, b.Text)
			case b.Type == BlockToolUse:
				var c oaToolCall
				c.ID, c.Type, c.Function.Name = b.ID, "function", b.Name
				c.Function.Arguments = string(b.Input)
				if c.Function.Arguments == "" {
					c.Function.Arguments = "{}"
				}
				calls = append(calls, c)
			default:
				rest = append(rest, b)
			}
		}
		if len(rest) == 0 && len(thinking) == 0 && len(calls) == 0 && m.Role != RoleAssistant && len(m.Blocks) > 0 {
			continue // a message of tool results only
		}
		role := string(m.Role)
		if m.Role == RoleTool {
			role = string(RoleUser) // tool messages with content besides results
		}
		om := oaMessage{Role: role, Name: m.Name, Content: openaiParts(rest),
			ReasoningContent: strings.Join(thinking, "\n"), ToolCalls: calls, Timestamp: timestamp(m.Time)}
		if m.Role == RoleAssistant {
			om.ID, om.Model = m.CallID, m.Model
			if u := m.Usage; u != nil {
				om.Usage = &oaUsage{PromptTokens: u.Prompt(), CompletionTokens: u.Output,
					PromptDetails: oaCached{u.CacheRead}, CacheCreation: u.CacheWrite}
				if u.Reasoning > 0 {
					om.Usage.CompletionDetails = &oaReasoning{u.Reasoning}
				}
			}
		}
		d.Messages = append(d.Messages, om)
	}
	return d
}

// openaiParts returns chat content: null for no blocks, a string for one
// text block, and a list of parts otherwise.
func openaiParts(bs []Block) any {
	if len(bs) == 0 {
		return nil
	}
	if len(bs) == 1 && bs[0].Type == BlockText {
		return bs[0].Text
	}
	parts := make([]any, 0, len(bs))
	for _, b := range bs {
		switch {
		case b.Type == BlockText:
			parts = append(parts, textPart{"text", b.Text})
		case len(b.Raw) > 0:
			parts = append(parts, b.Raw)
		default: // a thinking block outside an assistant message
			parts = append(parts, textPart{"text", b.Text})
		}
	}
	return parts
}

type anMessage struct {
	Role      string   `json:"role"`
	Content   []any    `json:"content"`
	ID        string   `json:"id,omitempty"`
	Model     string   `json:"model,omitempty"`
	Usage     *anUsage `json:"usage,omitempty"`
	Timestamp string   `json:"timestamp,omitempty"`
}

// timestamp writes a message time as RFC 3339 ("" when unknown).
func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

type anUsage struct {
	InputTokens   int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	OutputTokens  int64 `json:"output_tokens"`
	CacheDetail   *struct {
		Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation,omitempty"`
}

func anthropicDoc(t *Transcript) outDoc {
	d := outDoc{ID: t.ID, Model: firstModel(t), Messages: []any{}}
	msgs := t.Messages
	system := []any{}
	for len(msgs) > 0 && msgs[0].Role == RoleSystem {
		system = append(system, anthropicBlocks(msgs[0].Blocks)...)
		msgs = msgs[1:]
	}
	// "system" is always written, [] when empty: it is what marks the line
	// as an Anthropic request when no message has an Anthropic-only block.
	d.System, _ = json.Marshal(system)
	prevTool := false
	for i := range msgs {
		m := &msgs[i]
		if m.Role == RoleTool && prevTool {
			last := d.Messages[len(d.Messages)-1].(*anMessage)
			last.Content = append(last.Content, anthropicBlocks(m.Blocks)...)
			continue
		}
		prevTool = m.Role == RoleTool
		am := &anMessage{Role: string(m.Role), Content: anthropicBlocks(m.Blocks), Timestamp: timestamp(m.Time)}
		if m.Role == RoleTool {
			am.Role = string(RoleUser)
		}
		if m.Role == RoleAssistant {
			am.ID, am.Model = m.CallID, m.Model
			if u := m.Usage; u != nil {
				am.Usage = &anUsage{InputTokens: u.Input, CacheCreation: u.CacheWrite, CacheRead: u.CacheRead, OutputTokens: u.Output}
				if u.CacheWrite1h > 0 {
					am.Usage.CacheDetail = &struct {
						Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
						Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
					}{u.CacheWrite - u.CacheWrite1h, u.CacheWrite1h}
				}
			}
		}
		d.Messages = append(d.Messages, am)
	}
	return d
}

func anthropicBlocks(bs []Block) []any {
	out := make([]any, 0, len(bs))
	for _, b := range bs {
		switch b.Type {
		case BlockText:
			out = append(out, textPart{"text", b.Text})
		case BlockThinking:
			if len(b.Raw) > 0 {
				out = append(out, b.Raw)
			} else {
				out = append(out, struct {
					Type     string `json:"type"`
					Thinking string `json:"thinking"`
				}{"thinking", b.Text})
			}
		case BlockToolUse:
			input := b.Input
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			out = append(out, struct {
				Type  string          `json:"type"`
				ID    string          `json:"id"`
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			}{"tool_use", b.ID, b.Name, input})
		case BlockToolResult:
			var content any = b.Text
			if len(b.Raw) > 0 {
				content = b.Raw
			}
			out = append(out, struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
				Content   any    `json:"content"`
				IsError   bool   `json:"is_error,omitempty"`
			}{"tool_result", b.ID, content, b.IsError})
		default:
			if len(b.Raw) > 0 {
				out = append(out, b.Raw)
			} else {
				out = append(out, struct {
					Type string `json:"type"`
				}{string(b.Type)})
			}
		}
	}
	return out
}

// textPart is a text block or part, fields in the order the APIs use.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ContentJSON returns blocks as compact JSON in the Anthropic Messages
// shape ([{"type":"text","text":…}, {"type":"tool_use",…}, …]): the form
// in which the seed systems measure structured content (JSON.stringify of
// the content blocks).
func ContentJSON(blocks []Block) []byte {
	b, err := decode.MarshalNoEscape(anthropicBlocks(blocks))
	if err != nil {
		return nil // blocks hold only valid JSON values
	}
	return b
}
