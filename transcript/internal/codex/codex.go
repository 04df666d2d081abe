// Package codex reads Codex CLI rollout files and `codex exec --json`
// event streams, and the rule by which Codex truncates what it sends.
package codex

import (
	"encoding/json"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// codexLine is one line of a Codex rollout file or of a `codex exec --json`
// stream; the two share the "type" field.
type codexLine struct {
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Payload   json.RawMessage `json:"payload"`
	// codex exec
	ThreadID string          `json:"thread_id"`
	Item     json.RawMessage `json:"item"`
	Usage    *codexUsage     `json:"usage"`
}

type codexUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

// usage converts Codex usage, whose input_tokens include the cached ones.
func (c codexUsage) usage() model.Usage {
	return model.Usage{Input: c.InputTokens - c.CachedInputTokens, CacheRead: c.CachedInputTokens,
		Output: c.OutputTokens, Reasoning: c.ReasoningOutputTokens}
}

type codexPayload struct {
	Type string `json:"type"`
	// session_meta
	ID               string `json:"id"`
	Instructions     string `json:"instructions"`
	BaseInstructions *struct {
		Text string `json:"text"`
	} `json:"base_instructions"`
	// turn_context
	Model            string           `json:"model"`
	TruncationPolicy *codexTruncation `json:"truncation_policy"`
	// response_item message
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// reasoning: a list of {"text"} parts (turn_context has a string here)
	Summary json.RawMessage `json:"summary"`
	// function_call, custom_tool_call, local_shell_call and their outputs
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	// event_msg
	Message  string `json:"message"`
	NumTurns int    `json:"num_turns"`
	// compacted: what replaced the history, where recorded (an encrypted
	// compaction item among the kept user messages, for a compaction made
	// by the server).
	ReplacementHistory []json.RawMessage `json:"replacement_history"`
	Info               *struct {
		Total *codexUsage `json:"total_token_usage"`
		Last  *codexUsage `json:"last_token_usage"`
	} `json:"info"`
}

// Read reads a Codex rollout file or a `codex exec --json` stream into
// one transcript.
//
// Rollouts: the session's base instructions become a system message;
// response items become messages, consecutive model-side items (reasoning,
// assistant text, tool calls) forming one assistant message per model
// response; function_call → tool_use, function_call_output → a tool message
// with a tool_result; developer messages are system messages. A token_count
// event carries last_token_usage, attached to the assistant message before
// it; Codex repeats the event when nothing changed, so an event whose
// total_token_usage equals the previous one is counted once (as
// "event_msg/token_count (repeat)" in Skipped). A counted update ends the
// model response it reports on. Calls is the number of assistant messages,
// as a replay counts them: a response the user interrupted, which no
// update reports on, is a call with no usage. A `compacted` item is a
// [Compaction] whose summary is a user message: its replacement history's
// content where recorded (Codex sent that instead of the history), else
// its message. User prompts are read from response items; a rollout that
// records them only as event_msg user_message (Codex Desktop) has those
// read instead. A thread_rolled_back event is a [Rollback] of its num_turns user
// turns (see rollBack). Other event_msg records duplicate response items and
// are counted in Skipped. Where a turn_context records a
// truncation_policy, each function and custom tool output is read as
// Codex sent it: cut to the policy × 1.2 as its history cuts it before
// sending (the rollout keeps it whole), and counted in SentTruncated.
//
// exec streams: item.completed events become messages (agent_message →
// text, reasoning → thinking, command_execution, file_change and
// mcp_tool_call → a tool_use and its tool_result, web_search and others →
// other blocks). The prompt is not part of the stream. turn.completed usage
// is the thread's total so far (codex exec prints its thread token usage's
// total, which a resumed thread carries on), so a turn's usage is its
// total less the thread's last one; a total below the last in any count
// starts afresh. It covers every call of the turn, so it is kept as
// Unattributed usage.
func Read(s *decode.Source) ([]*model.Transcript, error) {
	t := &model.Transcript{}
	var lines []codexLine
	var recs []decode.Record
	responseUsers := false
	for r := range s.Records() {
		var l codexLine
		ok, err := s.Decode(t, r, &l)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if l.Type == "response_item" && strings.Contains(string(l.Payload), `"user"`) {
			var p codexPayload
			if decode.Unmarshal(l.Payload, &p) == nil && p.Type == "message" && p.Role == "user" {
				responseUsers = true
			}
		}
		lines = append(lines, l)
		recs = append(recs, r)
	}
	c := codexReader{s: s, t: t, responseUsers: responseUsers, open: -1}
	for i, l := range lines {
		n := len(t.Messages)
		if err := c.line(recs[i], l); err != nil {
			return nil, err
		}
		if ts := model.ParseTime(l.Timestamp); !ts.IsZero() {
			for j := n; j < len(t.Messages); j++ {
				if t.Messages[j].Time.IsZero() {
					t.Messages[j].Time = ts
				}
			}
		}
	}
	decode.CountAssistantCalls(t)
	if t.ID == "" {
		t.ID = s.NameID()
	}
	return []*model.Transcript{t}, nil
}

type codexReader struct {
	s             *decode.Source
	t             *model.Transcript
	responseUsers bool
	// open is the index of the assistant message that model-side items are
	// being added to, or -1.
	open      int
	lastTotal *codexUsage
	// thread is the exec stream's thread; turnTotals its turns' last
	// total usage by thread.
	thread     string
	turnTotals map[string]codexUsage
	model      string
	// truncation is the current turn's truncation_policy, nil where its
	// turn_context records none.
	truncation *codexTruncation
}

func (c *codexReader) line(r decode.Record, l codexLine) error {
	t, pos := c.t, model.Pos{File: c.s.File, Line: r.Line}
	switch l.Type {
	case "session_meta", "turn_context", "response_item", "event_msg", "compacted":
		var p codexPayload
		if ok, err := c.s.Decode(t, decode.Record{Line: r.Line, Raw: l.Payload, Nested: true}, &p); !ok {
			return err
		}
		return c.rollout(l.Type, p, l.Payload, pos)
	case "thread.started":
		if t.ID == "" {
			t.ID = l.ThreadID
		}
		c.thread = l.ThreadID
	case "item.completed":
		return c.execItem(r, l.Item, pos)
	case "turn.completed":
		if l.Usage != nil {
			u := c.turnUsage(*l.Usage)
			if err := u.Check(decode.MaxUsage); err != nil {
				// Named at its line, not in the turns' sum.
				return c.s.Bad(t, r.Line, "usage: %v", err)
			}
			if t.Unattributed == nil {
				t.Unattributed = &model.Usage{}
			}
			t.Unattributed.Add(u)
		}
		c.open = -1
	case "turn.started":
		c.open = -1
	case "":
		return c.s.Bad(t, r.Line, "record has no type")
	default:
		model.CountSkipped(t, l.Type)
	}
	return nil
}

// turnUsage is the usage of the turn whose turn.completed records the
// thread's total tot: tot less the thread's last total, or tot where it
// has none or tot cannot follow it (below it in some count, or more
// cached tokens added than input).
func (c *codexReader) turnUsage(tot codexUsage) model.Usage {
	if c.turnTotals == nil {
		c.turnTotals = map[string]codexUsage{}
	}
	last, ok := c.turnTotals[c.thread]
	c.turnTotals[c.thread] = tot
	// Running totals only grow, and their cached tokens grow no more than
	// their input (each call's are part of its input): else tot is no
	// running total of the last.
	if !ok || tot.InputTokens < last.InputTokens || tot.CachedInputTokens < last.CachedInputTokens ||
		tot.OutputTokens < last.OutputTokens || tot.ReasoningOutputTokens < last.ReasoningOutputTokens ||
		tot.CachedInputTokens-last.CachedInputTokens > tot.InputTokens-last.InputTokens {
		return tot.usage()
	}
	return codexUsage{InputTokens: tot.InputTokens - last.InputTokens,
		CachedInputTokens:     tot.CachedInputTokens - last.CachedInputTokens,
		OutputTokens:          tot.OutputTokens - last.OutputTokens,
		ReasoningOutputTokens: tot.ReasoningOutputTokens - last.ReasoningOutputTokens}.usage()
}

func (c *codexReader) rollout(typ string, p codexPayload, raw json.RawMessage, pos model.Pos) error {
	t := c.t
	switch typ {
	case "session_meta":
		if t.ID == "" {
			t.ID = p.ID
		}
		instr := p.Instructions
		if p.BaseInstructions != nil && p.BaseInstructions.Text != "" {
			instr = p.BaseInstructions.Text
		}
		if instr != "" {
			t.Messages = append(t.Messages, model.Message{Role: model.RoleSystem, Blocks: []model.Block{{Type: model.BlockText, Text: instr}}, Pos: pos})
		}
		return nil
	case "turn_context":
		c.model = p.Model
		c.truncation = p.TruncationPolicy
		model.AddModel(t, p.Model)
		return nil
	case "compacted":
		sum := model.Message{Role: model.RoleUser, Blocks: []model.Block{{Type: model.BlockText, Text: p.Message}}, Pos: pos}
		if len(p.ReplacementHistory) > 0 {
			sum.Blocks = replacementBlocks(p.ReplacementHistory)
		}
		t.Compactions = append(t.Compactions, model.Compaction{Index: len(t.Messages), Summary: &sum, Pos: pos})
		c.open = -1
		return nil
	case "event_msg":
		return c.event(p, pos)
	}
	// response_item
	switch p.Type {
	case "message":
		blocks, err := codexContent(p.Content)
		if err != nil {
			return c.s.Bad(t, pos.Line, "%v", err)
		}
		role := model.Role(p.Role)
		if p.Role == "developer" {
			role = model.RoleSystem
		}
		if role == model.RoleAssistant {
			c.assistant(pos).Blocks = append(c.assistant(pos).Blocks, blocks...)
			return nil
		}
		c.open = -1
		t.Messages = append(t.Messages, model.Message{Role: role, Blocks: blocks, Pos: pos})
	case "reasoning":
		var texts []string
		if sum, err := codexContent(p.Summary); err == nil {
			for _, b := range sum {
				texts = append(texts, b.Text)
			}
		}
		if rt, err := codexContent(p.Content); err == nil {
			for _, b := range rt {
				texts = append(texts, b.Text)
			}
		}
		m := c.assistant(pos)
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockThinking, Text: strings.Join(texts, "\n")})
	case "function_call":
		m := c.assistant(pos)
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockToolUse, ID: p.CallID, Name: p.Name, Input: decode.ArgumentsJSON(p.Arguments)})
	case "custom_tool_call":
		m := c.assistant(pos)
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockToolUse, ID: p.CallID, Name: p.Name, Input: decode.CompactJSON(p.Input)})
	case "local_shell_call":
		m := c.assistant(pos)
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockToolUse, ID: p.CallID, Name: "local_shell", Input: decode.CompactJSON(p.Action)})
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		c.open = -1
		out := p.Output
		if p.Type != "local_shell_call_output" {
			var cut bool
			if out, cut = codexSent(out, c.truncation); cut {
				t.SentTruncated++
			}
		}
		text, rich, isErr := codexOutput(out)
		t.Messages = append(t.Messages, model.Message{Role: model.RoleTool, Pos: pos,
			Blocks: []model.Block{{Type: model.BlockToolResult, ID: p.CallID, Text: text, Raw: rich, IsError: isErr}}})
	default:
		// Server-side items (web_search_call, …) are part of the response
		// but have no result the client sends back.
		m := c.assistant(pos)
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockOther, Name: p.Type, Raw: decode.CompactJSON(raw)})
	}
	return nil
}

