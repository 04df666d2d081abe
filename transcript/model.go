package transcript

import (
	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// The model every reader makes: see each type's own documentation.
type (
	Role        = model.Role
	BlockType   = model.BlockType
	Block       = model.Block
	Usage       = model.Usage
	Pos         = model.Pos
	Message     = model.Message
	Compaction  = model.Compaction
	Clearing    = model.Clearing
	Rollback    = model.Rollback
	Transcript  = model.Transcript
	ModelUsage  = model.ModelUsage
	SyntaxError = model.SyntaxError
	Image       = model.Image
	Stats       = model.Stats
	Format      = model.Format
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

// MessageID returns the trace id of message i: "m<i>". The ids of the
// first messages are slices of one string made once, not made at every
// call: a replay makes an item, with its id, for every message of every
// run, and a sweep runs a transcript a thousand times.
func MessageID(i int) string { return model.MessageID(i) }

// ContentJSONSize returns the length of ContentJSON(blocks) in bytes and
// in UTF-16 code units (as [UTF16Len] counts them), without making it:
// the seeds' measures of structured content (bytes / 4, JSON.stringify's
// length) take nothing else from it, and encoding every message to JSON
// was most of their cost. It follows encoding/json's output exactly
// (FuzzContentJSONSize): strings escaped as it escapes them, raw JSON
// compacted, and 0, 0 where ContentJSON fails (a raw part that is not
// valid JSON).
func ContentJSONSize(blocks []Block) (size, units int) { return model.ContentJSONSize(blocks) }

// UTF16Len returns the length of s in UTF-16 code units, as JavaScript's
// String.length counts it: one per code point, two above U+FFFF (an
// invalid byte counts one).
func UTF16Len(s string) int { return model.UTF16Len(s) }

// ReplaceInvalid returns s with each maximal ill-formed subsequence of
// UTF-8 replaced by U+FFFD, as the WHATWG decoder (JavaScript's
// TextDecoder), Python's decode(errors="replace") and the Unicode
// standard's recommended practice do: a lead byte and the continuation
// bytes that can follow it so far make one U+FFFD, any other bad byte
// one. Go's conversions make one per byte ([]rune) or one per run
// (strings.ToValidUTF8); tiktoken counts the text the former decoders
// give.
func ReplaceInvalid(s string) string { return model.ReplaceInvalid(s) }

// Options controls reading: see its fields.
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
