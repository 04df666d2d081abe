package transcript

import (
	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// The model every reader makes, defined in transcript/internal/model,
// where `go doc github.com/ctxbench/ctxbench/transcript/internal/model
// TYPE` shows each type's fields.
type (
	// A Role is who speaks a message. The four known roles are the constants
	// below; a role a recorded format uses that ctxbench does not know (such as
	// mini-swe-agent's "exit") is kept verbatim rather than dropped.
	Role = model.Role

	// A BlockType says what a [Block] holds.
	BlockType = model.BlockType

	// A Block is one piece of a message's content.
	Block = model.Block

	// Usage is the token usage an API reported for one call, or a sum of such.
	// The same meaning holds for every format:
	//
	//   - Input is the uncached prompt tokens;
	//   - CacheRead is the prompt tokens read from the provider's prompt cache;
	//   - CacheWrite is the prompt tokens written to it;
	//   - Output is the generated tokens, reasoning included.
	//
	// The whole prompt is Input + CacheRead + CacheWrite ([Usage.Prompt]).
	Usage = model.Usage

	// A Message is one message of the normalized conversation.
	Message = model.Message

	// A Compaction is a compaction the agent itself recorded (Claude Code's
	// compact_boundary, Codex's compacted item). It is a marker, not history:
	// the summary that replaced the history is kept here, not in
	// [Transcript.Messages].
	Compaction = model.Compaction

	// A Clearing is a clearing of old tool results the agent recorded
	// (Claude Code's microcompact_boundary, which its session files hold
	// from 2.1.8 on and its Agent SDK stream-json does not pass on): a
	// marker, not history. From then on the agent sent the results of the
	// tool uses ToolIDs cleared.
	Clearing = model.Clearing

	// A Rollback is the user's undoing of the last turns (Codex's
	// thread_rolled_back): a marker, not history. From then on the agent
	// sent its history without Messages[From:Index]; the calls among them
	// were made and billed.
	Rollback = model.Rollback

	// A Transcript is one recorded conversation, normalized.
	Transcript = model.Transcript

	// A SyntaxError is a malformed record: the file, the 1-based line and what
	// is wrong with it.
	SyntaxError = model.SyntaxError

	// An Image is a picture a block holds. Its data is not text: [Message.Chars]
	// leaves it out, and the token estimates count an image by the provider's
	// image rule, not by its characters.
	Image = model.Image

	// Stats summarizes a transcript: what `ctxbench inspect` prints.
	Stats = model.Stats

	// A Format names a recorded transcript format.
	Format = model.Format
)

// The known roles.
const (
	RoleSystem    Role = model.RoleSystem
	RoleUser      Role = model.RoleUser
	RoleAssistant Role = model.RoleAssistant
	RoleTool      Role = model.RoleTool
)

// The block types.
const (
	BlockText       BlockType = model.BlockText
	BlockThinking   BlockType = model.BlockThinking
	BlockToolUse    BlockType = model.BlockToolUse
	BlockToolResult BlockType = model.BlockToolResult
	BlockImage      BlockType = model.BlockImage
	BlockOther      BlockType = model.BlockOther
)

// The formats ctxbench reads.
const (
	FormatClaudeCode Format = model.FormatClaudeCode
	FormatCodex      Format = model.FormatCodex
	FormatOpenAIChat Format = model.FormatOpenAIChat
	FormatAnthropic  Format = model.FormatAnthropic
	FormatGeminiCLI  Format = model.FormatGeminiCLI
	FormatOpenHands  Format = model.FormatOpenHands
	FormatOTel       Format = model.FormatOTel
	FormatATIF       Format = model.FormatATIF
	FormatLangfuse   Format = model.FormatLangfuse
	FormatCopilot    Format = model.FormatCopilot
	FormatOpencode   Format = model.FormatOpencode
)

// ContentJSONSize returns the length of ContentJSON(blocks) in bytes and
// in UTF-16 code units (as JavaScript's String.length counts them),
// without making it:
// the seeds' measures of structured content (bytes / 4, JSON.stringify's
// length) take nothing else from it, and encoding every message to JSON
// was most of their cost. It follows encoding/json's output exactly
// (FuzzContentJSONSize): strings escaped as it escapes them, raw JSON
// compacted, and 0, 0 where ContentJSON fails (a raw part that is not
// valid JSON).
func ContentJSONSize(blocks []Block) (size, units int) { return model.ContentJSONSize(blocks) }

// Options controls reading (`go doc
// github.com/ctxbench/ctxbench/transcript/internal/decode Options` shows
// its fields: Format, Lenient, MaxBytes, Measure, Select).
type Options = decode.Options

// A NotTranscriptError says that an input holds no transcript ctxbench can
// read: it is empty, binary, or in no known format. Directory walks list
// such files as skipped; a file named explicitly is an error.
type NotTranscriptError = decode.NotTranscriptError

const (
	// DefaultMaxBytes bounds how much of one input is read (1 GiB). A
	// single line may be as long as the input.
	DefaultMaxBytes = decode.DefaultMaxBytes
	// MaxUsage is the most tokens one field of one call's usage may
	// count: far beyond any API's context, and low enough that a
	// session's sums of millions of calls do not overflow.
	MaxUsage = decode.MaxUsage
	// MaxBadListed is how many malformed records a transcript lists
	// ([Transcript.Bad]); the rest are counted, not kept.
	MaxBadListed = decode.MaxBadListed
)
