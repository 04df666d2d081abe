// Package model is the normalized conversation every reader makes
// (Transcript, Message, Block, Usage, Format, Image, Stats): the types
// package transcript re-exports, below the readers so that each reader's
// room can make them without importing transcript.
package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ctxbench/ctxbench/internal/swar"
)

// A Role is who speaks a message. The four known roles are the constants
// below; a role a recorded format uses that ctxbench does not know (such as
// mini-swe-agent's "exit") is kept verbatim rather than dropped.
type Role string

// The known roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Known reports whether r is one of the four known roles.
func (r Role) Known() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// A BlockType says what a [Block] holds.
type BlockType string

// The block types.
const (
	BlockText       BlockType = "text"
	BlockThinking   BlockType = "thinking"
	BlockToolUse    BlockType = "tool_use"
	BlockToolResult BlockType = "tool_result"
	BlockImage      BlockType = "image"
	// BlockOther holds anything else (server-side tool calls, documents,
	// unknown block types) with its raw JSON, so nothing is lost.
	BlockOther BlockType = "other"
)

// A Block is one piece of a message's content.
type Block struct {
	Type BlockType `json:"type"`
	// Text is the text of a text, thinking or tool_result block.
	Text string `json:"text,omitempty"`
	// ID is a tool_use block's call id, or the id of the tool_use a
	// tool_result block answers.
	ID string `json:"id,omitempty"`
	// Name is a tool_use block's tool name.
	Name string `json:"name,omitempty"`
	// Input is a tool_use block's input as compact JSON.
	Input json.RawMessage `json:"input,omitempty"`
	// IsError marks a tool_result that reports a failure.
	IsError bool `json:"is_error,omitempty"`
	// Raw is the original JSON of image and other blocks, and of tool_result
	// content that is not plain text.
	Raw json.RawMessage `json:"raw,omitempty"`
	// Measured is, when the block was read with [Options.Measure], the
	// characters of its Text, Input and Raw, which were not kept.
	Measured int `json:"-"`
	// Images are the images the block holds: an image block's one, the
	// image parts of a tool result's content. Their data is in Raw (or
	// Measured) but not in [Message.Chars].
	Images []Image `json:"-"`
}

