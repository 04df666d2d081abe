package transcript

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// openaiMessage is a Chat Completions message, as logged by agents: the
// standard fields plus the usage some logs attach (top level, or
// mini-swe-agent's extra.response). A line holding "messages" instead is a
// whole conversation.
type openaiMessage struct {
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
	Usage            *openaiUsage `json:"usage"`
	Model            string       `json:"model"`
	ID               string       `json:"id"`
	Timestamp        string       `json:"timestamp"`
	Extra            *struct {
		Response *struct {
			Created int64        `json:"created"`
			ID      string       `json:"id"`
			Model   string       `json:"model"`
			Usage   *openaiUsage `json:"usage"`
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

// openaiUsage is the Chat Completions usage object, with the cache fields
// that LiteLLM (Anthropic models) and DeepSeek add.
type openaiUsage struct {
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

// usage converts OpenAI-style usage: prompt_tokens counts the whole prompt,
// so the uncached input is prompt_tokens − cached_tokens −
// cache_creation_input_tokens (the last is LiteLLM's report of Anthropic
// cache writes, which prompt_tokens includes).
func (o *openaiUsage) usage() *Usage {
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
	u := &Usage{CacheRead: cached, CacheWrite: o.CacheCreation, Output: o.CompletionTokens}
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

// readOpenAIChat reads OpenAI chat messages: JSON Lines of messages (one
// transcript), JSON Lines of conversations (a transcript per line), a JSON
// array of messages, or a JSON object holding "messages" (mini-swe-agent
// .traj.json).
//
// tool_calls become tool_use blocks after the message's text,
// reasoning_content (DeepSeek, and ctxbench's own writer) a thinking block
// before it; a "tool" message is a tool_result. A "developer" message is a
// system message. Roles ctxbench does not know (mini-swe-agent's "exit")
// are kept as they are. Calls is the number of assistant messages; as in
// [readAnthropic], assistant messages one per line written within a
// second of each other, with nothing between, are one
// ([joinSplitResponses]).
func readOpenAIChat(s *source) ([]*Transcript, error) {
	if s.doc && s.docRec.raw[0] == '[' {
		t := &Transcript{ID: s.nameID()}
		recs, err := elems(s.docRec.raw, s.docRec.line)
		if err != nil {
			return nil, &SyntaxError{File: s.file, Line: s.docRec.line, Msg: err.Error()}
		}
		if err := openaiMessages(s, t, recs); err != nil {
			return nil, err
		}
		return []*Transcript{t}, nil
	}
	var out []*Transcript
	flat := &Transcript{ID: s.nameID()}
	flatRecs := false
	for r := range s.records() {
		var m openaiMessage
		ok, err := s.decode(flat, r, &m)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if m.Messages == nil {
			// A message of the flat transcript, added now: a streamed
			// record's bytes last until the next is read.
			flatRecs = true
			if err := openaiAdd(s, flat, r, &m); err != nil {
				return nil, err
			}
			continue
		}
		t := &Transcript{ID: lineID(s, r)}
		switch {
		case m.ID != "":
			t.ID = m.ID // ctxbench's own writer
		case m.InstanceID != "":
			t.ID = m.InstanceID // mini-swe-agent
		}
		if m.Info != nil && m.Info.ModelStats != nil {
			t.ReportedCostUSD = m.Info.ModelStats.InstanceCost // mini-swe-agent's LiteLLM cost
		}
		recs, err := messageRecords(r, "messages")
		if err != nil {
			if err := s.bad(t, r.line, "%v", err); err != nil {
				return nil, err
			}
		}
		if err := openaiMessages(s, t, recs); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if flatRecs || len(flat.Bad) > 0 || len(out) == 0 {
		joinSplitResponses(flat)
		countAssistantCalls(flat)
		out = append([]*Transcript{flat}, out...)
	}
	return out, nil
}

// openaiMessages adds the messages of recs to t.
func openaiMessages(s *source, t *Transcript, recs []record) error {
	for _, r := range recs {
		var m openaiMessage
		ok, err := s.decode(t, r, &m)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := openaiAdd(s, t, r, &m); err != nil {
			return err
		}
	}
	countAssistantCalls(t)
	return nil
}

// openaiAdd adds m, decoded from r, to t as a message, or counts r as
// malformed when it is no chat message.
func openaiAdd(s *source, t *Transcript, r record, m *openaiMessage) error {
	if problem := openaiProblem(m, r.raw); problem != "" {
		return s.bad(t, r.line, "%s", problem)
	}
	msg, err := openaiMessageOf(*m)
	if err != nil {
		return s.bad(t, r.line, "%v", err)
	}
	msg.Pos = Pos{File: s.file, Line: r.line}
	model.AddModel(t, msg.Model)
	t.Messages = append(t.Messages, msg)
	return nil
}

// openaiRoles are the roles a chat message may have: OpenAI's, and
// mini-swe-agent's "exit" (its last message, kept as it is).
var openaiRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true,
	"tool": true, "function": true, "exit": true}

// openaiProblem says why m, whose JSON is raw, is not a chat message
// ctxbench can read, or returns "": it has no role, a role no chat
// format has (an event log's "agent", Gemini's "model"), or nothing to
// read (its text in a field chat messages do not have). The format it
// looks like is named where it is known.
func openaiProblem(m *openaiMessage, raw []byte) string {
	switch {
	case m.Role == "":
		return "message has no role" + looksLike(raw)
	case !openaiRoles[m.Role]:
		return fmt.Sprintf("unknown role %.40q: not a chat message%s", m.Role, looksLike(raw))
	case len(m.Content) == 0 && len(m.ToolCalls) == 0 && m.FunctionCall == nil &&
		(m.ReasoningContent == nil || *m.ReasoningContent == ""):
		return "message has no content (a chat message's text is in \"content\")" + looksLike(raw)
	}
	return ""
}

// looksLike names the format a record that is no chat message looks like,
// as ", which looks like …", or returns "".
func looksLike(raw []byte) string {
	var m map[string]any
	if unmarshal(raw, &m) != nil {
		return ""
	}
	if name := foreignFormat(m); name != "" {
		return ", which looks like " + name + ", a format ctxbench does not read"
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) > 8 {
		keys = append(keys[:8], "…")
	}
	return " (its fields: " + strings.Join(keys, ", ") + ")"
}

func openaiMessageOf(m openaiMessage) (Message, error) {
	msg := Message{Role: Role(m.Role), Name: m.Name, Time: model.ParseTime(m.Timestamp)}
	if e := m.Extra; e != nil && e.Response != nil && e.Response.Created > 0 && msg.Time.IsZero() {
		msg.Time = time.Unix(e.Response.Created, 0).UTC()
	}
	if m.Role == "developer" {
		msg.Role = RoleSystem
	}
	content, err := openaiContent(m.Content)
	if err != nil {
		return msg, err
	}
	switch m.Role {
	case "tool", "function":
		var texts []string
		var rich bool
		for _, b := range content {
			if b.Type == BlockText {
				texts = append(texts, b.Text)
			} else {
				rich = true
			}
		}
		b := Block{Type: BlockToolResult, ID: m.ToolCallID, Text: strings.Join(texts, "\n")}
		if rich {
			b.Raw = compactJSON(m.Content)
		}
		msg.Role = RoleTool
		msg.Blocks = []Block{b}
		return msg, nil
	}
	if m.ReasoningContent != nil && *m.ReasoningContent != "" {
		msg.Blocks = append(msg.Blocks, Block{Type: BlockThinking, Text: *m.ReasoningContent})
	}
	msg.Blocks = append(msg.Blocks, content...)
	for _, tc := range m.ToolCalls {
		msg.Blocks = append(msg.Blocks, Block{Type: BlockToolUse, ID: tc.ID, Name: tc.Function.Name, Input: argumentsJSON(tc.Function.Arguments)})
	}
	if fc := m.FunctionCall; fc != nil {
		msg.Blocks = append(msg.Blocks, Block{Type: BlockToolUse, Name: fc.Name, Input: argumentsJSON(fc.Arguments)})
	}
	if msg.Role == RoleAssistant {
		msg.Model, msg.CallID, msg.Usage = m.Model, m.ID, m.Usage.usage()
		if e := m.Extra; e != nil && e.Response != nil {
			if msg.Model == "" {
				msg.Model = e.Response.Model
			}
			if msg.CallID == "" {
				msg.CallID = e.Response.ID
			}
			if msg.Usage == nil {
				msg.Usage = e.Response.Usage.usage()
			}
		}
	}
	return msg, nil
}

// openaiContent reads chat content: a string, null, or a list of parts.
func openaiContent(raw json.RawMessage) ([]Block, error) {
	return typedParts(raw, func(typ, text string, p json.RawMessage) Block {
		switch typ {
		case "text", "input_text", "output_text":
			return Block{Type: BlockText, Text: text}
		case "image_url", "image":
			return Block{Type: BlockImage, Raw: compactJSON(p)}
		}
		return Block{Type: BlockOther, Raw: compactJSON(p)}
	})
}

// typedParts reads content that is a string, null, or a list of
// {"type", "text", …} parts, each turned into a block by block.
func typedParts(raw json.RawMessage, block func(typ, text string, part json.RawMessage) Block) ([]Block, error) {
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
		return nil, errContent
	}
	blocks := make([]Block, 0, len(parts))
	for _, p := range parts {
		var part struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := unmarshal(p, &part); err != nil {
			// An object of another type whose fields do not fit these
			// (another format's part, written back as it was) is kept as
			// it is, an other block; a text part whose text is not a
			// string is an error.
			var obj map[string]json.RawMessage
			if unmarshal(p, &obj) != nil {
				return nil, errContent
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
	if raw, ok := obj[key]; ok && unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

type contentError struct{}

func (contentError) Error() string { return "content: expected a string, null or a list of parts" }

var errContent error = contentError{}
