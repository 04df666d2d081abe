package replay

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/ctxbench/ctxbench/replay/internal/artifact"
	"github.com/ctxbench/ctxbench/replay/internal/gram"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// Retention measures what a policy keeps, as a proxy nobody can compute
// offline exactly (what the model would have needed is unknowable): at
// each call, the share of the artifacts seen so far in the full history
// ([artifact.Of]) that are still present in the context sent, summary
// text included. An artifact is present when its text appears in a
// message sent — an original, a truncated copy or a summary. A run's
// retention is the mean over calls; 1 means nothing the history mentioned
// was lost.

// An artifactCache remembers the artifacts of transcript messages, keyed
// by message identity, and their probes, so that each message is scanned
// once however many policies and sweep points replay it (as internal/countcache does for
// counts). Artifacts are interned: a run works with small integers, not
// strings. It also holds each transcript's interned tool ids, which the
// invariant checks use. It is safe for concurrent use.
type artifactCache struct {
	mu     sync.RWMutex
	tools  map[*transcript.Transcript]*toolIndex
	locals map[*transcript.Transcript]*transcriptArtifacts
	probes map[*transcript.Transcript]*probeIndex
	of     map[*transcript.Message][]int32
	ids    map[string]int32
	texts  []string   // texts[id]: the text, without its kind
	sigs   []gram.Sig // sigs[id]: grams of the text, for a gram.Filter
}

// newArtifactCache returns an empty cache.
func newArtifactCache() *artifactCache {
	return &artifactCache{of: map[*transcript.Message][]int32{}, ids: map[string]int32{}, tools: map[*transcript.Transcript]*toolIndex{},
		locals: map[*transcript.Transcript]*transcriptArtifacts{}, probes: map[*transcript.Transcript]*probeIndex{}}
}

// perTranscript returns m[t], made by mk on first use (outside the lock:
// two runs of t may both make it, and the first stored wins).
func perTranscript[V any](c *artifactCache, m map[*transcript.Transcript]*V, t *transcript.Transcript, mk func() *V) *V {
	c.mu.RLock()
	x := m[t]
	c.mu.RUnlock()
	if x != nil {
		return x
	}
	x = mk()
	c.mu.Lock()
	defer c.mu.Unlock()
	if y := m[t]; y != nil {
		return y
	}
	m[t] = x
	return x
}

// toolsOf returns t's tool index, made on first use.
func (c *artifactCache) toolsOf(t *transcript.Transcript) *toolIndex {
	return perTranscript(c, c.tools, t, func() *toolIndex { return newToolIndex(t) })
}

// probesOf returns t's probe index, made on first use.
func (c *artifactCache) probesOf(t *transcript.Transcript) *probeIndex {
	return perTranscript(c, c.probes, t, func() *probeIndex { return newProbeIndex(t) })
}

// artifacts returns the ids of m's artifacts; keep caches m's, which a
// run does for the transcript's own messages and not for its truncated
// copies, made afresh by every run.
func (c *artifactCache) artifacts(m *transcript.Message, keep bool) []int32 {
	c.mu.RLock()
	a, ok := c.of[m]
	c.mu.RUnlock()
	if ok {
		return a
	}
	names := artifact.Of(m)
	a = make([]int32, len(names))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, n := range names {
		id, ok := c.ids[n]
		if !ok {
			id = int32(len(c.texts))
			c.ids[n] = id
			text := n[strings.IndexByte(n, 0)+1:]
			c.texts = append(c.texts, text)
			c.sigs = append(c.sigs, gram.Signature(text))
		}
		a[i] = id
	}
	if keep {
		c.of[m] = a
	}
	return a
}

// textsNow returns the texts of the artifacts known so far and their
// signatures, by id. Ids only grow, so the slices stay valid for every id
// seen before the call.
func (c *artifactCache) textsNow() ([]string, []gram.Sig) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.texts, c.sigs
}

// transcriptArtifacts number the artifacts of one transcript's messages
// densely, for its runs: a run's arrays are the size of its transcript's
// artifacts, not of every artifact the cache has interned.
type transcriptArtifacts struct {
	of    [][]int32       // by message: the local ids of its artifacts
	local map[int32]int32 // cache id → local id
	texts []string        // by local id
	sigs  []gram.Sig      // by local id
	// keyed and short index the artifacts for a summary's search (see
	// keyArtifacts): the artifacts whose key has bits b of keyMask are
	// keyed[keyStart[b]:keyStart[b+1]].
	keyed    []keyed
	keyStart []int32
	short    []int32
	// keyBits has the bit of each key of keyed (its bits of keyMask)
	// set: a window whose bit is clear is no key, told without reading
	// keyStart.
	keyBits []uint64
	keyMask uint32
}

