package gemini

import (
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/internal/swar"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/jsstr"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// The history as Gemini CLI holds it, measured as its code measures it:
// contents and parts, their JSON.stringify lengths (UTF-16 units) and
// estimateTokenCountSync's tokens, kept in quarter tokens so that sums are
// exact (0.25 per ASCII unit, 1.5 per other, length/4 for JSON).

// A gemPart is one part of a message's Gemini content.
type gemPart struct {
	kind  byte // 't' text, 'o' thought, 'c' functionCall, 'r' functionResponse
	block int  // the message's block
	// json is JSON.stringify(part).length; quarters is 4 ×
	// estimateTokenCountSync([part]) before flooring.
	json, quarters int
	// name and output are a functionResponse's.
	name, output string
}

// A gemMsg is a message's content as sent: thoughts stripped, the first
// functionCall given the synthetic thoughtSignature when a thought was.
type gemMsg struct {
	model    bool
	parts    []gemPart
	quarters int
}

// thoughtSignature is what stripThoughts adds to the first functionCall:
// ,"thoughtSignature":"skip_thought_signature_validator".
const thoughtSignatureJSON = len(`,"thoughtSignature":"skip_thought_signature_validator"`)

// gemView returns m's content; names gives the tool a tool_result
// answers. Empty texts are not parts (Gemini returns none).
func gemView(m *transcript.Message, names map[string]string) *gemMsg {
	g := &gemMsg{model: m.Role == transcript.RoleAssistant}
	thought := false
	for j, b := range m.Blocks {
		var p gemPart
		switch {
		case b.Type == transcript.BlockThinking && g.model:
			thought = true
			continue
		case b.Type == transcript.BlockText && b.Text != "":
			p = gemPart{kind: 't', block: j, json: len(`{"text":}`) + jsstr.Len(b.Text), quarters: textQuarters(b.Text)}
		case b.Type == transcript.BlockToolUse && g.model:
			n := len(`{"functionCall":{"id":,"name":,"args":}}`) + jsstr.Len(b.ID) + jsstr.Len(b.Name) + jsstr.JSONLen(b.Input)
			p = gemPart{kind: 'c', block: j, json: n, quarters: n}
		case b.Type == transcript.BlockToolResult && !g.model:
			p = responsePart(j, names[b.ID], b.ID, b.Text)
		default:
			continue
		}
		g.parts = append(g.parts, p)
	}
	if thought {
		for k := range g.parts {
			if g.parts[k].kind == 'c' {
				g.parts[k].json += thoughtSignatureJSON
				g.parts[k].quarters += thoughtSignatureJSON
				break
			}
		}
	}
	for _, p := range g.parts {
		g.quarters += p.quarters
	}
	return g
}

// responsePart is the functionResponse {id, name, response: {output}}.
func responsePart(block int, name, id, output string) gemPart {
	out := jsstr.Len(output)
	return gemPart{kind: 'r', block: block, name: name, output: output,
		json:     len(`{"functionResponse":{"id":,"name":,"response":{"output":}}}`) + jsstr.Len(id) + jsstr.Len(name) + out,
		quarters: jsstring.Len(name) + len(`{"output":}`) + out}
}

// textQuarters is estimateTextTokens × 4: per UTF-16 unit 1 for ASCII, 6
// for any other; a text over 100,000 units its length. A word of ASCII
// is passed at once.
func textQuarters(s string) int {
	n, units := 0, 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && swar.ASCII(swar.Word(s, i)) {
			n, units, i = n+8, units+8, i+8
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:]) // as range: an invalid byte is one U+FFFD
		q, u := runeQuarters(r)
		n, units, i = n+q, units+u, i+size
	}
	if units > 100_000 {
		return units
	}
	return n
}

// runeQuarters is textQuarters of one character, and its UTF-16 units.
func runeQuarters(r rune) (quarters, units int) {
	switch {
	case r <= 127:
		return 1, 1
	case r > 0xFFFF:
		return 12, 2
	}
	return 6, 1
}

// gemTokens counts a message as estimateTokenCountSync does, in quarter
// tokens: an estimator, so that the replay's count cache holds it. Its
// value names the transcript, whose tool calls name the responses.
type gemTokens struct{ t *transcript.Transcript }

var _ estimate.Estimator = gemTokens{}

func (gemTokens) Name() string          { return "gemini-cli-quarters" }
func (gemTokens) Exact() bool           { return false }
func (gemTokens) Count(text string) int { return textQuarters(text) }
func (g gemTokens) CountMessage(m *transcript.Message) int {
	if m.Role == transcript.RoleSystem {
		return 0 // the system instruction, not history
	}
	return gemView(m, policy.ToolNames(g.t)).quarters
}
