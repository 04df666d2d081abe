// Package openhands reads OpenHands event-list JSON files and exports.
package openhands

import (
	"bytes"
	"cmp"
	"encoding/json"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// ohExport is an OpenHands Cloud conversation export, less its events.
type ohExport struct {
	Conversation struct {
		ConversationID string `json:"conversation_id"`
		ID             string `json:"id"`
	} `json:"conversation"`
}

type ohEvent struct {
	Timestamp   string `json:"timestamp"`
	Source      string `json:"source"`
	Message     string `json:"message"`
	Action      string `json:"action"`
	Observation string `json:"observation"`
	Content     string `json:"content"`
	Args        *struct {
		Content string `json:"content"`
	} `json:"args"`
	Meta *struct {
		FunctionName  string      `json:"function_name"`
		ToolCallID    string      `json:"tool_call_id"`
		ModelResponse *ohResponse `json:"model_response"`
	} `json:"tool_call_metadata"`
}

// ohResponse is the LiteLLM (OpenAI-shaped) response OpenHands records.
type ohResponse struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Message decode.OpenaiMessage `json:"message"`
	} `json:"choices"`
	Usage *decode.OpenaiUsage `json:"usage"`
}

// Read reads an OpenHands event list: a JSON array of events,
// events one per line, or an OpenHands Cloud export ({"exported_at",
// "base_url", "conversation", "events": [...]}, whose conversation id is
// the transcript's).
//
// Actions carrying tool_call_metadata are tool calls: the actions of one
// model response (same model_response.id) form one assistant message — the
// response's text, then a tool_use per action, with the response's usage —
// and the observations answering them are tool messages after it, as
// OpenHands sends them. OpenHands records a response's parallel tool calls
// as action, observation, action, observation: an action of a response
// already read adds its tool_use to that response's message, so a
// response is one call, its usage counted once. A user "message" action
// is a user message, an agent "message" action without tool metadata an
// assistant message, a "system" action a system message. Every other
// event (state changes, null observations) is counted in Skipped as
// "action/<name>" or "observation/<name>". Calls is the number of
// assistant messages.
func Read(s *decode.Source) ([]*model.Transcript, error) {
	t := &model.Transcript{ID: s.NameID()}
	recs, err := ohRecords(s, t)
	if err != nil {
		return nil, err
	}
	oh := &ohReader{s: s, t: t, byResponse: map[string]int{}}
	for _, r := range recs {
		var e ohEvent
		ok, err := s.Decode(t, r, &e)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		n := len(t.Messages)
		if err := oh.event(r, &e); err != nil {
			return nil, err
		}
		at := model.ParseTime(e.Timestamp)
		for j := n; j < len(t.Messages); j++ {
			t.Messages[j].Time = at
		}
	}
	decode.CountAssistantCalls(t)
	return []*model.Transcript{t}, nil
}

// ohRecords returns the events of s: the elements of a document's array
// (or of an export's "events"), else one per line.
func ohRecords(s *decode.Source, t *model.Transcript) ([]decode.Record, error) {
	var recs []decode.Record
	for r := range s.Records() {
		if !s.Doc {
			// One event per line, kept past the next line's read.
			r.Raw = bytes.Clone(r.Raw)
			recs = append(recs, r)
			continue
		}
		raw, line := r.Raw, r.Line
		if raw[0] == '{' {
			var w ohExport
			if ok, err := s.Decode(t, r, &w); !ok {
				return nil, err
			}
			t.ID = cmp.Or(w.Conversation.ConversationID, w.Conversation.ID, t.ID)
			var ok bool
			if raw, line, ok = decode.Member(r.Raw, r.Line, "events"); !ok {
				return nil, &model.SyntaxError{File: s.File, Line: r.Line, Msg: "OpenHands export has no events"}
			}
		}
		recs, err := decode.Elems(raw, line)
		if err != nil {
			return nil, &model.SyntaxError{File: s.File, Line: line, Msg: err.Error()}
		}
		return recs, nil
	}
	return recs, nil
}

// An ohReader turns OpenHands events into t's messages; byResponse is
// the assistant message of each model_response.id.
type ohReader struct {
	s          *decode.Source
	t          *model.Transcript
	byResponse map[string]int
}

// event adds what event e, record r, holds.
func (oh *ohReader) event(r decode.Record, e *ohEvent) error {
	t := oh.t
	pos := model.Pos{File: oh.s.File, Line: r.Line}
	text := e.Message
	if e.Args != nil && e.Args.Content != "" {
		text = e.Args.Content
	}
	switch {
	case e.Action != "" && e.Meta != nil && e.Meta.FunctionName != "":
		oh.toolCall(e, pos)
	case e.Observation != "" && e.Meta != nil && e.Meta.ToolCallID != "":
		t.Messages = append(t.Messages, model.Message{Role: model.RoleTool, Pos: pos, Blocks: []model.Block{{
			Type: model.BlockToolResult, ID: e.Meta.ToolCallID, Text: e.Content, IsError: e.Observation == "error"}}})
	case e.Action == "message" && e.Source == "user":
		t.Messages = append(t.Messages, model.Message{Role: model.RoleUser, Blocks: []model.Block{{Type: model.BlockText, Text: text}}, Pos: pos})
	case e.Action == "message" && e.Source == "agent":
		t.Messages = append(t.Messages, model.Message{Role: model.RoleAssistant, Blocks: []model.Block{{Type: model.BlockText, Text: text}}, Pos: pos})
	case e.Action == "system":
		t.Messages = append(t.Messages, model.Message{Role: model.RoleSystem, Blocks: []model.Block{{Type: model.BlockText, Text: text}}, Pos: pos})
	case e.Action != "":
		model.CountSkipped(t, "action/"+e.Action)
	case e.Observation != "":
		model.CountSkipped(t, "observation/"+e.Observation)
	default:
		return oh.s.Bad(t, r.Line, "event is neither an action nor an observation")
	}
	return nil
}

// toolCall adds an action with tool metadata: a tool use in the
// assistant message of its model response, made by its first action.
func (oh *ohReader) toolCall(e *ohEvent, pos model.Pos) {
	t := oh.t
	mr := e.Meta.ModelResponse
	respID := ""
	if mr != nil {
		respID = mr.ID
	}
	open, seen := oh.byResponse[respID]
	if !seen || respID == "" {
		msg := model.Message{Role: model.RoleAssistant, CallID: respID, Pos: pos}
		if mr != nil {
			msg.Model, msg.Usage = mr.Model, mr.Usage.Usage()
			model.AddModel(t, mr.Model)
			if len(mr.Choices) > 0 {
				if c, err := decode.OpenaiContent(mr.Choices[0].Message.Content); err == nil {
					msg.Blocks = c
				}
			}
		}
		t.Messages = append(t.Messages, msg)
		open = len(t.Messages) - 1
		if respID != "" {
			oh.byResponse[respID] = open
		}
	}
	input := ohArguments(e.Meta.ToolCallID, mr)
	m := &t.Messages[open]
	m.Blocks = append(m.Blocks, model.Block{Type: model.BlockToolUse, ID: e.Meta.ToolCallID, Name: e.Meta.FunctionName, Input: input})
}

// ohArguments returns the arguments of tool call id as the model response
// recorded them.
func ohArguments(id string, mr *ohResponse) json.RawMessage {
	if mr == nil {
		return nil
	}
	for _, c := range mr.Choices {
		for _, tc := range c.Message.ToolCalls {
			if tc.ID == id {
				return decode.ArgumentsJSON(tc.Function.Arguments)
			}
		}
	}
	return nil
}
