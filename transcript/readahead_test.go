package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReadAheadPastABusyFn: while fn holds the first file, the files after
// it are read, more of them than there are workers, as long as the budget
// holds them; the bytes held come back as fn is done with each.
func TestReadAheadPastABusyFn(t *testing.T) {
	dir := t.TempDir()
	var jobs []input
	for i := range 12 {
		p := filepath.Join(dir, fmt.Sprintf("%02d.jsonl", i))
		line := fmt.Sprintf(`{"type":"user","sessionId":"s%d","message":{"role":"user","content":"hello"}}`+"\n", i)
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, input{path: p, size: int64(len(line))})
	}
	r := newReadAhead[struct{}](jobs, Options{}, nil, nil)
	defer r.stop()
	if res := r.result(0); res.err != nil || len(res.ts) != 1 {
		t.Fatalf("file 0: %v", res.err)
	}
	// File 0 is not done: the last file is read all the same.
	select {
	case res := <-r.results[len(jobs)-1]:
		if res.err != nil || len(res.ts) != 1 || res.ts[0].ID != "s11" {
			t.Fatalf("last file: %v %v", res.err, res.ts)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the last file was not read while fn held the first")
	}
	for i := 1; i < len(jobs)-1; i++ {
		if res := r.result(i); res.err != nil {
			t.Fatalf("file %d: %v", i, res.err)
		}
	}
	for i := range jobs {
		r.done(i)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bytes != 0 || r.held != 0 || r.parsing != 0 {
		t.Errorf("after every file is done: %d bytes, %d held, %d being read", r.bytes, r.held, r.parsing)
	}
}

func TestReadBudget(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		workers int
		largest int64
		want    int64
	}{
		{2, 3 * mib, 16 * mib},   // small files: 16 MiB of them
		{2, 10 * mib, 20 * mib},  // a file per worker
		{8, 10 * mib, 64 * mib},  // at most 64 MiB
		{2, 200 * mib, 64 * mib}, // a larger file is read alone
		{1, 0, 16 * mib},
	} {
		if got := readBudget(c.workers, c.largest); got != c.want {
			t.Errorf("readBudget(%d, %d MiB) = %d MiB, want %d", c.workers, c.largest/mib, got/mib, c.want/mib)
		}
	}
}
