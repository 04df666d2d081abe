// Package claudecode reads Claude Code session JSONL files and Agent SDK
// stream-json logs.
package claudecode

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// CcLine is one line of a Claude Code session or Agent SDK stream-json log.
type CcLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	Message          json.RawMessage `json:"message"`
	SessionID        string          `json:"sessionId"`
	SessionIDSDK     string          `json:"session_id"`
	UUID             string          `json:"uuid"`
	ParentUUID       string          `json:"parentUuid"`
	RequestID        string          `json:"requestId"`
	AgentID          string          `json:"agentId"`
	ParentToolUseID  string          `json:"parent_tool_use_id"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	CompactMetadata  *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
	CompactMetadataSDK *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"pre_tokens"`
	} `json:"compact_metadata"`
	MicrocompactMetadata *struct {
		Trigger          string   `json:"trigger"`
		PreTokens        int64    `json:"preTokens"`
		TokensSaved      int64    `json:"tokensSaved"`
		CompactedToolIDs []string `json:"compactedToolIds"`
	} `json:"microcompactMetadata"`
	Model        string                 `json:"model"`
	Version      string                 `json:"version"`
	VersionSDK   string                 `json:"claude_code_version"`
	Timestamp    string                 `json:"timestamp"`
	Usage        *decode.AnthropicUsage `json:"usage"`
	TotalCostUSD float64                `json:"total_cost_usd"`
	// ModelUsage is the stream-json result's totals by model, every
	// thread and every call included.
	ModelUsage map[string]ccModelUsage `json:"modelUsage"`
}

// ccModelUsage is one model's totals in a stream-json result.
type ccModelUsage struct {
	InputTokens              int64   `json:"inputTokens"`
	OutputTokens             int64   `json:"outputTokens"`
	CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
	CostUSD                  float64 `json:"costUSD"`
}

// Read reads a Claude Code session JSONL file or an Agent SDK
// stream-json log: the session's own conversation first, then, each as a
// transcript of its own, the subagents' conversations the file holds.
//
// Claude Code writes one line per content block of a response and repeats
// the call's usage on each. Lines with the same message.id are merged into
// one assistant message, one call, whatever stands between them (Claude
// Code writes a tool's result as soon as it has it, so results of a
// response's first tool call can precede the line of its second); a block
// written twice is kept once. The
// input side of the usage is counted once per message.id, and the largest
// output_tokens of its lines is kept, since output grows as the response
// streams.
//
// Subagents: a stream-json line with a parent_tool_use_id belongs to the
// subagent the Task (Agent) tool call of that id started; older Claude
// Code wrote subagents inline in the session file as sidechain lines, each
// subagent a chain of lines linked by parentUuid (or marked with its
// agentId); newer versions write each to a file of its own
// (subagents/agent-<id>.jsonl), whose lines are all sidechain lines. Each
// subagent is a transcript whose Parent is the session's id and whose ID
// is the session's, a slash, and the tool call's id or agent-<agentId>:
// two subagents are never replayed as one conversation, nor as the
// session's.
//
// Lines that are not messages (progress, file-history-snapshot, …) are
// counted by type in Skipped, system lines by "system/<subtype>". An
// assistant line of the model "<synthetic>" ([SyntheticModel]) is no
// call: Claude Code writes it itself, with all-zero usage, for an API
// error ("Credit balance is too low", isApiErrorMessage) or an
// interruption ("No response requested."); it is counted as
// "assistant/<synthetic>" in Skipped, neither a message nor a model. A
// compact_boundary and the summary message after it become a
// [Compaction]. The stream-json "result" event's usage and cost are kept
// in Reported and ReportedCostUSD, its modelUsage in ReportedByModel.
// Its output_tokens is the calls' final output, while each assistant
// event's output_tokens is only what was streamed when the event was
// written: when the result's input side equals the calls' of the whole
// file, or of one thread (Claude Code 2.1.4x counts the session's own
// thread alone), the output it counts beyond theirs is that output no
// event carried, kept as that thread's Unattributed output. modelUsage
// counts every call of every thread, some of which no line shows (Claude
// Code's own Haiku calls): what it counts for a model beyond what the
// lines and the unattributed output show is the session's
// UnattributedByModel usage of that model.
// SyntheticModel is the model Claude Code records on the assistant lines
// it writes itself, which no API call answered.
const SyntheticModel = "<synthetic>"

