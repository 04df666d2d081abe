package replay

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxbench/ctxbench/replay/probe"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// probeIndex is what the runs of one transcript share to ask probes: the
// extractor, which finds each message's probes once, and a gram set of
// each message's text as the exact judge reads it ([probe.Text]), which
// rules a message out for most keys at a few bit lookups, so that a step
// is searched without its context's text being made.
type probeIndex struct {
	t     *transcript.Transcript
	ex    *probe.Extractor
	grams []atomic.Pointer[gramSet]
	// texts are the messages' texts read so far, while their total stays
	// within maxSharedTexts bytes (stored): beyond, a run reads its own
	// while the message is in its context.
	texts  []atomic.Pointer[string]
	stored atomic.Int64
	// session counts the session's probes ([probe.Extractor.Session]).
	session func() map[probe.Kind]int
}

// maxSharedTexts bounds the texts a transcript's runs share: the texts
// of a session of a few thousand calls, a fraction of a 50,000-call
// one's.
const maxSharedTexts = 64 << 20

func newProbeIndex(t *transcript.Transcript) *probeIndex {
	n := len(t.Messages)
	x := &probeIndex{t: t, ex: probe.NewExtractor(t), grams: make([]atomic.Pointer[gramSet], n), texts: make([]atomic.Pointer[string], n)}
	x.session = sync.OnceValue(x.ex.Session)
	return x
}

// text returns message i's text, and whether it is shared (else the
// caller keeps it while it needs it).
func (x *probeIndex) text(i int) (string, bool) {
	if p := x.texts[i].Load(); p != nil {
		return *p, true
	}
	text := probe.Text(&x.t.Messages[i])
	if x.stored.Add(int64(len(text))) > maxSharedTexts {
		x.stored.Add(-int64(len(text)))
		return text, false
	}
	if !x.texts[i].CompareAndSwap(nil, &text) {
		x.stored.Add(-int64(len(text)))
	}
	return text, true
}

// prepare finds message i's probes and gram set, if not yet.
func (x *probeIndex) prepare(i int) {
	x.ex.Prepare(i)
	x.gramsOf(i)
}

// gramsOf returns message i's gram set, made on first use.
func (x *probeIndex) gramsOf(i int) *gramSet {
	if g := x.grams[i].Load(); g != nil {
		return g
	}
	g := newGramSet(probe.Text(&x.t.Messages[i]))
	if x.grams[i].CompareAndSwap(nil, g) {
		return g
	}
	return x.grams[i].Load()
}

// A gramSet holds a bit per hash of each 4-byte window of a text, about
// one bit per byte: a window of s missing proves the text does not hold
// s.
type gramSet struct {
	bits  []uint64
	shift uint
}

func newGramSet(text string) *gramSet {
	n := uint(6) // 64 bits at least
	for 1<<n < len(text) {
		n++
	}
	g := &gramSet{bits: make([]uint64, (1<<n)/64), shift: 32 - n}
	for i := 0; i+4 <= len(text); i++ {
		h := g.hash(text, i)
		g.bits[h/64] |= 1 << (h % 64)
	}
	return g
}

func (g *gramSet) hash(s string, i int) uint32 {
	w := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
	return (w * 2654435761) >> g.shift
}

// mayHold reports false only when the text cannot hold s, which is 4
// bytes long at least.
func (g *gramSet) mayHold(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if h := g.hash(s, i); g.bits[h/64]&(1<<(h%64)) == 0 {
			return false
		}
	}
	return true
}

// probeScore asks the probes of one run: at each call, about the
// messages the policy first stopped sending verbatim, judged as
// [probe.Context.Keeps] judges them against the context sent. A step
// updates it with the items that left the context and the items that
// came in, so finding what was lost costs what changed; the probes are
// then searched for in the context's messages, each ruled out by its
// gram set before its text is read.
type probeScore struct {
	x *probeIndex
	// held[i] is how many items of the context are message i verbatim;
	// asked[i] says message i has been asked about.
	held    []int32
	askedOf []bool
	// asked: the messages before it have been looked at.
	asked int
	// copies are the texts of the context's items that are not
	// originals (summaries, truncated copies), while they are in it.
	copies map[*transcript.Message]*copyText
	// texts are the texts of the originals read while they are in the
	// context, those the index does not share.
	texts map[int]string
	score probe.Score
	// lost are the probes lost so far, by identity, and loss counts them.
	lost map[string]bool
	loss probe.Loss
	gone []int
}

type copyText struct {
	text string
	n    int
}