// Usage is the token usage an API reported for one call, or a sum of such.
// The same meaning holds for every format:
//
//   - Input is the uncached prompt tokens;
//   - CacheRead is the prompt tokens read from the provider's prompt cache;
//   - CacheWrite is the prompt tokens written to it;
//   - Output is the generated tokens, reasoning included.
//
// The whole prompt is Input + CacheRead + CacheWrite ([Usage.Prompt]).
type Usage struct {
	Input      int64 `json:"input"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Output     int64 `json:"output"`
	// CacheWrite1h is the part of CacheWrite written with the one-hour
	// lifetime (Anthropic), which is priced higher than the five-minute one.
	CacheWrite1h int64 `json:"cache_write_1h,omitempty"`
	// Reasoning is the part of Output spent on reasoning, where reported.
	Reasoning int64 `json:"reasoning,omitempty"`
}

// Prompt returns the whole prompt size: Input + CacheRead + CacheWrite.
func (u Usage) Prompt() int64 { return u.Input + u.CacheRead + u.CacheWrite }

// Add adds v to u field by field.
func (u *Usage) Add(v Usage) {
	u.Input += v.Input
	u.CacheRead += v.CacheRead
	u.CacheWrite += v.CacheWrite
	u.Output += v.Output
	u.CacheWrite1h += v.CacheWrite1h
	u.Reasoning += v.Reasoning
}

// Check returns an error naming the first field of u that is negative
// or over max: "input tokens -5, want 0 to 1099511627776".
func (u Usage) Check(max int64) error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"input", u.Input}, {"cache read", u.CacheRead}, {"cache write", u.CacheWrite}, {"output", u.Output},
		{"cache write 1h", u.CacheWrite1h}, {"reasoning", u.Reasoning}} {
		if f.v < 0 || f.v > max {
			return fmt.Errorf("%s tokens %d, want 0 to %d", f.name, f.v, max)
		}
	}
	return nil
}

// IsZero reports whether every field of u is zero.
func (u Usage) IsZero() bool { return u == Usage{} }

// A Pos is where a record stands in its source: a file name and a 1-based
// line number (0 when unknown).
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// A Message is one message of the normalized conversation.
type Message struct {
	Role   Role    `json:"role"`
	Blocks []Block `json:"blocks"`
	// Usage is what the API reported for the call that produced this
	// assistant message; nil when the transcript does not record it.
	Usage *Usage `json:"usage,omitempty"`
	// Model is the model that produced an assistant message, where recorded.
	Model string `json:"model,omitempty"`
	// CallID is the provider's id for the response (Claude's message.id,
	// an OpenAI completion id), where recorded.
	CallID string `json:"call_id,omitempty"`
	// RequestID is the API request's id (Claude Code's requestId), where
	// recorded: with CallID, it names a call across files, as a resumed
	// session's file copies the calls before it.
	RequestID string `json:"request_id,omitempty"`
	// Name is the OpenAI chat "name" field, where present.
	Name string `json:"name,omitempty"`
	// Pos is the record the message starts at.
	Pos Pos `json:"pos"`
	// Time is when the message was recorded, where the format says (zero
	// otherwise). The cost model's prompt-cache simulation uses it.
	Time time.Time `json:"time,omitzero"`
}

// ParseTime reads a recorded timestamp: RFC 3339, or the same without a
// zone (read as UTC, as OpenHands writes them). Unreadable gives zero.
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC()
	}
	if t, err := time.Parse("2006-01-02T15:04:05.999999999", s); err == nil {
		return t
	}
	return time.Time{}
}

// Text returns the concatenated text of the message's text blocks.
func (m *Message) Text() string {
	var s string
	for _, b := range m.Blocks {
		if b.Type == BlockText {
			s += b.Text
		}
	}
	return s
}

// Count returns how many blocks of type t the message has.
func (m *Message) Count(t BlockType) int {
	n := 0
	for _, b := range m.Blocks {
		if b.Type == t {
			n++
		}
	}
	return n
}

// Chars returns the number of characters (Unicode code points) of the
// message's content: block texts, tool names, tool inputs and raw blocks,
// less the data of the images they hold ([Block.Images]).
func (m *Message) Chars() int {
	n := 0
	for _, b := range m.Blocks {
		n += max(0, swar.RuneCount(b.Text)+swar.RuneCount(b.Name)+swar.RuneCount(b.Input)+swar.RuneCount(b.Raw)+b.Measured-ImageChars(b.Images))
	}
	return n
}

// A Compaction is a compaction the agent itself recorded (Claude Code's
// compact_boundary, Codex's compacted item). It is a marker, not history:
// the summary that replaced the history is kept here, not in
// [Transcript.Messages].
type Compaction struct {
	// Index is the number of messages of [Transcript.Messages] that came
	// before the compaction: from then on the agent sent Summary followed
	// by Messages[Index:].
	Index int `json:"index"`
	// Trigger is "auto" or "manual" where recorded.
	Trigger string `json:"trigger,omitempty"`
	// PreTokens is the context size the agent measured before compacting.
	PreTokens int64 `json:"pre_tokens,omitempty"`
	// Summary is the message that replaced the history; nil if the
	// transcript did not record it.
	Summary *Message `json:"summary,omitempty"`
	// Kept are the indexes, in order, of the messages before Index the
	// agent kept sending after Summary (opencode's tail): from then on it
	// sent Summary, Messages[Kept...], then Messages[Index:].
	Kept []int `json:"kept,omitempty"`
	Pos  Pos   `json:"pos"`
}

// A Clearing is a clearing of old tool results the agent recorded
// (Claude Code's microcompact_boundary, which its session files hold
// from 2.1.8 on and its Agent SDK stream-json does not pass on): a
// marker, not history. From then on the agent sent the results of the
// tool uses ToolIDs cleared.
type Clearing struct {
	// Index is the number of messages of [Transcript.Messages] that came
	// before the clearing.
	Index int `json:"index"`
	// Trigger is "auto" or "manual"; PreTokens the tool results' tokens
	// before, and TokensSaved what clearing them saved, as the agent
	// estimated them.
	Trigger     string   `json:"trigger,omitempty"`
	PreTokens   int64    `json:"pre_tokens,omitempty"`
	TokensSaved int64    `json:"tokens_saved,omitempty"`
	ToolIDs     []string `json:"tool_ids,omitempty"`
	Pos         Pos      `json:"pos"`
}

// A Rollback is the user's undoing of the last turns (Codex's
// thread_rolled_back): a marker, not history. From then on the agent
// sent its history without Messages[From:Index]; the calls among them
// were made and billed.
type Rollback struct {
	// Index is the number of messages of [Transcript.Messages] that came
	// before the rollback, From the first message it dropped.
	Index int `json:"index"`
	From  int `json:"from"`
	// Turns is how many user turns the agent was asked to drop.
	Turns int `json:"turns"`
	Pos   Pos `json:"pos"`
}

// Drops reports whether the rollback drops message i.
func (rb Rollback) Drops(i int) bool { return rb.From <= i && i < rb.Index }

// A Transcript is one recorded conversation, normalized.
type Transcript struct {
	// ID is the session id the format records, or one made from the file
	// name (and line, for files with a conversation per line).
	ID     string `json:"id"`
	File   string `json:"file"`
	Format Format `json:"format"`
	// Parent is, for a subagent's conversation, the id of the session
	// that started it, and Subagent names the subagent within it (the
	// tool call's id, or agent-<id>); both are empty for a session's own.
	Parent   string `json:"parent,omitempty"`
	Subagent string `json:"subagent,omitempty"`
	// AgentVersion is the version of the agent that recorded the
	// transcript, where the format says (Claude Code's "version" and the
	// Agent SDK's claude_code_version, first seen).
	AgentVersion string `json:"agent_version,omitempty"`
	// Models lists the models seen, in first-seen order.
	Models      []string     `json:"models,omitempty"`
	Messages    []Message    `json:"messages"`
	Compactions []Compaction `json:"compactions,omitempty"`
	// Clearings are the clearings of old tool results the agent recorded.
	Clearings []Clearing `json:"clearings,omitempty"`
	// Rollbacks are the turns the user undid, in order.
	Rollbacks []Rollback `json:"rollbacks,omitempty"`
	// SentTruncated counts the tool outputs the agent cut before sending
	// them (Codex's truncation_policy): their text here is what was
	// sent, not what the file keeps.
	SentTruncated int `json:"sent_truncated,omitempty"`
	// Measured says the transcript was read with [Options.Measure]: its
	// blocks keep their sizes ([Block.Measured]) but not their text,
	// input or raw JSON, so it can be inspected and billed, not
	// replayed or counted with a tokenizer (package replay refuses it).
	Measured bool `json:"-"`
	// Calls is the number of recorded API calls, counted as the format
	// records them (see the package documentation).
	Calls int `json:"calls"`
	// Skipped counts the records that carry no message, by type.
	Skipped map[string]int `json:"skipped,omitempty"`
	// Bad lists the records skipped as malformed in lenient mode, the
	// first [MaxBadListed] of them; BadRecords counts them all.
	Bad        []*SyntaxError `json:"bad,omitempty"`
	BadRecords int            `json:"bad_records,omitempty"`
	// InvalidUTF8 counts the records holding invalid UTF-8, which was read
	// as U+FFFD.
	InvalidUTF8 int `json:"invalid_utf8,omitempty"`
	// Unattributed is usage recorded for a group of calls that no single
	// message can claim (codex exec's per-turn usage).
	Unattributed *Usage `json:"unattributed,omitempty"`
	// Reported is the session total the agent itself reported (the Agent SDK
	// stream-json "result" event), kept for cross-checks; it is not added to
	// any message. ReportedCostUSD is the cost the agent reported (that
	// event, or mini-swe-agent's model_stats.instance_cost).
	Reported        *Usage  `json:"reported,omitempty"`
	ReportedCostUSD float64 `json:"reported_cost_usd,omitempty"`
	// ReportedByModel is the agent's own totals by model, with the cost
	// it computed for each (the stream-json result's modelUsage), kept
	// for cross-checks.
	ReportedByModel []ModelUsage `json:"reported_by_model,omitempty"`
	// UnattributedByModel is usage the agent reported for a model beyond
	// what the transcript's calls and its Unattributed usage record:
	// calls no record shows (Claude Code's own Haiku calls), named by
	// their model and priced at it.
	UnattributedByModel []ModelUsage `json:"unattributed_by_model,omitempty"`
}

// A ModelUsage is usage recorded for one model as a whole, not per call.
type ModelUsage struct {
	Model string `json:"model"`
	Usage Usage  `json:"usage"`
	// CostUSD is what the agent computed the usage cost, where it did.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// CallTimes returns the time of each call, its assistant message's (zero
// where none is recorded), in call order.
func (t *Transcript) CallTimes() []time.Time {
	var out []time.Time
	for i := range t.Messages {
		if t.Messages[i].Role == RoleAssistant {
			out = append(out, t.Messages[i].Time)
		}
	}
	return out
}

// Usage returns the usage of the transcript's own calls: every message's
// plus the unattributed usage. The usage of calls no record shows
// (UnattributedByModel), which the bill adds, and the agent's own
// reported total are not included.
func (t *Transcript) Usage() Usage {
	u := CallUsage(t)
	if t.Unattributed != nil {
		u.Add(*t.Unattributed)
	}
	return u
}

// CountSkipped counts one record of kind that t's reader skipped.
func CountSkipped(t *Transcript, kind string) {
	if t.Skipped == nil {
		t.Skipped = make(map[string]int)
	}
	t.Skipped[kind]++
}

// AddModel adds m, when not empty, to t.Models unless listed there.
func AddModel(t *Transcript, m string) {
	if m == "" {
		return
	}
	for _, x := range t.Models {
		if x == m {
			return
		}
	}
	t.Models = append(t.Models, m)
}

// A SyntaxError is a malformed record: the file, the 1-based line and what
// is wrong with it.
type SyntaxError struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Msg  string `json:"error"`
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s: %s", Pos{e.File, e.Line}, e.Msg)
}

// CallUsage returns the usage t's calls record.
func CallUsage(t *Transcript) Usage {
	var u Usage
	for i := range t.Messages {
		if m := t.Messages[i].Usage; m != nil {
			u.Add(*m)
		}
	}
	return u
}