func (c *codexReader) event(p codexPayload, pos model.Pos) error {
	t := c.t
	switch p.Type {
	case "token_count":
		if p.Info == nil || (p.Info.Last == nil && p.Info.Total == nil) {
			model.CountSkipped(t, "event_msg/token_count (empty)")
			return nil
		}
		if p.Info.Total != nil && c.lastTotal != nil && *p.Info.Total == *c.lastTotal {
			model.CountSkipped(t, "event_msg/token_count (repeat)")
			return nil
		}
		var u model.Usage
		switch {
		case p.Info.Last != nil:
			u = p.Info.Last.usage()
		case c.lastTotal != nil:
			d := *p.Info.Total
			d.InputTokens -= c.lastTotal.InputTokens
			d.CachedInputTokens -= c.lastTotal.CachedInputTokens
			d.OutputTokens -= c.lastTotal.OutputTokens
			d.ReasoningOutputTokens -= c.lastTotal.ReasoningOutputTokens
			u = d.usage()
		default:
			u = p.Info.Total.usage()
		}
		if p.Info.Total != nil {
			tot := *p.Info.Total
			c.lastTotal = &tot
		}
		// The update ends the response: what the model says next is
		// another call's.
		c.open = -1
		if i := lastRole(t.Messages, model.RoleAssistant); i >= 0 {
			m := &t.Messages[i]
			if m.Usage == nil {
				m.Usage = &model.Usage{}
			}
			m.Usage.Add(u)
		} else {
			if err := u.Check(decode.MaxUsage); err != nil {
				return c.s.Bad(t, pos.Line, "usage: %v", err)
			}
			if t.Unattributed == nil {
				t.Unattributed = &model.Usage{}
			}
			t.Unattributed.Add(u)
		}
	case "thread_rolled_back":
		c.rollBack(p.NumTurns, pos)
	case "user_message":
		if c.responseUsers {
			model.CountSkipped(t, "event_msg/user_message")
			return nil
		}
		c.open = -1
		t.Messages = append(t.Messages, model.Message{Role: model.RoleUser, Blocks: []model.Block{{Type: model.BlockText, Text: p.Message}}, Pos: pos})
	default:
		model.CountSkipped(t, "event_msg/"+p.Type)
	}
	return nil
}

