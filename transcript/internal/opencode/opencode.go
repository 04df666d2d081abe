// Package opencode reads opencode's sessions: the JSON `opencode export`
// writes, its server API's messages and its storage directory; its SQLite
// database through the reader package transcript/opencodedb registers.
package opencode

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// An Entry is one message of an opencode session as its export and
// its server's API give it: the message and its parts.
type Entry struct {
	Info  *Info             `json:"info"`
	Parts []json.RawMessage `json:"parts"`
}

// Info is a message's info (MessageV2.Info): a user message
// (its model under model), or an assistant message (modelID,
// providerID, summary true for a compaction's summary, its cost and the
// tokens of its last step).
type Info struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"`
	Time      struct {
		Created int64 `json:"created"`
	} `json:"time"`
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Summary    json.RawMessage `json:"summary"`
	Cost       float64         `json:"cost"`
	Tokens     *opencodeTokens `json:"tokens"`
	// System is the system prompt an assistant message recorded (opencode
	// before 1.0; later versions do not record it).
	System []string `json:"system"`
}

// opencodeTokens is a step's (or a message's last step's) usage.
type opencodeTokens struct {
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

// opencodePart is one part of a message (MessageV2.Part): text,
// reasoning, file, tool, step-start, step-finish, compaction, subtask
// and the parts that are not sent (snapshot, patch, agent, retry).
type opencodePart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	Time      struct {
		Start int64 `json:"start"`
	} `json:"time"`
	Mime   string `json:"mime"`
	CallID string `json:"callID"`
	Tool   string `json:"tool"`
	State  *struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output string          `json:"output"`
		Error  string          `json:"error"`
		Time   struct {
			Start     int64 `json:"start"`
			Compacted int64 `json:"compacted"`
		} `json:"time"`
	} `json:"state"`
	Tokens      *opencodeTokens `json:"tokens"`
	Auto        bool            `json:"auto"`
	TailStartID string          `json:"tail_start_id"`
}

// The texts opencode sends in place of parts (MessageV2.toModelMessages):
// a compaction request, a tool call that did not finish, an output
// compaction.prune cleared.
const (
	OpencodeCompactionRequest = "What did we do so far?"
	OpencodeInterrupted       = "[Tool execution was interrupted]"
	opencodeCleared           = "[Old tool result content cleared]"
)

// IsMessage reports whether m is an opencode message as its export
// and API give it: an info with a role and a session id, and parts.
func IsMessage(m map[string]any) bool {
	info, ok := m["info"].(map[string]any)
	return ok && decode.HasAny(m, "parts") && decode.HasAny(info, "role") && decode.HasAny(info, "sessionID")
}

// IsExport reports whether m is an opencode session export
// (`opencode export`): the session's info and its messages.
func IsExport(m map[string]any) bool {
	info, ok := m["info"].(map[string]any)
	if !ok || !decode.HasAny(info, "id") || !decode.HasAny(info, "time") {
		return false
	}
	ms, ok := m["messages"].([]any)
	if !ok {
		return false
	}
	if len(ms) == 0 {
		return decode.HasAny(info, "projectID", "slug", "directory")
	}
	e, ok := ms[0].(map[string]any)
	return ok && IsMessage(e)
}

