// Package anthropic reads the anthropic format: JSON Lines of Messages-API
// messages or requests, a JSON array of messages, and Cline's sessions
// (api_conversation_history.json, Cline 4's messages file).
package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// clineMessage is a message of Cline's api_conversation_history.json: a
// Messages-API message with what Cline adds (ClineStorageMessage).
type clineMessage struct {
	decode.AnthropicMessage
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

// anthropicRequest is one line of an anthropic file: a request with its
// messages, or one message.
type anthropicRequest struct {
	Timestamp string                 `json:"timestamp"`
	Model     string                 `json:"model"`
	System    json.RawMessage        `json:"system"`
	Messages  json.RawMessage        `json:"messages"`
	ID        string                 `json:"id"`
	Role      string                 `json:"role"`
	Content   json.RawMessage        `json:"content"`
	Usage     *decode.AnthropicUsage `json:"usage"`
}

// Read reads JSON Lines of Messages-API messages (one transcript
// per file) or of requests {"system", "messages"} (one transcript per
// line), or a JSON array of messages (one transcript), such as Cline's
// api_conversation_history.json (see [readCline]), or a Cline 4
// session's messages file (see [readClineSession]). Messages one per line
// that are the blocks of one response, as message dumps write them, are
// joined ([joinSplitResponses]): consecutive assistant lines with no
// line between them, written within a second, are one call unless each
// records its own usage or id.
func Read(s *decode.Source) ([]*model.Transcript, error) {
	if s.Doc && s.DocRec.Raw[0] == '[' {
		return readCline(s)
	}
	if s.Doc {
		if sess, ok := clineSessionOf(s.DocRec.Raw); ok {
			return readClineSession(s, sess)
		}
	}
	var out []*model.Transcript
	flat := &model.Transcript{ID: s.NameID()} // the messages written one per line
	for r := range s.Records() {
		var req anthropicRequest
		ok, err := s.Decode(flat, r, &req)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if req.Messages == nil && req.System == nil {
			m := decode.AnthropicMessage{ID: req.ID, Role: req.Role, Model: req.Model, Content: req.Content, Usage: req.Usage, Timestamp: req.Timestamp}
			if err := anthropicAppend(s, flat, r, m); err != nil {
				return nil, err
			}
			continue
		}
		t := &model.Transcript{ID: decode.LineID(s, r)}
		if req.ID != "" {
			t.ID = req.ID // ctxbench's own writer
		}
		model.AddModel(t, req.Model)
		if err := anthropicSystem(t, req.System, model.Pos{File: s.File, Line: r.Line}); err != nil {
			if err := s.Bad(t, r.Line, "%v", err); err != nil {
				return nil, err
			}
		}
		recs, err := decode.MessageRecords(r, "messages")
		if err != nil {
			if err := s.Bad(t, r.Line, "%v", err); err != nil {
				return nil, err
			}
		}
		for _, mr := range recs {
			var m decode.AnthropicMessage
			ok, err := s.Decode(t, mr, &m)
			if err != nil {
				return nil, err
			}
			if ok {
				if err := anthropicAppend(s, t, mr, m); err != nil {
					return nil, err
				}
			}
		}
		decode.CountAssistantCalls(t)
		out = append(out, t)
	}
	if len(flat.Messages) > 0 || len(flat.Bad) > 0 || len(out) == 0 {
		decode.JoinSplitResponses(flat)
		decode.CountAssistantCalls(flat)
		out = append([]*model.Transcript{flat}, out...)
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
func readCline(s *decode.Source) ([]*model.Transcript, error) {
	t := &model.Transcript{ID: s.NameID()}
	if decode.BaseID(s.File) == "api_conversation_history" {
		t.ID = filepath.Base(filepath.Dir(s.File))
	}
	recs, err := decode.Elems(s.DocRec.Raw, s.DocRec.Line)
	if err != nil {
		return nil, &model.SyntaxError{File: s.File, Line: s.DocRec.Line, Msg: err.Error()}
	}
	for _, r := range recs {
		var m clineMessage
		ok, err := s.Decode(t, r, &m)
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
		if err := anthropicAppend(s, t, r, m.AnthropicMessage); err != nil {
			return nil, err
		}
		if len(t.Messages) == n {
			continue
		}
		msg := &t.Messages[n]
		if m.TS > 0 && msg.Time.IsZero() {
			msg.Time = time.UnixMilli(m.TS).UTC()
		}
		if m.Metrics == nil || msg.Role != model.RoleAssistant {
			continue
		}
		if tk := m.Metrics.Tokens; tk != nil && msg.Usage == nil {
			msg.Usage = &model.Usage{Input: tk.Prompt - tk.Cached, CacheRead: tk.Cached, Output: tk.Completion}
		}
		if c := m.Metrics.Cost; c != nil {
			t.ReportedCostUSD += *c
		}
	}
	decode.CountAssistantCalls(t)
	return []*model.Transcript{t}, nil
}

// anthropicAppend adds message m, read from record r, to t.
func anthropicAppend(s *decode.Source, t *model.Transcript, r decode.Record, m decode.AnthropicMessage) error {
	if m.Role == "" {
		return s.Bad(t, r.Line, "message has no role")
	}
	if !decode.OpenaiRoles[m.Role] {
		// A role no chat format has, which no writer could write back.
		return s.Bad(t, r.Line, "unknown role %.40q: not a Messages API message", m.Role)
	}
	blocks, err := decode.AnthropicContent(m.Content)
	if err != nil {
		return s.Bad(t, r.Line, "%v", err)
	}
	msg := model.Message{Role: model.Role(m.Role), Blocks: blocks, Pos: model.Pos{File: s.File, Line: r.Line}, Time: model.ParseTime(m.Timestamp)}
	if msg.Role == model.RoleAssistant {
		// Only a reply's id names a call; an agent's ids of the other
		// messages (Cline's) name nothing the provider knows.
		msg.CallID, msg.Model, msg.Usage = m.ID, m.Model, m.Usage.Usage()
		model.AddModel(t, m.Model)
	}
	t.Messages = append(t.Messages, msg)
	return nil
}

// anthropicSystem adds the request's system prompt (a string or a list of
// text blocks) as a system message.
func anthropicSystem(t *model.Transcript, raw json.RawMessage, pos model.Pos) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil
	}
	blocks, err := decode.AnthropicContent(raw)
	if err != nil {
		return fmt.Errorf("system: %w", err)
	}
	if len(blocks) == 0 {
		return nil
	}
	t.Messages = append(t.Messages, model.Message{Role: model.RoleSystem, Blocks: blocks, Pos: pos})
	return nil
}
