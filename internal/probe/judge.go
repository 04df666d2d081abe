package probe

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/transcript"
)

// A Context is what a call sent, prepared for the exact judge: each
// message's [Text].
type Context struct {
	texts []string
}

// NewContext prepares the messages sent (originals, truncated copies,
// summaries): the definition a replay's incremental judging is held to.
func NewContext(msgs []*transcript.Message) *Context {
	c := &Context{texts: make([]string, len(msgs))}
	for k, m := range msgs {
		c.texts[k] = Text(m)
	}
	return c
}

// Text is m as the exact judge reads it: its blocks' texts, names,
// inputs and raw content, each [Normalize]d, a line each. A key, having
// no line break, is in a context when it is in one of its messages'
// texts.
func Text(m *transcript.Message) string {
	var b strings.Builder
	for _, bl := range m.Blocks {
		for _, s := range []string{bl.Text, bl.Name, string(bl.Input), string(bl.Raw)} {
			if s != "" {
				writeNormalized(&b, s)
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
		k = Normalize(k)
		if !slices.ContainsFunc(c.texts, func(t string) bool { return strings.Contains(t, k) }) {
			return false
		}
	}
	return len(p.Keys) > 0
}

// Normalize is s as the exact judge compares it: lowercased, each run of
// white space one space. Tool inputs are JSON: their strings' escapes
// are read as the text they stand for where they are the common ones
// (\n, \t, \", \/).
func Normalize(s string) string {
	var b strings.Builder
	writeNormalized(&b, s)
	return b.String()
}

// writeNormalized writes s [Normalize]d to b, in one pass: an escape is
// replaced as it is met (escapes are ASCII, and no byte of a longer
// UTF-8 sequence is), each rune lowercased as [strings.ToLower] does
// (an invalid byte becomes U+FFFD), and white space as [strings.Fields]
// finds it owed as one space before the next word.
func writeNormalized(b *strings.Builder, s string) {
	b.Grow(len(s))
	space := false
	start := b.Len()
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n
			r = unicode.ToLower(r)
			if unicode.IsSpace(r) {
				space = b.Len() > start
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
			continue
		}
		i++
		if c == '\\' && i < len(s) {
			switch s[i] {
			case 'n', 't':
				c = ' '
				i++
			case '"', '/':
				c = s[i]
				i++
			}
		}
		switch {
		case c == ' ' || c >= '\t' && c <= '\r':
			space = b.Len() > start
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
}

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

// A Loss is what a policy lost of a session's probes: each probe, by
// kind and keys, counted once however many calls asked it, lost when a
// call asked it and the context could not answer it. Of counts the
// session's probes: those about every message a call could send
// ([Extractor.Of] of them all), and the continuation probe of every
// call. A policy that sends everything loses none.
type Loss struct {
	Lost map[Kind]int `json:"lost"`
	Of   map[Kind]int `json:"of"`
}

// Score returns the share of the session's probes not lost: 1 when
// there are none.
func (l Loss) Score() float64 {
	lost, of := 0, 0
	for _, k := range Kinds() {
		lost += l.Lost[k]
		of += l.Of[k]
	}
	if of == 0 {
		return 1
	}
	return 1 - float64(lost)/float64(of)
}

// KindScore returns the share of kind k's probes not lost, and whether
// the session has any.
func (l Loss) KindScore(k Kind) (float64, bool) {
	if l.Of[k] == 0 {
		return 0, false
	}
	return 1 - float64(l.Lost[k])/float64(l.Of[k]), true
}

// Totals returns how many probes were lost, of how many.
func (l Loss) Totals() (lost, of int) {
	for _, k := range Kinds() {
		lost += l.Lost[k]
		of += l.Of[k]
	}
	return lost, of
}

// Merge adds o's counts to l's (the sessions of a sweep's point).
func (l *Loss) Merge(o Loss) {
	if l.Of == nil {
		l.Lost, l.Of = map[Kind]int{}, map[Kind]int{}
	}
	for k, n := range o.Of {
		l.Of[k] += n
		l.Lost[k] += o.Lost[k]
	}
}

// Merge adds o's probes to s's.
func (s *Score) Merge(o Score) {
	if s.Total == nil {
		s.Kept, s.Total = map[Kind]int{}, map[Kind]int{}
	}
	for k, n := range o.Total {
		s.Total[k] += n
		s.Kept[k] += o.Kept[k]
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