// rollBack records that the user undid the last turns of the history,
// as Codex drops them (ContextManager.drop_last_n_user_turns): the
// history is cut at the turns-th user turn from its end, or at its
// first user turn when it has fewer, keeping what came before that; no
// user turn, no cut. A user turn is a user message that is no context
// Codex adds (environment context, instructions), within the history:
// after the last compaction, outside what earlier rollbacks dropped.
func (c *codexReader) rollBack(turns int, pos model.Pos) {
	t := c.t
	c.open = -1
	start := 0
	if n := len(t.Compactions); n > 0 {
		start = t.Compactions[n-1].Index
	}
	var users []int
	for i := start; i < len(t.Messages); i++ {
		if m := &t.Messages[i]; m.Role == model.RoleUser && !codexContextual(m.Text()) && !rolledBack(t.Rollbacks, i) {
			users = append(users, i)
		}
	}
	if turns <= 0 || len(users) == 0 {
		model.CountSkipped(t, "event_msg/thread_rolled_back (nothing to drop)")
		return
	}
	cut := users[0]
	if turns < len(users) {
		cut = users[len(users)-turns]
	}
	t.Rollbacks = append(t.Rollbacks, model.Rollback{Index: len(t.Messages), From: cut, Turns: turns, Pos: pos})
}

