package probe

import (
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
)

// A Context is what a call sent, prepared for the exact judge: every
// block's text, tool name and input, and raw content, lowercased with
// runs of white space as one space.
type Context struct {
	text string
}

// NewContext prepares the messages sent (originals, truncated copies,
// summaries).
func NewContext(msgs []*transcript.Message) *Context {
	var j ExactJudge
	return j.Context(msgs)
}

// ExactJudge judges the calls of one replay: it prepares each message's
// text once, as the calls send most of the same messages again.
type ExactJudge struct {
	of map[*transcript.Message]string
}

// Context prepares the messages a call sent.
func (j *ExactJudge) Context(msgs []*transcript.Message) *Context {
	if j.of == nil {
		j.of = map[*transcript.Message]string{}
	}
	var b strings.Builder
	for _, m := range msgs {
		text, ok := j.of[m]
		if !ok {
			text = messageText(m)
			j.of[m] = text
		}
		b.WriteString(text)
	}
	return &Context{text: b.String()}
}

// messageText is m's blocks' texts, names, inputs and raw content,
// normalized, a line each.
func messageText(m *transcript.Message) string {
	var b strings.Builder
	for _, bl := range m.Blocks {
		for _, s := range []string{bl.Text, bl.Name, string(bl.Input), string(bl.Raw)} {
			if s != "" {
				b.WriteString(normalize(s))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// Keeps reports whether the context can still answer p: every key of p
// appears in it.
func (c *Context) Keeps(p Probe) bool {
	for _, k := range p.Keys {
		if !strings.Contains(c.text, normalize(k)) {
			return false
		}
	}
	return len(p.Keys) > 0
}

// normalize lowercases s and writes each run of white space as one
// space. Tool inputs are JSON: their strings' escapes are read as the
// text they stand for where they are the common ones (\n, \t, \", \/).
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(jsonEscapes.Replace(s))), " ")
}

var jsonEscapes = strings.NewReplacer(`\n`, " ", `\t`, " ", `\"`, `"`, `\/`, "/")

// A Score is how many probes of each kind a context kept.
type Score struct {
	Kept  map[Kind]int `json:"kept"`
	Total map[Kind]int `json:"total"`
}

// Add counts p, kept or not.
func (s *Score) Add(p Probe, kept bool) {
	if s.Total == nil {
		s.Kept, s.Total = map[Kind]int{}, map[Kind]int{}
	}
	s.Total[p.Kind]++
	if kept {
		s.Kept[p.Kind]++
	}
}

// Share returns the share of kind k's probes kept, and whether there
// were any.
func (s *Score) Share(k Kind) (float64, bool) {
	if s.Total[k] == 0 {
		return 0, false
	}
	return float64(s.Kept[k]) / float64(s.Total[k]), true
}

// Totals returns how many probes of every kind were kept, and asked.
func (s *Score) Totals() (kept, total int) {
	for _, k := range Kinds() {
		kept += s.Kept[k]
		total += s.Total[k]
	}
	return kept, total
}

// Overall returns the share of all probes kept, and whether there were
// any.
func (s *Score) Overall() (float64, bool) {
	kept, total := s.Totals()
	if total == 0 {
		return 0, false
	}
	return float64(kept) / float64(total), true
}
