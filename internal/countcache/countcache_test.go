package countcache

import (
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// TestCacheLetsGo: a count is kept while its message lives and let go
// with it; the cache does not keep the message alive.
func TestCacheLetsGo(t *testing.T) {
	c := New()
	e := estimate.MustNew("chars4", estimate.OverheadNone)
	kept := &transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "kept, 20 characters."}}}
	gone := &transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "a summary made once"}}}
	want := e.CountMessage(gone)
	if n := c.Count(e, gone); n != want {
		t.Fatalf("count %d, want %d", n, want)
	}
	c.Count(e, kept)
	if n := c.Count(e, gone); n != want {
		t.Fatalf("count %d from the cache, want %d", n, want)
	}
	if hits, misses := c.Stats(); hits != 1 || misses != 2 {
		t.Fatalf("hits %d, misses %d; want 1 and 2", hits, misses)
	}
	w := weak.Make(gone)
	gone = nil
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		c.mu.RLock()
		n := len(c.counts)
		c.mu.RUnlock()
		if w.Value() == nil && n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s of collections: message collected %v, %d counts held (want 1)", w.Value() == nil, n)
		}
		time.Sleep(time.Millisecond)
	}
	if n := c.Count(e, kept); n != e.CountMessage(kept) {
		t.Errorf("the live message's count %d, want %d", n, e.CountMessage(kept))
	}
	if hits, _ := c.Stats(); hits != 2 {
		t.Errorf("the live message's count was not kept: %d hits, want 2", hits)
	}
	runtime.KeepAlive(kept)
}
