package replay

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// probeIndex is what the runs of one transcript share to ask probes: the
// extractor, which finds each message's probes once, and the index of
// the messages that hold each key a probe can have ([keyIndex]), so that
// a step finds a key without reading the context it sent.
type probeIndex struct {
	t  *transcript.Transcript
	ex *probe.Extractor
	// session counts the session's probes and numbers them by identity
	// ([probe.Extractor.SessionProbes]), keys indexes their keys; both
	// made on first use.
	session func() *sessionProbes
	keys    func() *keyIndex
}

func newProbeIndex(t *transcript.Transcript) *probeIndex {
	x := &probeIndex{t: t, ex: probe.NewExtractor(t)}
	x.session = sync.OnceValue(func() *sessionProbes { return newSessionProbes(x.ex) })
	x.keys = sync.OnceValue(func() *keyIndex { return newKeyIndex(x) })
	return x
}

// sessionProbes are a session's probes: how many of each kind, and each
// one's number, by identity.
type sessionProbes struct {
	counts map[probe.Kind]int
	ids    map[string]int32
}

func newSessionProbes(ex *probe.Extractor) *sessionProbes {
	s := &sessionProbes{counts: map[probe.Kind]int{}, ids: map[string]int32{}}
	for _, p := range ex.SessionProbes() {
		s.counts[p.Kind]++
		s.ids[p.Identity()] = int32(len(s.ids))
	}
	return s
}

// probeScore asks the probes of one run: at each call, about the
// messages the policy first stopped sending verbatim, judged as
// [probe.Context.Keeps] judges them against the context sent. A step
// updates it with the items that left the context and the items that
// came in, so finding what was lost costs what changed; whether a key is
// sent is then two counters: of the originals sent verbatim that hold it
// ([keyIndex]) and of the copies and summaries that do (their keys found
// as they come in). A key under 2 bytes is looked for in the context.
type probeScore struct {
	x *probeIndex
	// held[i] is how many items of the context are message i verbatim;
	// asked[i] says message i has been asked about.
	held    []int32
	askedOf []bool
	// asked: the messages before it have been looked at.
	asked int
	// copies are the context's items that are not originals (summaries,
	// truncated copies) and the keys they hold, while they are in it;
	// copyHeld[id] counts the copies that hold key id. keys is the
	// transcript's index, taken when a step first needs it (a run that
	// loses nothing never does).
	keys     *keyIndex
	copies   map[*transcript.Message]*copyText
	copyHeld []int32
	// keyHeld[id] counts the originals sent verbatim that hold key id.
	keyHeld []int32
	score   probe.Score
	// lost are the session's probes lost so far, by number
	// (sessionProbes), and loss counts them; lostOther those of no
	// number, by identity (none: every probe asked is the session's).
	lost      []bool
	lostOther map[string]bool
	loss      probe.Loss
	gone      []int
}

// A copyText is a copy's or a summary's part in the context: the keys
// its text holds (the text itself is not kept: a run's copies can be as
// large as its context), and how many of the context's items it is.
type copyText struct {
	msg  *transcript.Message
	keys []int32
	n    int
}

func newProbeScore(x *probeIndex) *probeScore {
	n := len(x.t.Messages)
	return &probeScore{x: x, held: make([]int32, n), askedOf: make([]bool, n), copies: map[*transcript.Message]*copyText{},
		score:     probe.Score{Kept: map[probe.Kind]int{}, Total: map[probe.Kind]int{}},
		lostOther: map[string]bool{}, loss: probe.Loss{Lost: map[probe.Kind]int{}}}
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
			ps.countKeys(i, -1)
			if ps.held[i]--; ps.held[i] == 0 {
				ps.gone = append(ps.gone, i)
			}
		} else if c := ps.copies[it.Msg]; c != nil {
			if c.n--; c.n == 0 {
				for _, id := range c.keys {
					ps.copyHeld[id]--
				}
				delete(ps.copies, it.Msg)
			}
		}
	}
	var fresh []*copyText
	for _, it := range came {
		if i := original(it); i >= 0 {
			ps.countKeys(i, 1)
			ps.held[i]++
		} else if c := ps.copies[it.Msg]; c != nil {
			c.n++
		} else {
			c := &copyText{n: 1, msg: it.Msg}
			ps.copies[it.Msg] = c
			fresh = append(fresh, c)
		}
	}
	if len(fresh) > 0 {
		// After the originals are counted: taking the index counts those
		// sent.
		ps.index(sent)
		for _, c := range fresh {
			c.keys = ps.keys.keysOf(probe.Text(c.msg))
			for _, id := range c.keys {
				ps.copyHeld[id]++
			}
		}
	}
	var at probesAt
	lose := func(i int) {
		// A message the user undid left every policy's context: its
		// going is no policy's loss.
		if ps.held[i] == 0 && !ps.askedOf[i] && !probe.Undone(ps.x.t, i) {
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
	ps.index(sent)
	at.probes = ps.x.ex.Of(at.dropped, next)
	at.kept = make([]bool, len(at.probes))
	for k, p := range at.probes {
		at.kept[k] = ps.keeps(p, sent)
		ps.score.Add(p, at.kept[k])
		if !at.kept[k] && ps.lose(p.Identity()) {
			ps.loss.Lost[p.Kind]++
		}
	}
	return at
}

// index takes the transcript's key index, if not yet, and counts the
// keys of the originals sent (the copies' are counted as they come).
func (ps *probeScore) index(sent []window.Item) {
	if ps.keys != nil {
		return
	}
	ps.keys = ps.x.keys()
	ps.copyHeld = make([]int32, ps.keys.m.Len())
	ps.keyHeld = make([]int32, ps.keys.m.Len())
	for _, it := range sent {
		if i := original(it); i >= 0 {
			ps.countKeys(i, 1)
		}
	}
}

// countKeys adds d to the count of each key message i holds, once the
// index is taken.
func (ps *probeScore) countKeys(i int, d int32) {
	if ps.keys == nil {
		return
	}
	for _, id := range ps.keys.of[i] {
		ps.keyHeld[id] += d
	}
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

// holds reports whether a message of sent holds key, normalized: a copy
// or an original the index names, or, for a key the index leaves to the
// context, any message of it, the latest first.
func (ps *probeScore) holds(key string, sent []window.Item) bool {
	if key == "" {
		return true // as strings.Contains has it
	}
	if id, ok := ps.keys.id(key); ok {
		return ps.keyHeld[id] > 0 || ps.copyHeld[id] > 0
	}
	for k := len(sent) - 1; k >= 0; k-- {
		it := sent[k]
		i := original(it)
		if literal(key) {
			if rawHolds(it.Msg, key) {
				return true
			}
			continue
		}
		m := it.Msg
		if i >= 0 {
			m = &ps.x.t.Messages[i]
		}
		if strings.Contains(probe.Text(m), key) {
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

// lose marks the probe of identity id lost, and reports whether it was
// not yet.
func (ps *probeScore) lose(id string) bool {
	sp := ps.x.session()
	n, ok := sp.ids[id]
	if !ok {
		if ps.lostOther[id] {
			return false
		}
		ps.lostOther[id] = true
		return true
	}
	if ps.lost == nil {
		ps.lost = make([]bool, len(sp.ids))
	}
	if ps.lost[n] {
		return false
	}
	ps.lost[n] = true
	return true
}

// summary returns the probes asked and kept, and what the run lost of
// the session's probes.
func (ps *probeScore) summary() (probe.Score, probe.Loss) {
	loss := probe.Loss{Lost: ps.loss.Lost, Of: maps.Clone(ps.x.session().counts)}
	return ps.score, loss
}
