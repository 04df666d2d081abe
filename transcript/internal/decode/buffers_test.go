package decode

import (
	"testing"
)

// TestBufferPool: get gives the smallest array kept that holds more than
// it asks; put keeps the largest arrays up to the pool's bounds.
func TestBufferPool(t *testing.T) {
	p := bufferPool{max: 2, largest: 100}
	if b := p.Get(10); b != nil {
		t.Fatalf("an empty pool gave %d bytes", cap(b))
	}
	p.Put(make([]byte, 5, 50))
	p.Put(make([]byte, 0, 20))
	p.Put(make([]byte, 0, 200)) // too large: not kept
	p.Put(make([]byte, 0, 10))  // smaller than both: not kept
	if b := p.Get(20); cap(b) != 50 || len(b) != 0 {
		t.Fatalf("get(20) = len %d cap %d, want the 50", len(b), cap(b))
	}
	if b := p.Get(20); b != nil {
		t.Fatalf("get(20) = cap %d, want nil: the 20 holds 20 bytes, not more", cap(b))
	}
	if b := p.Get(19); cap(b) != 20 {
		t.Fatalf("get(19) = cap %d, want the 20", cap(b))
	}
}
