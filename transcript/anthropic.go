package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// anthropicUsage is the Messages API usage object.
type anthropicUsage struct {
	InputTokens   int64                 `json:"input_tokens"`
	CacheCreation int64                 `json:"cache_creation_input_tokens"`
	CacheRead     int64                 `json:"cache_read_input_tokens"`
	OutputTokens  int64                 `json:"output_tokens"`
	CacheDetail   *anthropicCacheDetail `json:"cache_creation"`
}

// anthropicCacheDetail splits a usage's cache writes by lifetime.
type anthropicCacheDetail struct {
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

func (a *anthropicUsage) usage() *Usage {
	if a == nil {
		return nil
	}
	u := &Usage{Input: a.InputTokens, CacheRead: a.CacheRead, CacheWrite: a.CacheCreation, Output: a.OutputTokens}
	if a.CacheDetail != nil {
		u.CacheWrite1h = a.CacheDetail.Ephemeral1h
	}
	return u
}

// anthropicMessage is a Messages-API message, as a request holds it or as a
// response (with id, model and usage) returns it.
type anthropicMessage struct {
	Timestamp string          `json:"timestamp"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Model     string          `json:"model"`
	Content   json.RawMessage `json:"content"`
	Usage     *anthropicUsage `json:"usage"`
}

// clineMessage is a message of Cline's api_conversation_history.json: a
// Messages-API message with what Cline adds (ClineStorageMessage).
type clineMessage struct {
	anthropicMessage
	TS        int64 `json:"ts"`
	ModelInfo *struct {
		ModelID string `json:"modelId"`
	} `json:"modelInfo"`
	Metrics *struct {
		// Prompt is the whole prompt, Cached the part of it read from
		// the cache; cache writes are not recorded.
		Tokens *struct {
			Prompt     int64 `json:"prompt"`
			Completion int64 `json:"completion"`
			Cached     int64 `json:"cached"`
		} `json:"tokens"`
		Cost *float64 `json:"cost"`
	} `json:"metrics"`
}

type anthropicBlock struct {
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

// anthropicContent converts Messages-API content (a string or a list of
// blocks) into blocks.
func anthropicContent(raw json.RawMessage) ([]Block, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []Block{{Type: BlockText, Text: s}}, nil
	}
	var parts []json.RawMessage
	if err := unmarshal(raw, &parts); err != nil {
		return nil, fmt.Errorf("content: expected a string or a list of blocks")
	}
	blocks := make([]Block, 0, len(parts))
	for i, p := range parts {
		var ab anthropicBlock
		if err := unmarshal(p, &ab); err != nil {
			// An object of another type whose fields do not fit these
			// (another format's part, written back as it was) is kept as
			// it is; a block of a known type with a field of the wrong
			// type is an error.
			var obj map[string]json.RawMessage
			if unmarshal(p, &obj) != nil {
				return nil, fmt.Errorf("content block %d: expected an object", i)
			}
			switch typ := stringField(obj, "type"); typ {
			case "text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image":
				return nil, fmt.Errorf("content block %d: %s block: %s", i, typ, wrongField(err))
			}
			blocks = append(blocks, Block{Type: BlockOther, Raw: compactJSON(p)})
			continue
		}
		b := Block{Type: BlockType(ab.Type)}
		switch ab.Type {
		case "text":
			b.Text = ab.Text
		case "thinking":
			b.Text = ab.Thinking
		case "redacted_thinking":
			b.Type, b.Raw = BlockThinking, compactJSON(p)
		case "tool_use":
			b.ID, b.Name, b.Input = ab.ID, ab.Name, compactJSON(ab.Input)
		case "tool_result":
			b.ID, b.IsError = ab.ToolUseID, ab.IsError
			text, rich, err := resultContent(ab.Content)
			if err != nil {
				return nil, fmt.Errorf("content block %d: %w", i, err)
			}
			b.Text = text
			if rich {
				b.Raw = compactJSON(ab.Content)
				b.Images = model.ImagesIn(b.Raw)
			}
		case "image":
			b.Raw = compactJSON(p)
			b.Images = model.ImagesIn(b.Raw)
		default:
			b.Type, b.Raw = BlockOther, compactJSON(p)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// resultContent reads a tool result's content: a string, or a list of
// blocks whose texts are joined by newlines. rich reports that the list held
// something other than text (kept raw by the caller).
func resultContent(raw json.RawMessage) (text string, rich bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] == '"' {
		err = unmarshal(raw, &text)
		return text, false, err
	}
	var parts []anthropicBlock
	if err := unmarshal(raw, &parts); err != nil {
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

// compactJSON returns raw without insignificant white space; nil stays nil.
func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if !spaceOutsideStrings(raw) {
		return raw // what the agents write, mostly: compact already
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// spaceOutsideStrings reports whether raw has white space outside its
// strings, which json.Compact would remove (or is cut inside a string):
// strings are passed over a quote at a time.
func spaceOutsideStrings(raw []byte) bool {
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

// anthropicRequest is one line of an anthropic file: a request with its
// messages, or one message.
type anthropicRequest struct {
	Timestamp string          `json:"timestamp"`
	Model     string          `json:"model"`
	System    json.RawMessage `json:"system"`
	Messages  json.RawMessage `json:"messages"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Usage     *anthropicUsage `json:"usage"`
}

// readAnthropic reads JSON Lines of Messages-API messages (one transcript
// per file) or of requests {"system", "messages"} (one transcript per
// line), or a JSON array of messages (one transcript), such as Cline's
// api_conversation_history.json (see [readCline]), or a Cline 4
// session's messages file (see [readClineSession]). Messages one per line
// that are the blocks of one response, as message dumps write them, are
// joined ([joinSplitResponses]): consecutive assistant lines with no
// line between them, written within a second, are one call unless each
// records its own usage or id.
func readAnthropic(s *source) ([]*Transcript, error) {
	if s.doc && s.docRec.raw[0] == '[' {
		return readCline(s)
	}
	if s.doc {
		if sess, ok := clineSessionOf(s.docRec.raw); ok {
			return readClineSession(s, sess)
		}
	}
	var out []*Transcript
	flat := &Transcript{ID: s.nameID()} // the messages written one per line
	for r := range s.records() {
		var req anthropicRequest
		ok, err := s.decode(flat, r, &req)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if req.Messages == nil && req.System == nil {
			m := anthropicMessage{ID: req.ID, Role: req.Role, Model: req.Model, Content: req.Content, Usage: req.Usage, Timestamp: req.Timestamp}
			if err := anthropicAppend(s, flat, r, m); err != nil {
				return nil, err
			}
			continue
		}
		t := &Transcript{ID: lineID(s, r)}
		if req.ID != "" {
			t.ID = req.ID // ctxbench's own writer
		}
		model.AddModel(t, req.Model)
		if err := anthropicSystem(t, req.System, Pos{File: s.file, Line: r.line}); err != nil {
			if err := s.bad(t, r.line, "%v", err); err != nil {
				return nil, err
			}
		}
		recs, err := messageRecords(r, "messages")
		if err != nil {
			if err := s.bad(t, r.line, "%v", err); err != nil {
				return nil, err
			}
		}
		for _, mr := range recs {
			var m anthropicMessage
			ok, err := s.decode(t, mr, &m)
			if err != nil {
				return nil, err
			}
			if ok {
				if err := anthropicAppend(s, t, mr, m); err != nil {
					return nil, err
				}
			}
		}
		countAssistantCalls(t)
		out = append(out, t)
	}
	if len(flat.Messages) > 0 || len(flat.Bad) > 0 || len(out) == 0 {
		joinSplitResponses(flat)
		countAssistantCalls(flat)
		out = append([]*Transcript{flat}, out...)
	}
	return out, nil
}

// readCline reads a JSON array of Messages-API messages. Cline's
// api_conversation_history.json (tasks/<task id>/, the task id being the
// transcript's id) is one: its assistant messages carry the model
// (modelInfo.modelId), the call's tokens (metrics.tokens: the whole
// prompt, the part of it read from the cache, the completion; cache
// writes are not recorded, and count as uncached input) and its cost
// (metrics.cost, summed in ReportedCostUSD), and every message its time
// (ts, in milliseconds). Calls is the number of assistant messages.
func readCline(s *source) ([]*Transcript, error) {
	t := &Transcript{ID: s.nameID()}
	if baseID(s.file) == "api_conversation_history" {
		t.ID = filepath.Base(filepath.Dir(s.file))
	}
	recs, err := elems(s.docRec.raw, s.docRec.line)
	if err != nil {
		return nil, &SyntaxError{File: s.file, Line: s.docRec.line, Msg: err.Error()}
	}
	for _, r := range recs {
		var m clineMessage
		ok, err := s.decode(t, r, &m)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if m.ModelInfo != nil && m.Model == "" {
			m.Model = m.ModelInfo.ModelID
		}
		n := len(t.Messages)
		if err := anthropicAppend(s, t, r, m.anthropicMessage); err != nil {
			return nil, err
		}
		if len(t.Messages) == n {
			continue
		}
		msg := &t.Messages[n]
		if m.TS > 0 && msg.Time.IsZero() {
			msg.Time = time.UnixMilli(m.TS).UTC()
		}
		if m.Metrics == nil || msg.Role != RoleAssistant {
			continue
		}
		if tk := m.Metrics.Tokens; tk != nil && msg.Usage == nil {
			msg.Usage = &Usage{Input: tk.Prompt - tk.Cached, CacheRead: tk.Cached, Output: tk.Completion}
		}
		if c := m.Metrics.Cost; c != nil {
			t.ReportedCostUSD += *c
		}
	}
	countAssistantCalls(t)
	return []*Transcript{t}, nil
}

// anthropicAppend adds message m, read from record r, to t.
func anthropicAppend(s *source, t *Transcript, r record, m anthropicMessage) error {
	if m.Role == "" {
		return s.bad(t, r.line, "message has no role")
	}
	if !openaiRoles[m.Role] {
		// A role no chat format has, which no writer could write back.
		return s.bad(t, r.line, "unknown role %.40q: not a Messages API message", m.Role)
	}
	blocks, err := anthropicContent(m.Content)
	if err != nil {
		return s.bad(t, r.line, "%v", err)
	}
	msg := Message{Role: Role(m.Role), Blocks: blocks, Pos: Pos{File: s.file, Line: r.line}, Time: model.ParseTime(m.Timestamp)}
	if msg.Role == RoleAssistant {
		// Only a reply's id names a call; an agent's ids of the other
		// messages (Cline's) name nothing the provider knows.
		msg.CallID, msg.Model, msg.Usage = m.ID, m.Model, m.Usage.usage()
		model.AddModel(t, m.Model)
	}
	t.Messages = append(t.Messages, msg)
	return nil
}

// anthropicSystem adds the request's system prompt (a string or a list of
// text blocks) as a system message.
func anthropicSystem(t *Transcript, raw json.RawMessage, pos Pos) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil
	}
	blocks, err := anthropicContent(raw)
	if err != nil {
		return fmt.Errorf("system: %w", err)
	}
	if len(blocks) == 0 {
		return nil
	}
	t.Messages = append(t.Messages, Message{Role: RoleSystem, Blocks: blocks, Pos: pos})
	return nil
}