func newProbeScore(x *probeIndex) *probeScore {
	n := len(x.t.Messages)
	return &probeScore{x: x, held: make([]int32, n), askedOf: make([]bool, n), copies: map[*transcript.Message]*copyText{},
		texts: map[int]string{}, score: probe.Score{Kept: map[probe.Kind]int{}, Total: map[probe.Kind]int{}},
		lost: map[string]bool{}, loss: probe.Loss{Lost: map[probe.Kind]int{}}}
}

// original returns the index of the message the item is verbatim, or
// -1.
func original(it window.Item) int {
	if it.Truncated {
		return -1
	}
	return it.Index()
}

// A probesAt is what one call asked: the messages first lost at it, in
// order, and their probes with what the exact judge found.
type probesAt struct {
	dropped []int
	probes  []probe.Probe
	kept    []bool
}

// step judges the call whose assistant message is next, after the
// context went from the previous one by gone and came to sent.
func (ps *probeScore) step(next int, gone, came, sent []window.Item) probesAt {
	ps.gone = ps.gone[:0]
	for _, it := range gone {
		if i := original(it); i >= 0 {
			if ps.held[i]--; ps.held[i] == 0 {
				ps.gone = append(ps.gone, i)
				delete(ps.texts, i)
			}
		} else if c := ps.copies[it.Msg]; c != nil {
			if c.n--; c.n == 0 {
				delete(ps.copies, it.Msg)
			}
		}
	}
	for _, it := range came {
		if i := original(it); i >= 0 {
			ps.held[i]++
		} else if c := ps.copies[it.Msg]; c != nil {
			c.n++
		} else {
			ps.copies[it.Msg] = &copyText{text: probe.Text(it.Msg), n: 1}
		}
	}
	var at probesAt
	lose := func(i int) {
		if ps.held[i] == 0 && !ps.askedOf[i] {
			ps.askedOf[i] = true
			at.dropped = append(at.dropped, i)
		}
	}
	for _, i := range ps.gone {
		lose(i)
	}
	for ; ps.asked < next; ps.asked++ {
		lose(ps.asked)
	}
	if len(at.dropped) == 0 {
		return at
	}
	slices.Sort(at.dropped)
	at.probes = ps.x.ex.Of(at.dropped, next)
	at.kept = make([]bool, len(at.probes))
	for k, p := range at.probes {
		at.kept[k] = ps.keeps(p, sent)
		ps.score.Add(p, at.kept[k])
		if id := p.Identity(); !at.kept[k] && !ps.lost[id] {
			ps.lost[id] = true
			ps.loss.Lost[p.Kind]++
		}
	}
	return at
}

// keeps reports whether the context sent holds every key of p.
func (ps *probeScore) keeps(p probe.Probe, sent []window.Item) bool {
	for _, k := range p.Keys {
		if !ps.holds(probe.Normalize(k), sent) {
			return false
		}
	}
	return len(p.Keys) > 0
}

// holds reports whether a message of sent holds key, normalized.
func (ps *probeScore) holds(key string, sent []window.Item) bool {
	for _, it := range sent {
		i := original(it)
		if i < 0 {
			if c := ps.copies[it.Msg]; c != nil && strings.Contains(c.text, key) {
				return true
			}
			continue
		}
		switch {
		case len(key) >= 4:
			if !ps.x.gramsOf(i).mayHold(key) {
				continue
			}
		case literal(key):
			if rawHolds(it.Msg, key) {
				return true
			}
			continue
		}
		text, ok := ps.texts[i]
		if !ok {
			var shared bool
			if text, shared = ps.x.text(i); !shared {
				ps.texts[i] = text
			}
		}
		if strings.Contains(text, key) {
			return true
		}
	}
	return false
}

// literal reports whether key is found in a message's text exactly
// where it is found in the text normalized: it holds no byte that
// normalizing changes or reads with its neighbours (letters, white space,
// the escapes' backslash and the characters they stand for), as a number
// does.
func literal(key string) bool {
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c >= 0x80, c <= ' ', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '\\', c == '"', c == '/':
			return false
		}
	}
	return true
}

// rawHolds reports whether a field of m's blocks, as [probe.Text] reads
// them, holds key, a [literal] one.
func rawHolds(m *transcript.Message, key string) bool {
	for _, b := range m.Blocks {
		if strings.Contains(b.Text, key) || strings.Contains(b.Name, key) || strings.Contains(string(b.Input), key) || strings.Contains(string(b.Raw), key) {
			return true
		}
	}
	return false
}

// summary returns the probes asked and kept, and what the run lost of
// the session's probes.
func (ps *probeScore) summary() (probe.Score, probe.Loss) {
	loss := probe.Loss{Lost: ps.loss.Lost, Of: maps.Clone(ps.x.session())}
	return ps.score, loss
}
