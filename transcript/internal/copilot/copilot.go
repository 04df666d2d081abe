// Package copilot reads GitHub Copilot CLI session event logs
// (~/.copilot/session-state/<session id>/events.jsonl).
package copilot

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// copilotEvent is one line of a GitHub Copilot CLI session's event log
// (~/.copilot/session-state/<session id>/events.jsonl): the envelope of
// the SessionEvent union of @github/copilot-sdk's generated
// session-events.ts. agentId marks a sub-agent's events.
type copilotEvent struct {
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	AgentID   string          `json:"agentId"`
	Ephemeral bool            `json:"ephemeral"`
	Data      json.RawMessage `json:"data"`
}

// copilotData holds the fields of the events the reader reads (StartData,
// ResumeData, ModelChangeData, UserMessageData, AssistantReasoningData,
// AssistantMessageData, ToolExecutionCompleteData, CompactionCompleteData,
// ShutdownData).
type copilotData struct {
	SessionID          string `json:"sessionId"`
	CopilotVersion     string `json:"copilotVersion"`
	SelectedModel      string `json:"selectedModel"`
	NewModel           string `json:"newModel"`
	Content            string `json:"content"`
	TransformedContent string `json:"transformedContent"`
	MessageID          string `json:"messageId"`
	Model              string `json:"model"`
	ReasoningText      string `json:"reasoningText"`
	ToolRequests       []struct {
		ToolCallID string          `json:"toolCallId"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	ToolCallID string `json:"toolCallId"`
	Success    *bool  `json:"success"`
	Result     *struct {
		Content string `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	SummaryContent      string `json:"summaryContent"`
	PreCompactionTokens int64  `json:"preCompactionTokens"`
	Trigger             string `json:"trigger"`
	ModelMetrics        map[string]struct {
		Usage struct {
			Input      int64 `json:"inputTokens"`
			Output     int64 `json:"outputTokens"`
			CacheRead  int64 `json:"cacheReadTokens"`
			CacheWrite int64 `json:"cacheWriteTokens"`
			Reasoning  int64 `json:"reasoningTokens"`
		} `json:"usage"`
	} `json:"modelMetrics"`
}

// copilotTypes are the event types that mark a Copilot CLI event log.
var copilotTypes = map[string]bool{
	"session.start": true, "session.resume": true, "session.shutdown": true, "session.model_change": true,
	"user.message": true, "assistant.message": true, "assistant.turn_start": true, "assistant.turn_end": true,
	"tool.execution_start": true, "tool.execution_complete": true, "session.compaction_complete": true,
}

// IsEvent reports whether m is an event of a Copilot CLI event log.
func IsEvent(m map[string]any) bool {
	typ, _ := m["type"].(string)
	_, data := m["data"].(map[string]any)
	return copilotTypes[typ] && data && decode.HasAny(m, "id", "parentId", "timestamp")
}

// Read reads a GitHub Copilot CLI session's event log
// (~/.copilot/session-state/<session id>/events.jsonl), as
// @github/copilot-sdk's session-events.ts describes its events:
//
//   - session.start names the session (sessionId), the agent's version
//     (copilotVersion) and the model (selectedModel), as session.resume
//     and session.model_change (newModel) do later;
//   - user.message is a user message: transformedContent, what was sent
//     to the model, else content;
//   - assistant.message is a call: its reasoningText (else the
//     assistant.reasoning before it) as thinking, its content, its
//     toolRequests as tool uses; events of one messageId are one call;
//   - tool.execution_complete is a tool result: result.content ("sent to
//     the LLM"), or error.message as an error; results in a row make one
//     tool message;
//   - session.compaction_complete that succeeded is a [Compaction] whose
//     summary (summaryContent) is a user message, with its trigger and
//     preCompactionTokens. Copilot keeps its most recent messages
//     (messagesRemoved is less than preCompactionMessagesLength), which
//     the log does not name: a replay of what was sent sends the summary
//     and what follows;
//   - the events of a sub-agent (agentId) are a transcript of their own,
//     its Parent the session and Subagent the agent id.
//
// Copilot does not write a call's usage to the log (assistant.usage is
// ephemeral): each session.shutdown (one per process that ran the
// session, a resumed one having several) holds the usage of that
// process by model (modelMetrics), main conversation and sub-agents
// together, and is read as UnattributedByModel of the session's own
// transcript. inputTokens there holds the cache reads and writes (the
// SDK's maintainers: "Input tokens is the total covering all kinds of
// input, including cached"), which are taken out. Other events
// (ephemeral ones, turn and tool starts, hooks, permissions) are counted
// in Skipped.
func Read(s *decode.Source) ([]*model.Transcript, error) {
	c := &copilotReader{main: &model.Transcript{ID: s.NameID()}, subs: map[string]*model.Transcript{}, reasoning: map[*model.Transcript]string{},
		lastCall: map[*model.Transcript]string{}, by: map[string]model.ModelUsage{}}
	for r := range s.Records() {
		var ev copilotEvent
		ok, err := s.Decode(c.main, r, &ev)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		t := c.transcriptOf(ev.AgentID)
		var d copilotData
		if len(ev.Data) > 0 && string(ev.Data) != "null" {
			if err := decode.Unmarshal(ev.Data, &d); err != nil {
				if err := s.Bad(c.main, r.Line, "%s: %s", ev.Type, decode.DescribeJSONError(err, decode.Record{Line: r.Line, Raw: ev.Data})); err != nil {
					return nil, err
				}
				continue
			}
		}
		c.event(t, &ev, &d, model.Pos{File: s.File, Line: r.Line})
	}
	return c.transcripts(), nil
}

// A copilotReader is one event log being read: the session's transcript
// and its sub-agents', the model in use, each transcript's reasoning not
// yet given to a message and its last call's id, and the usage by model.
type copilotReader struct {
	main      *model.Transcript
	subs      map[string]*model.Transcript
	order     []string // the sub-agents, as they first appear
	model     string
	reasoning map[*model.Transcript]string
	lastCall  map[*model.Transcript]string
	by        map[string]model.ModelUsage
	byOrder   []string
}

// event reads one event at pos, of t (the session's transcript or a
// sub-agent's).
func (c *copilotReader) event(t *model.Transcript, ev *copilotEvent, d *copilotData, pos model.Pos) {
	at := model.ParseTime(ev.Timestamp)
	switch ev.Type {
	case "session.start", "session.resume":
		if d.SessionID != "" {
			c.main.ID = d.SessionID
		}
		if c.main.AgentVersion == "" {
			c.main.AgentVersion = d.CopilotVersion
		}
		c.model = cmp.Or(d.SelectedModel, c.model)
	case "session.model_change":
		c.model = cmp.Or(d.NewModel, c.model)
	case "user.message":
		text := cmp.Or(d.TransformedContent, d.Content)
		t.Messages = append(t.Messages, model.Message{Role: model.RoleUser, Blocks: []model.Block{{Type: model.BlockText, Text: text}}, Pos: pos, Time: at})
	case "assistant.reasoning":
		c.reasoning[t] += d.Content
	case "assistant.message":
		c.assistant(t, d, pos, at)
	case "tool.execution_complete":
		copilotToolResult(t, d, pos, at)
	case "session.compaction_complete":
		if d.Success == nil || !*d.Success {
			model.CountSkipped(c.main, "session.compaction_complete (failed)")
			return
		}
		sum := &model.Message{Role: model.RoleUser, Blocks: []model.Block{{Type: model.BlockText, Text: d.SummaryContent}}, Pos: pos, Time: at}
		t.Compactions = append(t.Compactions, model.Compaction{Index: len(t.Messages), Trigger: copilotTrigger(d.Trigger),
			PreTokens: d.PreCompactionTokens, Summary: sum, Pos: pos})
	case "session.shutdown":
		c.shutdown(d)
		model.CountSkipped(c.main, "session.shutdown")
	default:
		kind := ev.Type
		if ev.Ephemeral {
			kind += " (ephemeral)"
		}
		model.CountSkipped(c.main, kind)
	}
}

// transcriptOf returns the transcript of a sub-agent's events (agent,
// made on first use), or of the session's own ("").
func (c *copilotReader) transcriptOf(agent string) *model.Transcript {
	if agent == "" {
		return c.main
	}
	t := c.subs[agent]
	if t == nil {
		t = &model.Transcript{Subagent: agent}
		c.subs[agent] = t
		c.order = append(c.order, agent)
	}
	return t
}

// assistant reads a response: a call, or another chunk of the last one.
func (c *copilotReader) assistant(t *model.Transcript, d *copilotData, pos model.Pos, at time.Time) {
	m := model.Message{Role: model.RoleAssistant, Model: cmp.Or(d.Model, c.model), CallID: d.MessageID, Pos: pos, Time: at}
	think := cmp.Or(d.ReasoningText, c.reasoning[t])
	delete(c.reasoning, t)
	if think != "" {
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockThinking, Text: think})
	}
	if d.Content != "" {
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockText, Text: d.Content})
	}
	for _, tr := range d.ToolRequests {
		b := model.Block{Type: model.BlockToolUse, ID: tr.ToolCallID, Name: tr.Name}
		if len(tr.Arguments) > 0 && string(tr.Arguments) != "null" {
			b.Input = decode.CompactJSON(tr.Arguments)
		}
		m.Blocks = append(m.Blocks, b)
	}
	model.AddModel(t, m.Model)
	if n := len(t.Messages); d.MessageID != "" && c.lastCall[t] == d.MessageID && n > 0 && t.Messages[n-1].Role == model.RoleAssistant {
		// Another chunk of the same response.
		t.Messages[n-1].Blocks = append(t.Messages[n-1].Blocks, m.Blocks...)
		return
	}
	c.lastCall[t] = d.MessageID
	t.Messages = append(t.Messages, m)
	t.Calls++
}

