package replay

import (
	"runtime"
	"sync"

	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/replay/internal/keymatch"
)

// A keyIndex says which keys each message of a transcript holds (its
// [probe.Text]), of the keys a probe of it can have: a run counts, for
// each key, the messages in its context that hold it, as they come and
// go, and a step then knows whether a key is sent without reading the
// context.
type keyIndex struct {
	m  *keymatch.Matcher
	of [][]int32 // by message: the keys it holds, each once
}

// newKeyIndex indexes the keys of x's transcript, reading each message's
// text once, the messages shared among a goroutine per CPU.
func newKeyIndex(x *probeIndex) *keyIndex {
	t := x.t
	keys := x.ex.Keys()
	norm := make([]string, len(keys))
	for i, k := range keys {
		norm[i] = probe.Normalize(k)
	}
	ki := &keyIndex{m: keymatch.New(norm), of: make([][]int32, len(t.Messages))}
	workers := min(runtime.GOMAXPROCS(0), 1+len(t.Messages)/256)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			seenAt := make([]int32, ki.m.Len())
			for i := w; i < len(t.Messages); i += workers {
				stamp := int32(i) + 1
				var ids []int32
				ki.m.Scan(probe.Text(&t.Messages[i]), func(id int32) {
					if seenAt[id] != stamp {
						seenAt[id] = stamp
						ids = append(ids, id)
					}
				})
				ki.of[i] = ids
			}
		})
	}
	wg.Wait()
	return ki
}

// id returns key's id, and whether it is indexed.
func (ki *keyIndex) id(key string) (int32, bool) {
	return ki.m.ID(key)
}

// keysOf returns the ids of the keys text holds, each once.
func (ki *keyIndex) keysOf(text string) []int32 {
	var out []int32
	seen := map[int32]bool{}
	ki.m.Scan(text, func(id int32) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	})
	return out
}