// A keyed is an artifact under its key: where the key window starts in
// its text, the text's length and its first and last keyLen bytes, which
// a window of a summary is checked against before the artifact's own
// arrays are read.
type keyed struct {
	key        uint32
	id, at, n  int32
	head, tail uint64
}

// head8 returns the keyLen bytes of s at i as one word.
func head8(s string, i int) uint64 {
	return binary.LittleEndian.Uint64([]byte(s[i : i+keyLen]))
}

// maxKeyBits is the largest size of keyBits, in bits (a power of two).
const maxKeyBits = 1 << 20

// byKey returns the artifacts whose key's bits of keyMask are h's; some
// may have another key.
func (x *transcriptArtifacts) byKey(h uint32) []keyed {
	h &= x.keyMask
	return x.keyed[x.keyStart[h]:x.keyStart[h+1]]
}

// mayBeKey reports false only when h is no key of keyed.
func (x *transcriptArtifacts) mayBeKey(h uint32) bool {
	h &= x.keyMask
	return x.keyBits[h/64]&(1<<(h%64)) != 0
}

// ofTranscript returns t's artifacts numbered for its runs, made on first
// use (the messages' artifacts are computed then, if not yet).
func (c *artifactCache) ofTranscript(t *transcript.Transcript) *transcriptArtifacts {
	return perTranscript(c, c.locals, t, func() *transcriptArtifacts { return c.number(t) })
}

// number numbers t's artifacts (computing the messages' artifacts, if
// not yet) and keys them.
func (c *artifactCache) number(t *transcript.Transcript) *transcriptArtifacts {
	x := &transcriptArtifacts{of: make([][]int32, len(t.Messages)), local: map[int32]int32{}}
	global := make([][]int32, len(t.Messages))
	for i := range t.Messages {
		global[i] = c.artifacts(&t.Messages[i], true)
	}
	texts, sigs := c.textsNow()
	for i, ids := range global {
		x.of[i] = make([]int32, len(ids))
		for k, g := range ids {
			l, ok := x.local[g]
			if !ok {
				l = int32(len(x.texts))
				x.local[g] = l
				x.texts = append(x.texts, texts[g])
				x.sigs = append(x.sigs, sigs[g])
			}
			x.of[i][k] = l
		}
	}
	x.keyArtifacts()
	return x
}

// retention tracks one run's artifacts, by local id (see
// transcriptArtifacts). A step updates it with the items that left the
// context and the items that came in, so it costs what changed, not the
// context.
type retention struct {
	t        *transcript.Transcript
	of       *artifactCache
	arts     *transcriptArtifacts
	cut      map[weak.Pointer[transcript.Message]][]int32 // local artifacts of truncated copies, while they live
	seen     []bool                                       // seen[id]: in a message appended so far
	seenList []int32                                      // the ids seen, in order
	appended int
	// held[id] is how many items of the context hold artifact id, and
	// present how many seen ids are held.
	held    []int32
	present int
	// synthetic is how many items of the context are not original
	// messages; their text, joined, is sumText, the summary.
	synthetic int
	// seenList[:sumChecked] have been searched for in sumText: inSum[id]
	// says whether artifact id was found, sumCount how many were, and
	// overlap how many of those are also held. A summary is searched once
	// per artifact, not at every step.
	sumText    string
	sumChecked int
	inSum      []bool
	inSumList  []int32 // the ids with inSum set
	sumCount   int
	overlap    int
	grams      gram.Filter // of sumText
	// triedAt[id] == tried: searched for in this summary already.
	triedAt []uint32
	tried   uint32
}

func newRetention(t *transcript.Transcript, of *artifactCache) *retention {
	if of == nil {
		of = newArtifactCache()
	}
	arts := of.ofTranscript(t)
	n := len(arts.texts)
	return &retention{t: t, of: of, arts: arts, cut: map[weak.Pointer[transcript.Message]][]int32{},
		seen: make([]bool, n), held: make([]int32, n), inSum: make([]bool, n), triedAt: make([]uint32, n)}
}

// message returns the artifacts of the transcript's message i.
func (r *retention) message(i int) []int32 { return r.arts.of[i] }

