// Package gemini reads Gemini CLI session JSON files.
package gemini

import (
	"encoding/json"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

type geminiSession struct {
	SessionID string `json:"sessionId"`
}

type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Model     string          `json:"model"`
	Thoughts  []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	ToolCalls []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
		Status string          `json:"status"`
	} `json:"toolCalls"`
	Tokens *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
}

// Read reads Gemini CLI session files ({"sessionId", "messages"}),
// one transcript per session.
//
// A "user" message is a user message. A "gemini" message is an assistant
// message: its thoughts become thinking blocks, then its text, then a
// tool_use per tool call; the calls' results follow as one user message of
// tool_result blocks, the role Gemini sends function responses with.
// Messages of other types (info, error, warning) are counted in Skipped.
// tokens map to usage: Input = input − cached + tool (the prompt count
// includes the cached tokens; tool-use prompt tokens are counted apart),
// CacheRead = cached, Output = output + thoughts. Calls is the number of
// gemini messages.
func Read(s *decode.Source) ([]*model.Transcript, error) {
	var out []*model.Transcript
	for r := range s.Records() {
		t := &model.Transcript{ID: decode.LineID(s, r)}
		var sess geminiSession
		ok, err := s.Decode(t, r, &sess)
		if err != nil {
			return nil, err
		}
		if !ok {
			out = append(out, t)
			continue
		}
		if sess.SessionID != "" {
			t.ID = sess.SessionID
		}
		recs, err := decode.MessageRecords(r, "messages")
		if err != nil {
			if err := s.Bad(t, r.Line, "%v", err); err != nil {
				return nil, err
			}
		}
		for _, mr := range recs {
			var m geminiMessage
			ok, err := s.Decode(t, mr, &m)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if err := geminiAppend(s, t, mr, m); err != nil {
				return nil, err
			}
		}
		decode.CountAssistantCalls(t)
		out = append(out, t)
	}
	return out, nil
}

func geminiAppend(s *decode.Source, t *model.Transcript, r decode.Record, m geminiMessage) error {
	pos := model.Pos{File: s.File, Line: r.Line}
	at := model.ParseTime(m.Timestamp)
	n := len(t.Messages)
	defer func() {
		for j := n; j < len(t.Messages); j++ {
			t.Messages[j].Time = at
		}
	}()
	content, err := geminiContent(m.Content)
	if err != nil {
		return s.Bad(t, r.Line, "%v", err)
	}
	switch m.Type {
	case "user":
		t.Messages = append(t.Messages, model.Message{Role: model.RoleUser, Blocks: content, Pos: pos})
		return nil
	case "gemini":
	default:
		model.CountSkipped(t, m.Type)
		return nil
	}
	msg := model.Message{Role: model.RoleAssistant, Model: m.Model, CallID: m.ID, Pos: pos}
	model.AddModel(t, m.Model)
	for _, th := range m.Thoughts {
		msg.Blocks = append(msg.Blocks, model.Block{Type: model.BlockThinking, Text: strings.TrimSpace(th.Subject + "\n" + th.Description)})
	}
	msg.Blocks = append(msg.Blocks, content...)
	var results []model.Block
	for _, tc := range m.ToolCalls {
		msg.Blocks = append(msg.Blocks, model.Block{Type: model.BlockToolUse, ID: tc.ID, Name: tc.Name, Input: decode.CompactJSON(tc.Args)})
		results = append(results, model.Block{Type: model.BlockToolResult, ID: tc.ID, Text: geminiResult(tc.Result),
			IsError: tc.Status == "error" || tc.Status == "cancelled"})
	}
	if k := m.Tokens; k != nil {
		msg.Usage = &model.Usage{Input: k.Input - k.Cached + k.Tool, CacheRead: k.Cached, Output: k.Output + k.Thoughts, Reasoning: k.Thoughts}
	}
	t.Messages = append(t.Messages, msg)
	if len(results) > 0 {
		t.Messages = append(t.Messages, model.Message{Role: model.RoleUser, Blocks: results, Pos: pos})
	}
	return nil
}

// geminiContent reads content: a string or a list of parts ({"text": …}).
func geminiContent(raw json.RawMessage) ([]model.Block, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		err := decode.Unmarshal(raw, &s)
		return []model.Block{{Type: model.BlockText, Text: s}}, err
	}
	var parts []json.RawMessage
	if err := decode.Unmarshal(raw, &parts); err != nil {
		return nil, decode.ErrContent
	}
	var blocks []model.Block
	for _, p := range parts {
		var part struct {
			Text       *string `json:"text"`
			InlineData *struct {
				MimeType string `json:"mimeType"`
			} `json:"inlineData"`
		}
		switch ok := decode.Unmarshal(p, &part) == nil; {
		case ok && part.Text != nil:
			blocks = append(blocks, model.Block{Type: model.BlockText, Text: *part.Text})
		case ok && part.InlineData != nil && strings.HasPrefix(part.InlineData.MimeType, "image/"):
			blocks = append(blocks, model.Block{Type: model.BlockImage, Raw: decode.CompactJSON(p)})
		default:
			blocks = append(blocks, model.Block{Type: model.BlockOther, Raw: decode.CompactJSON(p)})
		}
	}
	return blocks, nil
}

// geminiResult returns the text of a tool call's result parts: each
// functionResponse's response.output (or error), or its response as JSON.
func geminiResult(raw json.RawMessage) string {
	var parts []struct {
		FunctionResponse *struct {
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
		Text *string `json:"text"`
	}
	if decode.Unmarshal(raw, &parts) != nil {
		return string(decode.CompactJSON(raw))
	}
	var texts []string
	for _, p := range parts {
		switch {
		case p.FunctionResponse != nil:
			var resp struct {
				Output *string `json:"output"`
				Error  *string `json:"error"`
			}
			_ = decode.Unmarshal(p.FunctionResponse.Response, &resp)
			switch {
			case resp.Output != nil:
				texts = append(texts, *resp.Output)
			case resp.Error != nil:
				texts = append(texts, *resp.Error)
			default:
				texts = append(texts, string(decode.CompactJSON(p.FunctionResponse.Response)))
			}
		case p.Text != nil:
			texts = append(texts, *p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