func Read(s *decode.Source) ([]*model.Transcript, error) {
	main := newCCBuilder()
	var subs []*ccBuilder
	byKey := map[string]*ccBuilder{}
	chain := map[string]string{} // sidechain line uuid → its subagent's key
	seenMessage, sidechainFile := false, false
	agentID := ""
	sc := CcScanner{Measure: s.Opt.Measure}
	for r := range s.Records() {
		var l CcLine
		var m CcMessage
		msg := OnePass(&sc, r.Raw, &l, &m)
		if msg == nil {
			l = CcLine{}
			ok, err := s.Decode(main.t, r, &l)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		if main.t.ID == "" {
			main.t.ID = l.SessionID + l.SessionIDSDK
		}
		if main.t.AgentVersion == "" {
			main.t.AgentVersion = l.Version + l.VersionSDK
		}
		if l.Type == "user" || l.Type == "assistant" {
			if !seenMessage {
				seenMessage, sidechainFile = true, l.IsSidechain
			}
			if sidechainFile && agentID == "" {
				agentID = l.AgentID
			}
		}
		// The transcript the line belongs to.
		b := main
		if key := subagentKey(&l, sidechainFile, chain); key != "" {
			if b = byKey[key]; b == nil {
				b = newCCBuilder()
				b.t.Subagent = key
				b.t.AgentVersion = main.t.AgentVersion
				byKey[key] = b
				subs = append(subs, b)
			}
		}
		if err := b.line(s, r, &l, msg); err != nil {
			return nil, err
		}
	}
	t := main.t
	if t.ID == "" {
		t.ID = s.NameID()
	}
	if sidechainFile {
		// A subagent's own file: its session is the parent.
		t.Parent, t.Subagent = t.ID, "agent-"+agentID
		if agentID == "" {
			t.Subagent = "agent-" + decode.BaseID(s.File)
		}
		t.ID += "/" + t.Subagent
	}
	out := []*model.Transcript{t}
	for _, b := range subs {
		b.t.Parent = t.ID
		b.t.ID = t.ID + "/" + b.t.Subagent
		out = append(out, b.t)
	}
	for _, x := range out {
		x.Measured = s.Opt.Measure
		orderEarlyResults(x)
	}
	unstreamedOutput(t, out)
	beyondLines(t, main.modelUsage, out)
	return out, nil
}

// subagentKey returns the key of the subagent line l belongs to, or "" for
// the session's own lines: the stream-json parent_tool_use_id, or, for an
// inline sidechain line of a session file, agent-<agentId>, else the
// chain of parentUuid links it continues (recorded in chain).
func subagentKey(l *CcLine, sidechainFile bool, chain map[string]string) string {
	if l.ParentToolUseID != "" {
		return l.ParentToolUseID
	}
	if !l.IsSidechain || sidechainFile {
		return ""
	}
	key := chain[l.ParentUUID]
	switch {
	case l.AgentID != "":
		key = "agent-" + l.AgentID
	case key == "":
		key = "sidechain-" + strconv.Itoa(len(chain)+1)
		if l.UUID != "" {
			key = "sidechain-" + l.UUID
		}
	}
	if l.UUID != "" {
		chain[l.UUID] = key
	}
	return key
}

// unstreamedOutput attributes the output the stream-json result counts
// beyond the calls' events (see [Read]) to the calls whose
// input side is the result's: the whole file's, else one thread's.
func unstreamedOutput(t *model.Transcript, all []*model.Transcript) {
	rep := t.Reported
	if rep == nil {
		return
	}
	covers := func(calls model.Usage) bool {
		return calls.Input == rep.Input && calls.CacheRead == rep.CacheRead && calls.CacheWrite == rep.CacheWrite && rep.Output > calls.Output
	}
	to, calls := t, model.Usage{}
	for _, x := range all {
		calls.Add(model.CallUsage(x))
	}
	for i := 0; !covers(calls) && i < len(all); i++ {
		to, calls = all[i], model.CallUsage(all[i])
	}
	if !covers(calls) {
		return
	}
	if to.Unattributed == nil {
		to.Unattributed = &model.Usage{}
	}
	to.Unattributed.Output += rep.Output - calls.Output
}

// beyondLines keeps the stream-json result's modelUsage, reported, in
// t.ReportedByModel, and adds to t.UnattributedByModel what it counts
// for each model beyond the lines of all (the file's transcripts) and
// their unattributed usage, which is of each transcript's first model.
func beyondLines(t *model.Transcript, reported map[string]ccModelUsage, all []*model.Transcript) {
	names := slices.Sorted(maps.Keys(reported))
	shown := map[string]model.Usage{}
	for _, x := range all {
		for i := range x.Messages {
			if m := &x.Messages[i]; m.Usage != nil {
				u := shown[m.Model]
				u.Add(*m.Usage)
				shown[m.Model] = u
			}
		}
		if x.Unattributed != nil && len(x.Models) > 0 {
			u := shown[x.Models[0]]
			u.Add(*x.Unattributed)
			shown[x.Models[0]] = u
		}
	}
	for _, name := range names {
		r := reported[name]
		rep := model.Usage{Input: r.InputTokens, CacheRead: r.CacheReadInputTokens, CacheWrite: r.CacheCreationInputTokens, Output: r.OutputTokens}
		t.ReportedByModel = append(t.ReportedByModel, model.ModelUsage{Model: name, Usage: rep, CostUSD: r.CostUSD})
		s := shown[name]
		beyond := model.Usage{Input: max(0, rep.Input-s.Input), CacheRead: max(0, rep.CacheRead-s.CacheRead),
			CacheWrite: max(0, rep.CacheWrite-s.CacheWrite), Output: max(0, rep.Output-s.Output)}
		if !beyond.IsZero() {
			t.UnattributedByModel = append(t.UnattributedByModel, model.ModelUsage{Model: name, Usage: beyond})
		}
	}
}

// A ccBuilder builds one transcript of a Claude Code file.
type ccBuilder struct {
	t          *model.Transcript
	pending    int                     // index in t.Compactions of a boundary still waiting for its summary
	byID       map[string]int          // message.id → the message that carries its usage
	modelUsage map[string]ccModelUsage // the stream-json result's
}

func newCCBuilder() *ccBuilder {
	return &ccBuilder{t: &model.Transcript{}, pending: -1, byID: map[string]int{}}
}

// OnePass decodes a line with sc into l and m, and returns m (empty when
// the line has no message). It returns nil when the line is to be read
// in stages: sc gave up on it (it is not valid UTF-8, among
// others), or it is a user or assistant line without a message (an error
// the staged decoders report), or the tests read everything with
// encoding/json alone.
func OnePass(sc *CcScanner, raw []byte, l *CcLine, m *CcMessage) *CcMessage {
	if decode.StdDecode.Load() {
		return nil
	}
	hasMsg, ok := sc.line(raw, l, m)
	if !ok || !hasMsg && (l.Type == "user" || l.Type == "assistant") {
		return nil
	}
	return m
}

// line adds line l to the transcript; m is its message when the line was
// decoded in one pass, nil when it is to be decoded from l.Message.
func (b *ccBuilder) line(s *decode.Source, r decode.Record, l *CcLine, m *CcMessage) error {
	t := b.t
	pos := model.Pos{File: s.File, Line: r.Line}
	switch l.Type {
	case "user", "assistant":
		if m == nil {
			var err error
			if m, err = b.message(s, r, l); m == nil {
				return err
			}
		}
		if l.Type == "assistant" && m.Model == SyntheticModel {
			model.CountSkipped(t, "assistant/"+SyntheticModel)
			return nil
		}
		msg := model.Message{Role: model.Role(l.Type), Blocks: m.Blocks, Pos: pos, Time: model.ParseTime(l.Timestamp)}
		if l.Type == "user" {
			b.user(msg, l.IsCompactSummary, pos)
			return nil
		}
		msg.Model, msg.CallID, msg.RequestID = m.Model, m.ID, l.RequestID
		b.assistant(msg, m.Usage.Usage())
	case "system":
		switch l.Subtype {
		case "compact_boundary":
			c := model.Compaction{Index: len(t.Messages), Pos: pos}
			if md := l.CompactMetadata; md != nil {
				c.Trigger, c.PreTokens = md.Trigger, md.PreTokens
			} else if md := l.CompactMetadataSDK; md != nil {
				c.Trigger, c.PreTokens = md.Trigger, md.PreTokens
			}
			t.Compactions = append(t.Compactions, c)
			b.pending = len(t.Compactions) - 1
		case "microcompact_boundary":
			c := model.Clearing{Index: len(t.Messages), Pos: pos}
			if md := l.MicrocompactMetadata; md != nil {
				c.Trigger, c.PreTokens, c.TokensSaved, c.ToolIDs = md.Trigger, md.PreTokens, md.TokensSaved, md.CompactedToolIDs
			}
			t.Clearings = append(t.Clearings, c)
		case "init":
			model.AddModel(t, l.Model)
		case "":
			model.CountSkipped(t, "system")
		default:
			model.CountSkipped(t, "system/"+l.Subtype)
		}
	case "result":
		rep := l.Usage.Usage()
		if rep != nil {
			if err := rep.Check(decode.MaxUsage); err != nil {
				return s.Bad(t, r.Line, "result usage: %v", err)
			}
		}
		t.Reported = rep
		t.ReportedCostUSD = l.TotalCostUSD
		b.modelUsage = l.ModelUsage
	case "":
		return s.Bad(t, r.Line, "record has no type")
	default:
		model.CountSkipped(t, l.Type)
	}
	return nil
}

// message decodes the message of line l, read in stages: nil, with the
// error or nil when the line is skipped, when it is malformed.
func (b *ccBuilder) message(s *decode.Source, r decode.Record, l *CcLine) (*CcMessage, error) {
	t := b.t
	if len(l.Message) == 0 {
		return nil, s.Bad(t, r.Line, "%s line has no message", l.Type)
	}
	var m decode.AnthropicMessage
	if ok, err := s.Decode(t, decode.Record{Line: r.Line, Raw: l.Message, Nested: true}, &m); !ok {
		return nil, err
	}
	blocks, err := decode.AnthropicContent(m.Content)
	if err != nil {
		return nil, s.Bad(t, r.Line, "message %v", err)
	}
	return &CcMessage{ID: m.ID, Model: m.Model, Usage: m.Usage, Blocks: blocks}, nil
}

// user adds a user message, or the summary of a compaction.
func (b *ccBuilder) user(msg model.Message, compactSummary bool, pos model.Pos) {
	t := b.t
	if compactSummary || (b.pending >= 0 && msg.Count(model.BlockToolResult) == 0) {
		if b.pending < 0 {
			t.Compactions = append(t.Compactions, model.Compaction{Index: len(t.Messages), Pos: pos})
			b.pending = len(t.Compactions) - 1
		}
		t.Compactions[b.pending].Summary = &msg
		b.pending = -1
		return
	}
	t.Messages = append(t.Messages, msg)
}

// assistant adds an assistant line: a new call, or another block of the
// call of the same message.id.
func (b *ccBuilder) assistant(msg model.Message, u *model.Usage) {
	t := b.t
	model.AddModel(t, msg.Model)
	if i, seen := b.byID[msg.CallID]; seen && msg.CallID != "" {
		if prev := t.Messages[i].Usage; u != nil && prev != nil && u.Output > prev.Output {
			prev.Output = u.Output
		} else if u != nil && prev == nil {
			t.Messages[i].Usage = u
		}
		// The blocks join the response's message, whatever came between
		// (tool results, a prompt queued while it streamed, a copy of the
		// line): one response is one call, one assistant message.
		for _, bl := range msg.Blocks {
			if !slices.ContainsFunc(t.Messages[i].Blocks, func(x model.Block) bool { return decode.SameBlock(x, bl) }) {
				t.Messages[i].Blocks = append(t.Messages[i].Blocks, bl)
			}
		}
		return
	}
	b.byID[msg.CallID] = len(t.Messages)
	t.Calls++
	msg.Usage = u
	t.Messages = append(t.Messages, msg)
}