// countAssistantCalls sets t.Calls to the number of assistant messages: the
// rule for formats that record one message per call.
func countAssistantCalls(t *Transcript) {
	t.Calls = 0
	for i := range t.Messages {
		if t.Messages[i].Role == RoleAssistant {
			t.Calls++
		}
	}
}

// messageRecords returns the elements of the key array of the object
// record r, with their lines.
func messageRecords(r record, key string) ([]record, error) {
	raw, line, ok := member(r.raw, r.line, key)
	if !ok {
		return nil, fmt.Errorf("no %q array", key)
	}
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	recs, err := elems(raw, line)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	return recs, nil
}

// baseID makes a transcript id from a file name: its base name without
// extension.
func baseID(file string) string {
	b := filepath.Base(file)
	if i := strings.Index(b, "."); i > 0 {
		b = b[:i]
	}
	return b
}

// nameID returns the id of the transcript of s when its format records
// none: the name Walk gave it, else its file's base name ([baseID]).
func (s *source) nameID() string {
	if s.opt.name != "" {
		return s.opt.name
	}
	return baseID(s.file)
}

// lineID makes the id of a transcript that one line of a file holds.
func lineID(s *source, r record) string {
	if s.doc {
		return s.nameID()
	}
	return s.nameID() + ":" + strconv.Itoa(r.line)
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