// Read reads opencode sessions: its database (package transcript/opencodedb),
// the JSON `opencode export` writes ({info, messages: [{info, parts}]},
// the session's id and its parent's from info), or the array of messages
// its server's API returns (GET /session/{id}/message), or the older
// storage directory (opencode before 1.2; [readOpencodeStorage]), whose
// files alone are refused by name. opencode sends each part as
// MessageV2.toModelMessages does, and so does the reader:
//
//   - a user message's text parts but those marked ignored, its files
//     but text/plain files and directories (whose content the prompt
//     added as synthetic text parts) as images or other blocks, and a
//     compaction part as the request "What did we do so far?";
//   - an assistant message is one call per step (step-start …
//     step-finish): its reasoning as thinking, its text, its tool parts
//     as tool uses, followed by a tool message of their results — the
//     output, the error (is_error), or "[Tool execution was
//     interrupted]" for a call that did not finish. Usage is the step's
//     step-finish tokens; without step-finish parts, the message's
//     tokens (which opencode sets to its last step's) go to its last
//     call. tokens.input is uncached (opencode's getUsage takes the
//     cache reads and writes out of the AI SDK's inputTokens for every
//     provider but Anthropic and Bedrock, which count them apart); the
//     AI SDK's outputTokens includes reasoning for OpenAI and
//     OpenAI-compatible providers, not for Google's or xAI's (nor where
//     reasoning exceeds output), whose reasoning tokens are added to
//     Output. The message's cost is summed in ReportedCostUSD.
//   - A user message with a compaction part and the assistant message
//     after it marked summary are a [Compaction]: its summary is that
//     message's text, and the messages from tail_start_id to the request
//     are Kept (opencode sends the request, the summary, then that
//     tail). A tool output cleared by compaction.prune
//     (state.time.compacted) is a [Clearing] at the first message
//     recorded after the clearing's time.
//
// The system prompt is not recorded since opencode 1.0 (before, each
// assistant message's info.system held it: the first is read). Snapshot,
// patch, agent and retry parts are not sent and are counted in Skipped.
// Calls is the number of steps.
func Read(s *decode.Source) ([]*model.Transcript, error) {
	if s.Db != "" {
		return readDatabase(s)
	}
	if s.Storage != "" {
		return readOpencodeStorage(s)
	}
	var out []*model.Transcript
	for r := range s.Records() {
		t := &model.Transcript{ID: decode.LineID(s, r)} // JSON Lines of sessions
		if err := readOpencodeSession(s, r, t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// readOpencodeSession reads the session r holds into t.
func readOpencodeSession(s *decode.Source, r decode.Record, t *model.Transcript) error {
	o := NewReader(s, t)
	var recs []decode.Record
	var err error
	if len(r.Raw) > 0 && r.Raw[0] == '[' {
		if recs, err = decode.Elems(r.Raw, r.Line); err != nil {
			return s.Bad(t, r.Line, "%v", err)
		}
	} else {
		var head struct {
			Info struct {
				ID       string `json:"id"`
				ParentID string `json:"parentID"`
				Version  string `json:"version"`
			} `json:"info"`
		}
		if ok, err := s.Decode(t, r, &head); !ok || err != nil {
			return err
		}
		if head.Info.ID != "" {
			t.ID, o.Named = head.Info.ID, true
		}
		t.Parent, t.AgentVersion = head.Info.ParentID, head.Info.Version
		if t.Parent != "" {
			t.Subagent = t.ID
		}
		if recs, err = decode.MessageRecords(r, "messages"); err != nil {
			if err := s.Bad(t, r.Line, "%v", err); err != nil {
				return err
			}
		}
	}
	for _, mr := range recs {
		mr.Nested = true
		if err := o.entry(mr); err != nil {
			return err
		}
	}
	o.Finish()
	return nil
}

// NewReader returns a reader of a session of s into t.
func NewReader(s *decode.Source, t *model.Transcript) *Reader {
	return &Reader{s: s, t: t, first: map[string]int{}}
}

// A Reader turns an opencode session's messages into t.
type Reader struct {
	s *decode.Source
	t *model.Transcript
	// first is the index in t.Messages of each opencode message's first;
	// named whether the session's id is known (else its messages' is
	// taken).
	first map[string]int
	Named bool
	// pending says a compaction request awaits its summary: request is
	// its index, tail the id of the message its tail starts at, auto
	// whether opencode compacted by itself.
	pending bool
	request int
	tail    string
	auto    bool
	// cleared are the times at which tool outputs were cleared, and the
	// tool call ids cleared at each.
	cleared map[int64][]string
	system  []string
}

// entry reads one message of the session.
func (o *Reader) entry(r decode.Record) error {
	var e Entry
	if ok, err := o.s.Decode(o.t, r, &e); !ok || err != nil {
		return err
	}
	return o.Add(e, r.Line)
}

// Add adds message e, recorded at line (0 when the source has no lines).
func (o *Reader) Add(e Entry, line int) error {
	if e.Info == nil {
		return o.s.Bad(o.t, line, "opencode message has no info")
	}
	if !o.Named && e.Info.SessionID != "" {
		o.t.ID, o.Named = e.Info.SessionID, true
	}
	pos := model.Pos{File: o.s.File, Line: line}
	created := time.Time{}
	if e.Info.Time.Created > 0 {
		created = time.UnixMilli(e.Info.Time.Created).UTC()
	}
	parts := make([]opencodePart, 0, len(e.Parts))
	for i, raw := range e.Parts {
		var p opencodePart
		if err := decode.Unmarshal(raw, &p); err != nil {
			if err := o.s.Bad(o.t, line, "message %s part %d: %s", e.Info.ID, i, decode.DescribeJSONError(err, decode.Record{Line: line, Raw: raw})); err != nil {
				return err
			}
			continue
		}
		parts = append(parts, p)
	}
	o.first[e.Info.ID] = len(o.t.Messages)
	switch e.Info.Role {
	case "user":
		return o.user(e, parts, pos, created)
	case "assistant":
		return o.assistant(e, parts, pos, created)
	}
	return o.s.Bad(o.t, line, "opencode message %s role %q, want user or assistant", e.Info.ID, e.Info.Role)
}

// user adds a user message.
func (o *Reader) user(e Entry, parts []opencodePart, pos model.Pos, created time.Time) error {
	m := model.Message{Role: model.RoleUser, Pos: pos, Time: created}
	for i, p := range parts {
		switch p.Type {
		case "text":
			if p.Ignored {
				model.CountSkipped(o.t, "opencode part text (ignored)")
				continue
			}
			m.Blocks = append(m.Blocks, model.Block{Type: model.BlockText, Text: p.Text})
		case "file":
			if p.Mime == "text/plain" || p.Mime == "application/x-directory" {
				model.CountSkipped(o.t, "opencode part file (sent as its text parts)")
				continue
			}
			m.Blocks = append(m.Blocks, model.Block{Type: fileBlockType(p.Mime), Raw: decode.CompactJSON(e.Parts[i])})
		case "compaction":
			m.Blocks = append(m.Blocks, model.Block{Type: model.BlockText, Text: OpencodeCompactionRequest})
			o.request, o.tail, o.auto, o.pending = len(o.t.Messages), p.TailStartID, p.Auto, true
		case "subtask":
			m.Blocks = append(m.Blocks, model.Block{Type: model.BlockOther, Raw: decode.CompactJSON(e.Parts[i])})
		default:
			model.CountSkipped(o.t, "opencode part "+p.Type)
		}
	}
	if len(m.Blocks) == 0 {
		model.CountSkipped(o.t, "opencode user message with nothing sent")
		return nil
	}
	o.clearedBefore(created, pos)
	o.t.Messages = append(o.t.Messages, m)
	return nil
}

// assistant adds an assistant message's steps: each a call and the
// results of its tool calls.
func (o *Reader) assistant(e Entry, parts []opencodePart, pos model.Pos, created time.Time) error {
	info := e.Info
	if len(o.system) == 0 && len(info.System) > 0 {
		o.system = info.System
	}
	o.clearedBefore(created, pos)
	model.AddModel(o.t, info.ModelID)
	st := &opencodeSteps{o: o, info: info, pos: pos}
	st.reset()
	st.call.Time = created
	calls, finished := o.t.Calls, false
	for _, p := range parts {
		switch p.Type {
		case "step-start":
			st.flush(nil) // a step that did not finish
		case "reasoning":
			st.startAt(p.Time.Start)
			if p.Text != "" {
				st.call.Blocks = append(st.call.Blocks, model.Block{Type: model.BlockThinking, Text: p.Text})
			}
		case "text":
			st.startAt(p.Time.Start)
			if p.Ignored {
				model.CountSkipped(o.t, "opencode part text (ignored)")
				continue
			}
			st.call.Blocks = append(st.call.Blocks, model.Block{Type: model.BlockText, Text: p.Text})
		case "tool":
			if err := st.tool(p); err != nil {
				return err
			}
		case "step-finish":
			finished = true
			var u *model.Usage
			if p.Tokens != nil {
				v := p.Tokens.usage(info.ProviderID, info.ModelID)
				u = &v
			}
			st.flush(u)
		case "file":
			raw, _ := json.Marshal(map[string]string{"type": "file", "mime": p.Mime})
			st.call.Blocks = append(st.call.Blocks, model.Block{Type: fileBlockType(p.Mime), Raw: raw})
		default:
			model.CountSkipped(o.t, "opencode part "+p.Type)
		}
	}
	var last *model.Usage
	if !finished && info.Tokens != nil && *info.Tokens != (opencodeTokens{}) {
		v := info.Tokens.usage(info.ProviderID, info.ModelID)
		last = &v
	}
	st.flush(last)
	if o.t.Calls == calls {
		model.CountSkipped(o.t, "opencode assistant message with nothing sent")
	}
	o.t.ReportedCostUSD += info.Cost
	if o.pending && opencodeSummary(info.Summary) {
		o.compacted(pos)
	}
	return nil
}

// opencodeSteps are the steps of one assistant message being read: the
// call of the step so far, and its tool calls' results.
type opencodeSteps struct {
	o             *Reader
	info          *Info
	pos           model.Pos
	call, results model.Message
}

// reset starts a step.
func (st *opencodeSteps) reset() {
	st.call = model.Message{Role: model.RoleAssistant, Model: st.info.ModelID, CallID: st.info.ID, Pos: st.pos}
	st.results = model.Message{Role: model.RoleTool, Pos: st.pos}
}

// flush ends the step, with usage u, unless it holds nothing.
func (st *opencodeSteps) flush(u *model.Usage) {
	if len(st.call.Blocks) == 0 && u == nil {
		return
	}
	t := st.o.t
	st.call.Usage = u
	t.Messages = append(t.Messages, st.call)
	t.Calls++
	if len(st.results.Blocks) > 0 {
		t.Messages = append(t.Messages, st.results)
	}
	st.reset()
}

// startAt dates the step by its first part, unless it has a date.
func (st *opencodeSteps) startAt(ms int64) {
	if st.call.Time.IsZero() && len(st.call.Blocks) == 0 && ms > 0 {
		st.call.Time = time.UnixMilli(ms).UTC()
	}
}

// tool adds a tool part: its call, and its result as its state has it.
func (st *opencodeSteps) tool(p opencodePart) error {
	o := st.o
	if p.State == nil {
		return o.s.Bad(o.t, st.pos.Line, "message %s tool part %s has no state", st.info.ID, p.CallID)
	}
	st.startAt(p.State.Time.Start)
	use := model.Block{Type: model.BlockToolUse, ID: p.CallID, Name: p.Tool}
	if len(p.State.Input) > 0 && string(p.State.Input) != "null" {
		use.Input = decode.CompactJSON(p.State.Input)
	}
	st.call.Blocks = append(st.call.Blocks, use)
	res := model.Block{Type: model.BlockToolResult, ID: p.CallID}
	switch p.State.Status {
	case "completed":
		res.Text = p.State.Output
		if c := p.State.Time.Compacted; c > 0 {
			if o.cleared == nil {
				o.cleared = map[int64][]string{}
			}
			o.cleared[c] = append(o.cleared[c], p.CallID)
		}
	case "error":
		res.Text, res.IsError = p.State.Error, true
	default:
		res.Text, res.IsError = OpencodeInterrupted, true
	}
	st.results.Blocks = append(st.results.Blocks, res)
	return nil
}

// compacted records the compaction whose summary was just added.
func (o *Reader) compacted(pos model.Pos) {
	o.pending = false
	n := len(o.t.Messages)
	sum := model.Message{Role: model.RoleAssistant, Pos: pos}
	for i := n - 1; i > o.request; i-- {
		if m := &o.t.Messages[i]; m.Role == model.RoleAssistant {
			for _, b := range m.Blocks {
				if b.Type == model.BlockText {
					sum.Blocks = append(sum.Blocks, b)
				}
			}
			sum.Model, sum.Time = m.Model, m.Time
			break
		}
	}
	c := model.Compaction{Index: n, Trigger: "manual", Summary: &sum, Pos: pos}
	if o.auto {
		c.Trigger = "auto"
	}
	if from, ok := o.first[o.tail]; ok && o.tail != "" && from < o.request {
		for i := from; i < o.request; i++ {
			c.Kept = append(c.Kept, i)
		}
	}
	o.t.Compactions = append(o.t.Compactions, c)
}

// fileBlockType is the block an attached file is: an image, or other.
func fileBlockType(mime string) model.BlockType {
	if strings.HasPrefix(mime, "image/") {
		return model.BlockImage
	}
	return model.BlockOther
}

// opencodeSummary reports whether an assistant message's summary field
// marks it a compaction's summary (true; a user message's is an object).
func opencodeSummary(raw json.RawMessage) bool { return string(raw) == "true" }

// clearedBefore records the clearings of tool outputs that happened
// before a message recorded at created.
func (o *Reader) clearedBefore(created time.Time, pos model.Pos) {
	if len(o.cleared) == 0 || created.IsZero() {
		return
	}
	ms := created.UnixMilli()
	var at []int64
	for c := range o.cleared {
		if c <= ms {
			at = append(at, c)
		}
	}
	slices.Sort(at)
	for _, c := range at {
		o.t.Clearings = append(o.t.Clearings, model.Clearing{Index: len(o.t.Messages), ToolIDs: o.cleared[c], Pos: pos})
		delete(o.cleared, c)
	}
}

// Finish places the recorded system prompt first.
func (o *Reader) Finish() {
	t := o.t
	if len(o.system) == 0 {
		return
	}
	sys := make([]model.Message, len(o.system))
	for i, text := range o.system {
		sys[i] = model.Message{Role: model.RoleSystem, Blocks: []model.Block{{Type: model.BlockText, Text: text}}, Pos: model.Pos{File: o.s.File, Line: o.s.DocRec.Line}}
	}
	t.Messages = append(sys, t.Messages...)
	k := len(sys)
	for i := range t.Compactions {
		t.Compactions[i].Index += k
		for j := range t.Compactions[i].Kept {
			t.Compactions[i].Kept[j] += k
		}
	}
	for i := range t.Clearings {
		t.Clearings[i].Index += k
	}
}

// usage is a step's tokens in ctxbench's terms. Output includes
// reasoning: the AI SDK's outputTokens does for OpenAI and
// OpenAI-compatible providers; Google's (Gemini) and xAI's (Grok) count
// reasoning apart, as does any step whose reasoning exceeds its output,
// and their reasoning is added.
func (k *opencodeTokens) usage(provider, modelID string) model.Usage {
	u := model.Usage{Input: k.Input, CacheRead: k.Cache.Read, CacheWrite: k.Cache.Write, Output: k.Output, Reasoning: k.Reasoning}
	if k.Reasoning > k.Output || reasoningApart(provider, modelID) {
		u.Output += k.Reasoning
	}
	return u
}

// reasoningApart reports whether the AI SDK provider behind an opencode
// provider or model counts reasoning tokens apart from output tokens.
func reasoningApart(provider, model string) bool {
	switch provider {
	case "google", "google-vertex", "xai":
		return true
	}
	model = strings.ToLower(model[strings.LastIndexByte(model, '/')+1:])
	return strings.HasPrefix(model, "gemini") || strings.HasPrefix(model, "grok")
}