// copilotToolResult reads a tool's result into the tool message after the call
// (the results of one response share it).
func copilotToolResult(t *model.Transcript, d *copilotData, pos model.Pos, at time.Time) {
	b := model.Block{Type: model.BlockToolResult, ID: d.ToolCallID}
	switch {
	case d.Result != nil && (d.Success == nil || *d.Success):
		b.Text = d.Result.Content
	case d.Error != nil:
		b.Text, b.IsError = d.Error.Message, true
	default:
		b.IsError = d.Success != nil && !*d.Success
	}
	if n := len(t.Messages); n > 0 && t.Messages[n-1].Role == model.RoleTool {
		t.Messages[n-1].Blocks = append(t.Messages[n-1].Blocks, b)
	} else {
		t.Messages = append(t.Messages, model.Message{Role: model.RoleTool, Blocks: []model.Block{b}, Pos: pos, Time: at})
	}
}

// shutdown adds a process's usage by model, cache reads and writes
// taken out of its input.
func (c *copilotReader) shutdown(d *copilotData) {
	for _, name := range slices.Sorted(maps.Keys(d.ModelMetrics)) {
		u := d.ModelMetrics[name].Usage
		mu, seen := c.by[name]
		if !seen {
			c.byOrder = append(c.byOrder, name)
			mu.Model = name
		}
		mu.Usage.Add(model.Usage{Input: decode.UncachedInput(u.Input, u.CacheRead, u.CacheWrite), CacheRead: u.CacheRead,
			CacheWrite: u.CacheWrite, Output: u.Output, Reasoning: u.Reasoning})
		c.by[name] = mu
	}
}

// transcripts returns the session's transcript, its usage by model
// unattributed, and its sub-agents' that sent something.
func (c *copilotReader) transcripts() []*model.Transcript {
	main := c.main
	for _, name := range c.byOrder {
		main.UnattributedByModel = append(main.UnattributedByModel, c.by[name])
		model.AddModel(main, name)
	}
	var out []*model.Transcript
	if len(main.Messages) > 0 || len(main.Compactions) > 0 || len(main.UnattributedByModel) > 0 || len(c.order) == 0 {
		out = append(out, main)
	}
	for _, id := range c.order {
		sub := c.subs[id]
		if len(sub.Messages) == 0 && len(sub.Compactions) == 0 {
			continue // events of a sub-agent that sent nothing
		}
		sub.ID, sub.Parent = main.ID+"/"+id, main.ID
		out = append(out, sub)
	}
	return out
}

// copilotTrigger names a compaction's trigger as the other formats do:
// manual, else auto (threshold, context_limit_retry, memory_pressure,
// model_switch).
func copilotTrigger(t string) string {
	switch t {
	case "":
		return ""
	case "manual":
		return "manual"
	}
	return "auto"
}