// rolledBack reports whether message i was dropped by one of rbs.
func rolledBack(rbs []model.Rollback, i int) bool {
	for _, rb := range rbs {
		if rb.Drops(i) {
			return true
		}
	}
	return false
}

// codexContextual reports whether a user message's text is context Codex
// adds to the history rather than the user's turn.
func codexContextual(text string) bool {
	s := strings.TrimSpace(text)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>", "<turn_aborted>"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// assistant returns the open assistant message, opening one at pos if none
// is.
func (c *codexReader) assistant(pos model.Pos) *model.Message {
	if c.open < 0 {
		c.t.Messages = append(c.t.Messages, model.Message{Role: model.RoleAssistant, Model: c.model, Pos: pos})
		c.open = len(c.t.Messages) - 1
	}
	return &c.t.Messages[c.open]
}

type codexItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Command          string          `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Status           string          `json:"status"`
	Changes          json.RawMessage `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           json.RawMessage `json:"result"`
	Error            *struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
}

// execItem reads a completed item of a `codex exec --json` stream.
func (c *codexReader) execItem(r decode.Record, raw json.RawMessage, pos model.Pos) error {
	var it codexItem
	if ok, err := c.s.Decode(c.t, decode.Record{Line: r.Line, Raw: raw, Nested: true}, &it); !ok {
		return err
	}
	var use model.Block
	var result string
	failed := it.Status == "failed"
	switch it.Type {
	case "agent_message":
		m := c.assistant(pos)
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockText, Text: it.Text})
		return nil
	case "reasoning":
		m := c.assistant(pos)
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockThinking, Text: it.Text})
		return nil
	case "command_execution":
		input, _ := json.Marshal(map[string]string{"command": it.Command})
		use = model.Block{Type: model.BlockToolUse, ID: it.ID, Name: "command_execution", Input: input}
		result = it.AggregatedOutput
		failed = failed || (it.ExitCode != nil && *it.ExitCode != 0)
	case "file_change":
		input, _ := json.Marshal(map[string]json.RawMessage{"changes": decode.CompactJSON(it.Changes)})
		use = model.Block{Type: model.BlockToolUse, ID: it.ID, Name: "file_change", Input: input}
		result = it.Status
	case "mcp_tool_call":
		use = model.Block{Type: model.BlockToolUse, ID: it.ID, Name: it.Server + "." + it.Tool, Input: decode.CompactJSON(it.Arguments)}
		result = string(decode.CompactJSON(it.Result))
		if it.Error != nil {
			result, failed = it.Error.Message, true
		}
	default:
		m := c.assistant(pos)
		m.Blocks = append(m.Blocks, model.Block{Type: model.BlockOther, Name: it.Type, Raw: decode.CompactJSON(raw)})
		return nil
	}
	m := c.assistant(pos)
	m.Blocks = append(m.Blocks, use)
	c.open = -1
	c.t.Messages = append(c.t.Messages, model.Message{Role: model.RoleTool, Pos: pos,
		Blocks: []model.Block{{Type: model.BlockToolResult, ID: it.ID, Text: result, IsError: failed}}})
	return nil
}

