package prefix

import (
	"fmt"
	"testing"
	"time"
)

// build returns a request led by a constant of 10 tokens, keeping kept
// items of prev and appending keys, each of 2 tokens.
func build(prev Request, kept int, keys ...string) Request {
	r := prev.Keep(kept, kept+len(keys), 10, 10+2*(kept+len(keys)))
	for _, k := range keys {
		r.Append(k, 2)
	}
	return r
}

// TestSend: a request reads the longest prefix it shares with a live
// entry, and nothing once that entry expired.
func TestSend(t *testing.T) {
	c := New(5 * time.Minute)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := build(Request{}, 0, "a", "b", "c")
	if read, shared := c.Send(a, t0, 0); read != 0 || shared != 0 {
		t.Errorf("first: read %d, shared %d; want 0, 0", read, shared)
	}
	b := build(a, 2, "x")
	if read, shared := c.Send(b, t0.Add(time.Minute), 2); read != 14 || shared != 3 {
		t.Errorf("kept 2 of 3: read %d, shared %d; want 14 (10 + 2·2), 3", read, shared)
	}
	if b.Positions() != 4 || b.Items() != 3 || b.Key(0) != "#constant" || b.Key(3) != "x" || b.Tokens(4) != 16 || b.Total() != 16 {
		t.Errorf("request: %d positions, %d items, keys %q %q, %d tokens, total %d", b.Positions(), b.Items(), b.Key(0), b.Key(3), b.Tokens(4), b.Total())
	}
	if read, _ := c.Send(build(b, 3, "y"), t0.Add(time.Hour), 3); read != 0 {
		t.Errorf("after the entries expired: read %d, want 0", read)
	}
}

// TestKeepAcrossChunks: a request kept past a chunk's end and edited
// there holds the same keys and counts as one built afresh, and leaves
// the request it kept from as it was.
func TestKeepAcrossChunks(t *testing.T) {
	var keys []string
	for i := range ChunkSize + 10 {
		keys = append(keys, fmt.Sprint(i))
	}
	long := build(Request{}, 0, keys...)
	cut := build(long, ChunkSize+3, "new")
	fresh := build(Request{}, 0, append(keys[:ChunkSize+3:ChunkSize+3], "new")...)
	for j := range fresh.Positions() {
		if cut.Key(j) != fresh.Key(j) || cut.Tokens(j+1) != fresh.Tokens(j+1) {
			t.Fatalf("position %d: %q %d tokens, want %q %d", j, cut.Key(j), cut.Tokens(j+1), fresh.Key(j), fresh.Tokens(j+1))
		}
	}
	if long.Key(ChunkSize+4) != fmt.Sprint(ChunkSize+3) || long.Items() != ChunkSize+10 {
		t.Errorf("the kept request changed: key %q, %d items", long.Key(ChunkSize+4), long.Items())
	}
}
