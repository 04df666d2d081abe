package decode

import (
	"slices"
	"sync"
)

// ReadBuffers holds the arrays files were read into, for the files read
// after them: Parse keeps nothing of its input (TestFastDecodeReadsTheSame),
// so a file's array is free once its transcripts are made. Reusing them
// spares allocating, clearing and returning to the system an array per
// file. Only arrays of up to 4 MiB are kept, four at most: many small
// files gain most, and what is kept stays small beside the memory bound
// (3× the largest file + 100 MB).
var ReadBuffers = bufferPool{max: 4, largest: 4 << 20}

// A bufferPool keeps up to max arrays of at most largest bytes each.
type bufferPool struct {
	mu      sync.Mutex
	free    [][]byte
	max     int
	largest int
}

// Get returns the smallest array kept that holds more than size bytes,
// or nil.
func (p *bufferPool) Get(size int64) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	best := -1
	for i, b := range p.free {
		if int64(cap(b)) > size && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	b := p.free[best]
	p.free = slices.Delete(p.free, best, best+1)
	return b
}

// Put keeps b for a later get, in place of the smallest kept when the
// pool is full and b is larger.
func (p *bufferPool) Put(b []byte) {
	if cap(b) == 0 || cap(b) > p.largest {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < p.max {
		p.free = append(p.free, b[:0])
		return
	}
	small := 0
	for i := range p.free {
		if cap(p.free[i]) < cap(p.free[small]) {
			small = i
		}
	}
	if cap(b) > cap(p.free[small]) {
		p.free[small] = b[:0]
	}
}