// codexContent reads Responses-API content parts (input_text, output_text,
// input_image, …).
func codexContent(raw json.RawMessage) ([]model.Block, error) {
	return decode.TypedParts(raw, func(typ, text string, p json.RawMessage) model.Block {
		switch typ {
		case "input_text", "output_text", "text", "reasoning_text", "summary_text":
			return model.Block{Type: model.BlockText, Text: text}
		case "input_image":
			return model.Block{Type: model.BlockImage, Raw: decode.CompactJSON(p)}
		}
		return model.Block{Type: model.BlockOther, Raw: decode.CompactJSON(p)}
	})
}

// replacementBlocks returns the content of a compaction's replacement
// history, which Codex sent instead of the history from then on: the
// messages' content, and every other item (the server's encrypted
// compaction) as an other block with its JSON. The items' roles are not
// kept: the summary is one message.
func replacementBlocks(items []json.RawMessage) []model.Block {
	var out []model.Block
	for _, raw := range items {
		var it struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if decode.Unmarshal(raw, &it) == nil && it.Type == "message" {
			if blocks, err := codexContent(it.Content); err == nil {
				out = append(out, blocks...)
				continue
			}
		}
		out = append(out, model.Block{Type: model.BlockOther, Name: it.Type, Raw: decode.CompactJSON(raw)})
	}
	return out
}

// codexOutput reads a tool output: a string, (older Codex) an object
// {"content": ..., "success": ...}, or a list of content items. A list
// of texts alone is read as its JSON text; a list holding other items (input_image: the view_image and
// screenshot tools) is the rich content, for its images to be found
// ([findImages]) and never read as text, and its texts are the text.
func codexOutput(raw json.RawMessage) (text string, rich json.RawMessage, isErr bool) {
	var s string
	if decode.Unmarshal(raw, &s) == nil {
		return s, nil, false
	}
	var o struct {
		Content string `json:"content"`
		Success *bool  `json:"success"`
	}
	if decode.Unmarshal(raw, &o) == nil {
		return o.Content, nil, o.Success != nil && !*o.Success
	}
	var items []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if decode.Unmarshal(raw, &items) == nil && len(items) > 0 {
		var texts []string
		onlyText := true
		for _, it := range items {
			if (it.Type == "input_text" || it.Type == "output_text" || it.Type == "text") && it.Text != nil {
				texts = append(texts, *it.Text)
			} else {
				onlyText = false
			}
		}
		if !onlyText {
			return strings.Join(texts, "\n"), decode.CompactJSON(raw), false
		}
	}
	return string(decode.CompactJSON(raw)), nil, false
}

// lastRole returns the index of the last message with role r, or -1.
func lastRole(msgs []model.Message, r model.Role) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == r {
			return i
		}
	}
	return -1
}