// itemArtifacts returns the artifacts an item holds itself: an original's,
// a truncated copy's, none for a synthetic item (its text is searched as
// the summary).
func (r *retention) itemArtifacts(it window.Item) []int32 {
	switch i := it.Index(); {
	case i < 0:
		return nil
	case !it.Truncated && i < len(r.t.Messages) && it.Msg == &r.t.Messages[i]:
		return r.message(i)
	default:
		w := weak.Make(it.Msg)
		a, ok := r.cut[w]
		if !ok {
			// Artifacts no message of the transcript holds are never
			// seen, so they never count: they are left out.
			for _, g := range r.of.artifacts(it.Msg, false) {
				if l, ok := r.arts.local[g]; ok {
					a = append(a, l)
				}
			}
			r.cut[w] = a
		}
		return a
	}
}

// hold adds d (1 or −1) to the holders of the item's artifacts.
func (r *retention) hold(it window.Item, d int32) {
	if it.Index() < 0 {
		r.synthetic += int(d)
		return
	}
	for _, id := range r.itemArtifacts(it) {
		was := r.held[id] > 0
		r.held[id] += d
		if now := r.held[id] > 0; now != was && r.seen[id] {
			r.count(id, now)
		}
	}
}

// count records that seen artifact id became held (or stopped being).
func (r *retention) count(id int32, held bool) {
	d := -1
	if held {
		d = 1
	}
	r.present += d
	if r.inSum[id] {
		r.overlap += d
	}
}

// step returns the retention of the context sent at the call whose
// assistant message is next: the share of the artifacts seen so far (in
// the messages before next) that the context holds. gone and came are
// the items that left the previous step's context and came into this
// one; sent is the whole context, read only when a synthetic item comes
// or goes, for the summary text.
func (r *retention) step(next int, gone, came, sent []window.Item) float64 {
	for ; r.appended < next; r.appended++ {
		for _, id := range r.message(r.appended) {
			if !r.seen[id] {
				r.seen[id] = true
				r.seenList = append(r.seenList, id)
				if r.held[id] > 0 {
					r.count(id, true)
				}
			}
		}
	}
	synthetic := false
	for _, it := range gone {
		synthetic = synthetic || it.Index() < 0
		r.hold(it, -1)
	}
	for _, it := range came {
		synthetic = synthetic || it.Index() < 0
		r.hold(it, 1)
	}
	// A summary paraphrases: an artifact is in it when its text is.
	if synthetic && r.synthetic > 0 {
		var texts []string
		for _, it := range sent {
			if it.Index() < 0 {
				texts = append(texts, it.Msg.Text())
			}
		}
		if text := strings.Join(texts, "\n"); text != r.sumText {
			for _, id := range r.inSumList {
				r.inSum[id] = false
			}
			r.inSumList = r.inSumList[:0]
			r.sumText, r.sumChecked, r.sumCount, r.overlap = text, 0, 0, 0
		}
	}
	useSum := r.synthetic > 0
	if useSum {
		if r.sumChecked == 0 && len(r.seenList) > 0 {
			// A new summary: the seen artifacts it holds, found from its
			// own windows (see transcriptArtifacts.key), not by searching
			// it for every artifact seen.
			r.searchSummary()
		}
		if r.sumChecked < len(r.seenList) {
			r.grams.Of(r.sumText)
		}
		texts, sigs := r.arts.texts, r.arts.sigs
		for ; r.sumChecked < len(r.seenList); r.sumChecked++ {
			id := r.seenList[r.sumChecked]
			if r.grams.MayHold(sigs[id]) && r.grams.MayContain(texts[id]) && strings.Contains(r.sumText, texts[id]) {
				r.inSummary(id)
			}
		}
	}
	if len(r.seenList) == 0 {
		return 1
	}
	n := r.present
	if useSum {
		n += r.sumCount - r.overlap // artifacts also in the summary are counted with it
	}
	return float64(n) / float64(len(r.seenList))
}

// inSummary records that seen artifact id is in the summary.
func (r *retention) inSummary(id int32) {
	r.inSum[id] = true
	r.inSumList = append(r.inSumList, id)
	r.sumCount++
	if r.held[id] > 0 {
		r.overlap++
	}
}

