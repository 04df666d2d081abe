package replay

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// Retention measures what a policy keeps, as a proxy nobody can compute
// offline exactly (what the model would have needed is unknowable): at
// each call, the share of the artifacts seen so far in the full history
// that are still present in the context sent, summary text included.
//
// Artifacts are the things an agent's later work refers back to:
//
//   - file paths (in tool inputs and in text),
//   - shell commands (the command of a tool call),
//   - URLs,
//   - error lines (a line of a failed tool result, or a line with
//     "error", "exception", "traceback" or "failed" in a tool result),
//   - tool calls, as the tool name with its key argument (path, command,
//     pattern, url or query).
//
// An artifact is present when its text appears in a message sent — an
// original, a truncated copy or a summary. A run's retention is the mean
// over calls; 1 means nothing the history mentioned was lost.
func artifacts(m *transcript.Message) []string {
	set := map[string]bool{}
	add := func(kind, s string) {
		s = strings.TrimSpace(s)
		if len(s) >= 3 && len(s) <= 300 {
			set[kind+"\x00"+s] = true
		}
	}
	for _, b := range m.Blocks {
		switch b.Type {
		case transcript.BlockToolUse:
			var in map[string]any
			_ = json.Unmarshal(b.Input, &in)
			key := ""
			for _, k := range []string{"file_path", "path", "command", "cmd", "pattern", "url", "query"} {
				if v, ok := in[k].(string); ok && v != "" {
					key = v
					break
				}
			}
			if key != "" {
				add("tool", b.Name+" "+key)
			}
			for _, k := range []string{"command", "cmd"} {
				if v, ok := in[k].(string); ok {
					add("command", v)
				}
			}
			for _, k := range []string{"file_path", "path", "notebook_path"} {
				if v, ok := in[k].(string); ok {
					add("path", v)
				}
			}
		case transcript.BlockToolResult:
			for _, line := range strings.Split(b.Text, "\n") {
				l := strings.ToLower(line)
				if b.IsError || strings.Contains(l, "error") || strings.Contains(l, "exception") || strings.Contains(l, "traceback") || strings.Contains(l, "failed") {
					if len(strings.TrimSpace(line)) >= 8 {
						add("error", line)
					}
				}
			}
			textArtifacts(b.Text, add)
		case transcript.BlockText, transcript.BlockThinking:
			textArtifacts(b.Text, add)
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var (
	urlRe  = regexp.MustCompile(`https?://[^\s"'<>)\]]+`)
	pathRe = regexp.MustCompile(`(?:^|[\s"'(\x60])((?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)+)`)
)

func textArtifacts(s string, add func(kind, s string)) {
	for _, u := range urlRe.FindAllString(s, -1) {
		add("url", strings.TrimRight(u, ".,;:"))
	}
	for _, m := range pathRe.FindAllStringSubmatch(s, -1) {
		add("path", strings.TrimRight(m[1], ".,;:"))
	}
}

// An ArtifactCache remembers the artifacts of transcript messages, keyed
// by message identity, so that each message is scanned once however many
// policies and sweep points replay it (as [estimate.Cache] does for
// counts). Artifacts are interned: a run works with small integers, not
// strings. It is safe for concurrent use.
type ArtifactCache struct {
	mu    sync.RWMutex
	of    map[*transcript.Message][]int32
	ids   map[string]int32
	names []string // names[id]: kind, NUL, text
}

// NewArtifactCache returns an empty cache.
func NewArtifactCache() *ArtifactCache {
	return &ArtifactCache{of: map[*transcript.Message][]int32{}, ids: map[string]int32{}}
}

// artifacts returns the ids of m's artifacts; keep caches m's, which a
// run does for the transcript's own messages and not for its truncated
// copies, made afresh by every run.
func (c *ArtifactCache) artifacts(m *transcript.Message, keep bool) []int32 {
	c.mu.RLock()
	a, ok := c.of[m]
	c.mu.RUnlock()
	if ok {
		return a
	}
	names := artifacts(m)
	a = make([]int32, len(names))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, n := range names {
		id, ok := c.ids[n]
		if !ok {
			id = int32(len(c.names))
			c.ids[n] = id
			c.names = append(c.names, n)
		}
		a[i] = id
	}
	if keep {
		c.of[m] = a
	}
	return a
}

// text returns the text of artifact id, without its kind.
func (c *ArtifactCache) text(id int32) string {
	c.mu.RLock()
	n := c.names[id]
	c.mu.RUnlock()
	return n[strings.IndexByte(n, 0)+1:]
}

// retention tracks one run's artifacts. seen and mark grow as ids appear.
type retention struct {
	t        *transcript.Transcript
	of       *ArtifactCache
	cut      map[*transcript.Message][]int32 // artifacts of truncated copies
	seen     []bool                          // seen[id]: in a message appended so far
	seenList []int32                         // the ids seen, in order
	mark     []uint32                        // mark[id] == gen: present at this step
	gen      uint32
	appended int
	// sumText is the summary text of the last step that sent one, and
	// seenList[:sumChecked] have been searched for in it: inSum[id] says
	// whether artifact id was found, sumCount how many were. A summary is
	// searched once per artifact, not at every step.
	sumText    string
	sumChecked int
	inSum      []bool
	sumCount   int
	// byIndex[i] holds the artifacts of message i once fetched from the
	// shared cache (never nil then), so a step reads them without locking.
	byIndex [][]int32
}

func newRetention(t *transcript.Transcript, of *ArtifactCache) *retention {
	if of == nil {
		of = NewArtifactCache()
	}
	return &retention{t: t, of: of, cut: map[*transcript.Message][]int32{},
		byIndex: make([][]int32, len(t.Messages))}
}

// message returns the artifacts of the transcript's message i.
func (r *retention) message(i int) []int32 {
	if r.byIndex[i] == nil {
		r.byIndex[i] = r.of.artifacts(&r.t.Messages[i], true)
	}
	return r.byIndex[i]
}

func grow[T any](s []T, id int32) []T {
	if int(id) < len(s) {
		return s
	}
	return append(s, make([]T, int(id)+1-len(s))...)
}

// step returns the retention of a context, after the messages before next
// have been seen: the share of the seen artifacts the context holds. It
// costs the artifacts of the context, with no hashing, plus, when the
// context holds a summary, a search of the summary for each seen artifact
// not otherwise present.
func (r *retention) step(next int, sent []window.Item) float64 {
	for ; r.appended < next; r.appended++ {
		for _, id := range r.message(r.appended) {
			r.seen = grow(r.seen, id)
			if !r.seen[id] {
				r.seen[id] = true
				r.seenList = append(r.seenList, id)
			}
		}
	}
	if len(r.seenList) == 0 {
		return 1
	}
	// A summary paraphrases: an artifact is in it when its text is. Each
	// seen artifact is searched once per summary text, and the count of
	// those found is kept, so a step does not walk every artifact seen.
	var synthetic []string
	for _, it := range sent {
		if it.Index() < 0 {
			synthetic = append(synthetic, it.Msg.Text())
		}
	}
	useSum := len(synthetic) > 0
	if useSum {
		if text := strings.Join(synthetic, "\n"); text != r.sumText {
			r.sumText, r.sumChecked, r.sumCount = text, 0, 0
		}
		for ; r.sumChecked < len(r.seenList); r.sumChecked++ {
			id := r.seenList[r.sumChecked]
			r.inSum = grow(r.inSum, id)
			r.inSum[id] = strings.Contains(r.sumText, r.of.text(id))
			if r.inSum[id] {
				r.sumCount++
			}
		}
	}
	r.gen++
	n := 0
	present := func(ids []int32) {
		for _, id := range ids {
			r.mark = grow(r.mark, id)
			if r.mark[id] == r.gen {
				continue
			}
			r.mark[id] = r.gen
			if int(id) < len(r.seen) && r.seen[id] && !(useSum && r.inSum[id]) {
				n++ // artifacts also in the summary are counted with it
			}
		}
	}
	for _, it := range sent {
		switch i := it.Index(); {
		case i >= 0 && !it.Truncated:
			present(r.message(i))
		case i >= 0:
			a, ok := r.cut[it.Msg]
			if !ok {
				a = r.of.artifacts(it.Msg, false)
				r.cut[it.Msg] = a
			}
			present(a)
		}
	}
	if useSum {
		n += r.sumCount
	}
	return float64(n) / float64(len(r.seenList))
}
