// Package openai reads OpenAI chat messages: JSON Lines of messages or
// conversations, a conversation document (mini-swe-agent's .traj.json) or
// a message array.
package openai

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// Read reads OpenAI chat messages: JSON Lines of messages (one
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
func Read(s *decode.Source) ([]*model.Transcript, error) {
	if s.Doc && s.DocRec.Raw[0] == '[' {
		t := &model.Transcript{ID: s.NameID()}
		recs, err := decode.Elems(s.DocRec.Raw, s.DocRec.Line)
		if err != nil {
			return nil, &model.SyntaxError{File: s.File, Line: s.DocRec.Line, Msg: err.Error()}
		}
		if err := openaiMessages(s, t, recs); err != nil {
			return nil, err
		}
		return []*model.Transcript{t}, nil
	}
	var out []*model.Transcript
	flat := &model.Transcript{ID: s.NameID()}
	flatRecs := false
	for r := range s.Records() {
		var m decode.OpenaiMessage
		ok, err := s.Decode(flat, r, &m)
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
		t := &model.Transcript{ID: decode.LineID(s, r)}
		switch {
		case m.ID != "":
			t.ID = m.ID // ctxbench's own writer
		case m.InstanceID != "":
			t.ID = m.InstanceID // mini-swe-agent
		}
		if m.Info != nil && m.Info.ModelStats != nil {
			t.ReportedCostUSD = m.Info.ModelStats.InstanceCost // mini-swe-agent's LiteLLM cost
		}
		recs, err := decode.MessageRecords(r, "messages")
		if err != nil {
			if err := s.Bad(t, r.Line, "%v", err); err != nil {
				return nil, err
			}
		}
		if err := openaiMessages(s, t, recs); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if flatRecs || len(flat.Bad) > 0 || len(out) == 0 {
		decode.JoinSplitResponses(flat)
		decode.CountAssistantCalls(flat)
		out = append([]*model.Transcript{flat}, out...)
	}
	return out, nil
}

// openaiMessages adds the messages of recs to t.
func openaiMessages(s *decode.Source, t *model.Transcript, recs []decode.Record) error {
	for _, r := range recs {
		var m decode.OpenaiMessage
		ok, err := s.Decode(t, r, &m)
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
	decode.CountAssistantCalls(t)
	return nil
}

// openaiAdd adds m, decoded from r, to t as a message, or counts r as
// malformed when it is no chat message.
func openaiAdd(s *decode.Source, t *model.Transcript, r decode.Record, m *decode.OpenaiMessage) error {
	if problem := openaiProblem(m, r.Raw); problem != "" {
		return s.Bad(t, r.Line, "%s", problem)
	}
	msg, err := decode.OpenaiMessageOf(*m)
	if err != nil {
		return s.Bad(t, r.Line, "%v", err)
	}
	msg.Pos = model.Pos{File: s.File, Line: r.Line}
	model.AddModel(t, msg.Model)
	t.Messages = append(t.Messages, msg)
	return nil
}

// openaiProblem says why m, whose JSON is raw, is not a chat message
// ctxbench can read, or returns "": it has no role, a role no chat
// format has (an event log's "agent", Gemini's "model"), or nothing to
// read (its text in a field chat messages do not have). The format it
// looks like is named where it is known.
func openaiProblem(m *decode.OpenaiMessage, raw []byte) string {
	switch {
	case m.Role == "":
		return "message has no role" + looksLike(raw)
	case !decode.OpenaiRoles[m.Role]:
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
	if decode.Unmarshal(raw, &m) != nil {
		return ""
	}
	if name := decode.ForeignFormat(m); name != "" {
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
