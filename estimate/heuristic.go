package estimate

import (
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/approx"
	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/transcript"
)

// jsonStringLen returns the UTF-16 length of JSON.stringify(s): the quotes,
// two-character escapes for " \ and \b \f \n \r \t, six for the other
// control characters, everything else as it is.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20:
			n += 6
		case c < utf8.RuneSelf:
			n++
		case c >= 0xF0: // the first byte of a 4-byte sequence: a surrogate pair
			n += 2
		case c >= 0xC0: // the first byte of a 2- or 3-byte sequence
			n++
		}
	}
	return n
}

// chars4 is the seeds' estimate: characters / 4, rounded up, per message.
type chars4 struct{ overheadRule Overhead }

func (*chars4) Name() string         { return "chars4" }
func (*chars4) Exact() bool          { return false }
func (c *chars4) Overhead() Overhead { return c.overheadRule }

func (*chars4) Count(text string) int { return approx.Tokens(jsstring.Len(text)) }

// CountMessage counts a message as the seeds' TypeScript does: its content
// string's length if the message is a single text, else the length of
// JSON.stringify of its content blocks, divided by 4 and rounded up.
func (c *chars4) CountMessage(m *transcript.Message) int {
	var n int
	if len(m.Blocks) == 1 && m.Blocks[0].Type == transcript.BlockText {
		n = jsstring.Len(m.Blocks[0].Text)
	} else {
		_, n = transcript.ContentJSONSize(m.Blocks)
	}
	return approx.Tokens(n) + overhead(c.overheadRule, m, c.Count)
}

// geminiRates are the Gemini CLI heuristic's tokens per ASCII and per
// other character, by version (packages/core/src/utils/tokenCalculation.ts).
var geminiRates = map[string][2]float64{
	"gemini-2025-11": {0.25, 1.3},
	"gemini-2026-05": {0.33, 1.5},
	"gemini":         {0.25, 1.5},
}

// Gemini CLI's fixed estimates and its switch to length/4 for long text.
const (
	geminiImageTokens   = 3000
	geminiMaxHeuristic  = 100_000 // UTF-16 units
	geminiFunctionCallN = len(`{"functionCall":{"name":`) + len(`,"args":`) + len(`}}`)
	geminiOutputN       = len(`{"output":`) + len(`}`)
)

// geminiHeuristic is Gemini CLI's estimate.
type geminiHeuristic struct {
	name         string
	rates        [2]float64
	overheadRule Overhead
}

func (g *geminiHeuristic) Name() string       { return g.name }
func (*geminiHeuristic) Exact() bool          { return false }
func (g *geminiHeuristic) Overhead() Overhead { return g.overheadRule }

// text returns the (unfloored) estimate of a text part: per code point,
// the ASCII rate or the other rate, summed in order as the source does;
// above 100,000 UTF-16 units, length/4.
func (g *geminiHeuristic) text(s string) float64 {
	if len(s) > geminiMaxHeuristic && jsstring.Len(s) > geminiMaxHeuristic {
		return float64(jsstring.Len(s)) / 4
	}
	var t float64
	for _, r := range jsstring.ReplaceInvalid(s) {
		if r <= 127 {
			t += g.rates[0]
		} else {
			t += g.rates[1]
		}
	}
	return t
}

func (g *geminiHeuristic) Count(text string) int { return int(g.text(text)) }

// CountMessage sums the parts as Gemini CLI's estimateTokenCountSync does
// and floors the sum: text and thinking by the character rule; a tool call
// as JSON.stringify of its functionCall part / 4; a tool result as
// JSON.stringify of its response {"output": …} / 4; an image 3,000;
// anything else its JSON / 4.
func (g *geminiHeuristic) CountMessage(m *transcript.Message) int {
	var t float64
	for _, b := range m.Blocks {
		switch b.Type {
		case transcript.BlockText, transcript.BlockThinking:
			t += g.text(b.Text)
		case transcript.BlockToolUse:
			args := len(b.Input)
			if args == 0 {
				args = 2 // {}
			} else {
				args = jsstring.Len(string(b.Input))
			}
			t += float64(geminiFunctionCallN+jsonStringLen(b.Name)+args) / 4
		case transcript.BlockToolResult:
			if len(b.Raw) > 0 {
				t += float64(geminiOutputN+jsstring.Len(string(b.Raw))) / 4
			} else {
				t += float64(geminiOutputN+jsonStringLen(b.Text)) / 4
			}
		case transcript.BlockImage:
			t += geminiImageTokens
		default:
			t += float64(jsstring.Len(string(b.Raw))) / 4
		}
	}
	return int(t) + overhead(g.overheadRule, m, g.Count)
}
