package window

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"weak"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/swar"
	"github.com/ctxbench/ctxbench/transcript"
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
			p = gemPart{kind: 't', block: j, json: len(`{"text":}`) + jsStringLen(b.Text), quarters: textQuarters(b.Text)}
		case b.Type == transcript.BlockToolUse && g.model:
			n := len(`{"functionCall":{"id":,"name":,"args":}}`) + jsStringLen(b.ID) + jsStringLen(b.Name) + jsJSONLen(b.Input)
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
	out := jsStringLen(output)
	return gemPart{kind: 'r', block: block, name: name, output: output,
		json:     len(`{"functionResponse":{"id":,"name":,"response":{"output":}}}`) + jsStringLen(id) + jsStringLen(name) + out,
		quarters: utf16Len(name) + len(`{"output":}`) + out}
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

func utf16Len(s string) int { return transcript.UTF16Len(s) }

// jsStringLen is the length of JSON.stringify(s): quotes, the two-character
// escapes, \u00XX for the other control characters, UTF-16 units for the
// rest. A word of ASCII with none of these is passed at once.
func jsStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if i+8 <= len(s) && swar.Plain(swar.Word(s, i)) {
			n, i = n+8, i+8
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:]) // as range: an invalid byte is one U+FFFD
		n, i = n+jsRuneLen(r), i+size
	}
	return n
}

// jsRuneLen is the length of a character in a JSON.stringify string.
func jsRuneLen(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20:
		return 6
	case r > 0xFFFF:
		return 2
	}
	return 1
}

// jsJSONLen is the length of JSON.stringify(JSON.parse(raw)); empty raw
// is {} (no arguments).
func jsJSONLen(raw []byte) int {
	if len(bytes.TrimSpace(raw)) == 0 {
		return 2
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := jsValueLen(dec)
	if err != nil {
		return len(raw)
	}
	return n
}

func jsValueLen(dec *json.Decoder) (int, error) {
	tok, err := dec.Token()
	if err != nil {
		return 0, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := 2 // the brackets
		for k := 0; dec.More(); k++ {
			if k > 0 {
				n++ // comma
			}
			if v == '{' {
				key, err := dec.Token()
				if err != nil {
					return 0, err
				}
				n += jsStringLen(key.(string)) + 1 // colon
			}
			m, err := jsValueLen(dec)
			if err != nil {
				return 0, err
			}
			n += m
		}
		_, err := dec.Token()
		return n, err
	case string:
		return jsStringLen(v), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return 0, err
		}
		return len(jsNumber(f)), nil
	case bool:
		if v {
			return 4, nil
		}
		return 5, nil
	}
	return 4, nil // null
}

// jsNumber is JavaScript's Number#toString.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null" // JSON.stringify
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exps, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exps)
	n := x + 1 // the decimal point's position
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	exp := "+" + strconv.Itoa(n-1)
	if n-1 < 0 {
		exp = strconv.Itoa(n - 1)
	}
	if k == 1 {
		return sign + digits + "e" + exp
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + exp
}

// toolNames returns, for each tool call of t, the tool's name. The maps
// of the last transcripts are kept, since a replay asks for them at every
// compression, but not the transcripts: an entry names its transcript by
// a weak pointer and copies the names (which may share the transcript's
// memory), so that a transcript whose replays have ended is freed.
func toolNames(t *transcript.Transcript) map[string]string {
	key := weak.Make(t)
	namesMu.Lock()
	defer namesMu.Unlock()
	for _, e := range namesCache {
		if e.t == key {
			return e.names
		}
	}
	names := map[string]string{}
	if t != nil {
		for i := range t.Messages {
			for _, b := range t.Messages[i].Blocks {
				if b.Type == transcript.BlockToolUse {
					if _, ok := names[b.ID]; !ok {
						names[strings.Clone(b.ID)] = strings.Clone(b.Name)
					}
				}
			}
		}
	}
	// Entries of freed transcripts go first.
	namesCache = slices.DeleteFunc(namesCache, func(e namesEntry) bool { return e.t.Value() == nil })
	namesCache = append(namesCache, namesEntry{key, names})
	if len(namesCache) > 8 {
		namesCache = namesCache[1:]
	}
	return names
}

type namesEntry struct {
	t     weak.Pointer[transcript.Transcript]
	names map[string]string
}

var (
	namesMu    sync.Mutex
	namesCache []namesEntry
)

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
	return gemView(m, toolNames(g.t)).quarters
}

// sliceUTF16 returns s's UTF-16 units [from, to) as a string; a surrogate
// pair the cut splits becomes U+FFFD (one unit, as the half it stands for).
func sliceUTF16(s string, from, to int) string {
	u := utf16.Encode([]rune(s))
	from, to = max(0, min(from, len(u))), max(0, min(to, len(u)))
	var b strings.Builder
	for i := from; i < to; i++ {
		c := rune(u[i])
		switch {
		case utf16.IsSurrogate(c) && i+1 < to && c < 0xDC00 && u[i+1] >= 0xDC00 && u[i+1] < 0xE000:
			b.WriteRune(utf16.DecodeRune(c, rune(u[i+1])))
			i++
		case utf16.IsSurrogate(c):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