// searchSummary finds the seen artifacts the summary holds: those keyed
// by a window of the summary, compared where their key would put them,
// and the short ones, each searched for once. A window whose bit of
// keyBits is clear is no key, and an artifact whose signature the
// summary's grams lack is not in it: neither needs a look further.
func (r *retention) searchSummary() {
	a, text := r.arts, r.sumText
	r.grams.Of(text)
	r.tried++
	try := func(id int32) {
		if !r.seen[id] || r.inSum[id] || r.triedAt[id] == r.tried {
			return
		}
		r.triedAt[id] = r.tried
		if r.grams.MayHold(a.sigs[id]) && r.grams.MayContain(a.texts[id]) && strings.Contains(text, a.texts[id]) {
			r.inSummary(id)
		}
	}
	// An artifact the summary holds has its key window in place at some
	// window of the summary: comparing it there is the whole search.
	for i := 0; i+keyLen <= len(text); i++ {
		h := keyHash(text, i)
		if !a.mayBeKey(h) {
			continue
		}
		for _, k := range a.byKey(h) {
			start := i - int(k.at)
			end := start + int(k.n)
			if k.key != h || start < 0 || end > len(text) || head8(text, start) != k.head || head8(text, end-keyLen) != k.tail {
				continue
			}
			if id := k.id; r.seen[id] && !r.inSum[id] && r.grams.MayHold(a.sigs[id]) && text[start:end] == a.texts[id] {
				r.inSummary(id)
			}
		}
	}
	for _, id := range a.short {
		try(id)
	}
	r.sumChecked = len(r.seenList)
}

// keyLen is the window of an artifact's key: long enough that the
// paths of one project, which share most 4-byte windows, seldom share it.
const keyLen = 8

func keyHash(s string, i int) uint32 {
	h := uint32(2166136261)
	for _, c := range []byte(s[i : i+keyLen]) {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// keyArtifacts gives every artifact of x a key: the hash of its
// keyLen-byte window that is rarest among the transcript's artifacts
// (texts shorter than that go to short). A text that contains an
// artifact contains its key window, so the artifacts a summary may hold
// are those keyed by one of its windows: few, since keys are rare.
//
// Any window would be a correct key; rarity only makes the search
// cheaper, so the windows are counted approximately, in a fixed table by
// hash (windows sharing a slot add up), which costs a fraction of a map.
func (x *transcriptArtifacts) keyArtifacts() {
	windows := 0
	for _, t := range x.texts {
		windows += max(0, len(t)-keyLen+1)
	}
	// About two slots a window, up to keyFreqSlots: a short transcript's
	// table is small (a corpus of many is numbered one by one).
	slots := uint32(64)
	for slots < keyFreqSlots && int(slots) < 2*windows {
		slots <<= 1
	}
	freq := make([]int32, slots)
	slot := func(h uint32) uint32 { return h & (slots - 1) }
	for _, t := range x.texts {
		for i := 0; i+keyLen <= len(t); i++ {
			freq[slot(keyHash(t, i))]++
		}
	}
	// About 16 bits a key: few windows that are no key find their bit set.
	bits := uint32(64)
	for bits < maxKeyBits && int(bits) < 16*len(x.texts) {
		bits <<= 1
	}
	x.keyBits, x.keyMask = make([]uint64, bits/64), bits-1
	var all []keyed
	x.keyStart = make([]int32, bits+1)
	for id, t := range x.texts {
		if len(t) < keyLen {
			x.short = append(x.short, int32(id))
			continue
		}
		best, at := keyHash(t, 0), 0
		for i := 1; i+keyLen <= len(t); i++ {
			if h := keyHash(t, i); freq[slot(h)] < freq[slot(best)] {
				best, at = h, i
			}
		}
		all = append(all, keyed{key: best, id: int32(id), at: int32(at), n: int32(len(t)),
			head: head8(t, 0), tail: head8(t, len(t)-keyLen)})
		b := best & x.keyMask
		x.keyBits[b/64] |= 1 << (b % 64)
		x.keyStart[b+1]++
	}
	// keyed by the bits of their key, in the order of their ids within.
	for b := range bits {
		x.keyStart[b+1] += x.keyStart[b]
	}
	x.keyed = make([]keyed, len(all))
	next := slices.Clone(x.keyStart[:bits])
	for _, k := range all {
		b := k.key & x.keyMask
		x.keyed[next[b]] = k
		next[b]++
	}
}

// keyFreqSlots is the largest size of keyArtifacts' table (a power of
// two).
const keyFreqSlots = 1 << 20
