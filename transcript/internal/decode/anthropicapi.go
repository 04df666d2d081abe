package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// AnthropicUsage is the Messages API usage object.
type AnthropicUsage struct {
	InputTokens   int64                 `json:"input_tokens"`
	CacheCreation int64                 `json:"cache_creation_input_tokens"`
	CacheRead     int64                 `json:"cache_read_input_tokens"`
	OutputTokens  int64                 `json:"output_tokens"`
	CacheDetail   *AnthropicCacheDetail `json:"cache_creation"`
}

// AnthropicCacheDetail splits a usage's cache writes by lifetime.
type AnthropicCacheDetail struct {
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

func (a *AnthropicUsage) Usage() *model.Usage {
	if a == nil {
		return nil
	}
	u := &model.Usage{Input: a.InputTokens, CacheRead: a.CacheRead, CacheWrite: a.CacheCreation, Output: a.OutputTokens}
	if a.CacheDetail != nil {
		u.CacheWrite1h = a.CacheDetail.Ephemeral1h
	}
	return u
}

// AnthropicMessage is a Messages-API message, as a request holds it or as a
// response (with id, model and usage) returns it.
type AnthropicMessage struct {
	Timestamp string          `json:"timestamp"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Model     string          `json:"model"`
	Content   json.RawMessage `json:"content"`
	Usage     *AnthropicUsage `json:"usage"`
}

type AnthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// AnthropicContent converts Messages-API content (a string or a list of
// blocks) into blocks.
func AnthropicContent(raw json.RawMessage) ([]model.Block, error) {
	raw = bytes.TrimSpace(raw)
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
		return nil, fmt.Errorf("content: expected a string or a list of blocks")
	}
	blocks := make([]model.Block, 0, len(parts))
	for i, p := range parts {
		var ab AnthropicBlock
		if err := Unmarshal(p, &ab); err != nil {
			// An object of another type whose fields do not fit these
			// (another format's part, written back as it was) is kept as
			// it is; a block of a known type with a field of the wrong
			// type is an error.
			var obj map[string]json.RawMessage
			if Unmarshal(p, &obj) != nil {
				return nil, fmt.Errorf("content block %d: expected an object", i)
			}
			switch typ := stringField(obj, "type"); typ {
			case "text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image":
				return nil, fmt.Errorf("content block %d: %s block: %s", i, typ, wrongField(err))
			}
			blocks = append(blocks, model.Block{Type: model.BlockOther, Raw: CompactJSON(p)})
			continue
		}
		b := model.Block{Type: model.BlockType(ab.Type)}
		switch ab.Type {
		case "text":
			b.Text = ab.Text
		case "thinking":
			b.Text = ab.Thinking
		case "redacted_thinking":
			b.Type, b.Raw = model.BlockThinking, CompactJSON(p)
		case "tool_use":
			b.ID, b.Name, b.Input = ab.ID, ab.Name, CompactJSON(ab.Input)
		case "tool_result":
			b.ID, b.IsError = ab.ToolUseID, ab.IsError
			text, rich, err := ResultContent(ab.Content)
			if err != nil {
				return nil, fmt.Errorf("content block %d: %w", i, err)
			}
			b.Text = text
			if rich {
				b.Raw = CompactJSON(ab.Content)
				b.Images = model.ImagesIn(b.Raw)
			}
		case "image":
			b.Raw = CompactJSON(p)
			b.Images = model.ImagesIn(b.Raw)
		default:
			b.Type, b.Raw = model.BlockOther, CompactJSON(p)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// ResultContent reads a tool result's content: a string, or a list of
// blocks whose texts are joined by newlines. rich reports that the list held
// something other than text (kept raw by the caller).
func ResultContent(raw json.RawMessage) (text string, rich bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] == '"' {
		err = Unmarshal(raw, &text)
		return text, false, err
	}
	var parts []AnthropicBlock
	if err := Unmarshal(raw, &parts); err != nil {
		return "", false, fmt.Errorf("tool result content: expected a string or a list of blocks")
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		} else {
			rich = true
		}
	}
	return strings.Join(texts, "\n"), rich, nil
}

// CompactJSON returns raw without insignificant white space; nil stays nil.
func CompactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if !SpaceOutsideStrings(raw) {
		return raw // what the agents write, mostly: compact already
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// SpaceOutsideStrings reports whether raw has white space outside its
// strings, which json.Compact would remove (or is cut inside a string):
// strings are passed over a quote at a time.
func SpaceOutsideStrings(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			return true
		case '"':
			for {
				k := bytes.IndexByte(raw[i+1:], '"')
				if k < 0 {
					return true
				}
				i += k + 1
				// The quote ends the string unless an odd run of
				// backslashes escapes it.
				n := 0
				for raw[i-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
			}
		}
	}
	return false
}

// CountAssistantCalls sets t.Calls to the number of assistant messages: the
// rule for formats that record one message per call.
func CountAssistantCalls(t *model.Transcript) {
	t.Calls = 0
	for i := range t.Messages {
		if t.Messages[i].Role == model.RoleAssistant {
			t.Calls++
		}
	}
}

// MessageRecords returns the elements of the key array of the object
// record r, with their lines.
func MessageRecords(r Record, key string) ([]Record, error) {
	raw, line, ok := Member(r.Raw, r.Line, key)
	if !ok {
		return nil, fmt.Errorf("no %q array", key)
	}
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	recs, err := Elems(raw, line)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	return recs, nil
}

// BaseID makes a transcript id from a file name: its base name without
// extension.
func BaseID(file string) string {
	b := filepath.Base(file)
	if i := strings.Index(b, "."); i > 0 {
		b = b[:i]
	}
	return b
}

// NameID returns the id of the transcript of s when its format records
// none: the name Walk gave it, else its file's base name ([baseID]).
func (s *Source) NameID() string {
	if s.Opt.name != "" {
		return s.Opt.name
	}
	return BaseID(s.File)
}

// LineID makes the id of a transcript that one line of a file holds.
func LineID(s *Source, r Record) string {
	if s.Doc {
		return s.NameID()
	}
	return s.NameID() + ":" + strconv.Itoa(r.Line)
}

// wrongField describes a JSON value of the wrong type in a block: the
// field, what it holds and what it should.
func wrongField(err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return fmt.Sprintf("%q holds a %s, not a %s", ute.Field, ute.Value, ute.Type)
	}
	return err.Error()
}
