package summarize

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCacheOnlyItsOwn: a symbolic link or a pipe where the cache keeps a
// folder or an entry is an error naming it, never followed, read or
// changed; a cache folder that is itself a link (the user's choice) is
// used.
func TestCacheOnlyItsOwn(t *testing.T) {
	r := Result{Text: "summary", Model: "m"}
	const key = "ab0123"
	// get runs c.Get with a bound: a pipe opened for reading waits for a
	// writer.
	get := func(t *testing.T, c *Cache) (bool, error) {
		t.Helper()
		type got struct {
			ok  bool
			err error
		}
		done := make(chan got, 1)
		go func() {
			_, ok, err := c.Get(key)
			done <- got{ok, err}
		}()
		select {
		case g := <-done:
			return g.ok, g.err
		case <-time.After(5 * time.Second):
			t.Fatal("Get still waiting after 5 s")
			return false, nil
		}
	}
	t.Run("linked subfolder", func(t *testing.T) {
		root := t.TempDir()
		c := &Cache{Dir: filepath.Join(root, "cache")}
		other := filepath.Join(root, "elsewhere")
		if err := os.MkdirAll(filepath.Join(c.Dir, "summaries"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(other, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(other, filepath.Join(c.Dir, "summaries", "ab")); err != nil {
			t.Fatal(err)
		}
		if err := c.Put(key, r); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("Put through a linked folder: %v, want an error naming the link", err)
		}
		if fi, err := os.Stat(other); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("the link's target: %v, %v; want mode 0755 kept", fi.Mode(), err)
		}
		if left, _ := os.ReadDir(other); len(left) > 0 {
			t.Errorf("%d files written through the link", len(left))
		}
		if _, err := get(t, c); err == nil {
			t.Error("Get through a linked folder: no error")
		}
	})
	t.Run("linked entry", func(t *testing.T) {
		root := t.TempDir()
		good := &Cache{Dir: filepath.Join(root, "good")}
		if err := good.Put(key, r); err != nil {
			t.Fatal(err)
		}
		c := &Cache{Dir: filepath.Join(root, "cache")}
		if err := os.MkdirAll(filepath.Dir(c.path(key)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(good.path(key), c.path(key)); err != nil {
			t.Fatal(err)
		}
		if ok, err := get(t, c); ok || err == nil {
			t.Errorf("Get of a linked entry: served %v, error %v; want an error", ok, err)
		}
	})
	t.Run("pipe entry", func(t *testing.T) {
		c := &Cache{Dir: filepath.Join(t.TempDir(), "cache")}
		if err := os.MkdirAll(filepath.Dir(c.path(key)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(c.path(key), 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
		if ok, err := get(t, c); ok || err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Get of a pipe: served %v, error %v; want an error", ok, err)
		}
	})
	t.Run("linked cache folder", func(t *testing.T) {
		root := t.TempDir()
		target := filepath.Join(root, "real")
		if err := os.Mkdir(target, 0o700); err != nil {
			t.Fatal(err)
		}
		c := &Cache{Dir: filepath.Join(root, "cache")}
		if err := os.Symlink(target, c.Dir); err != nil {
			t.Fatal(err)
		}
		if err := c.Put(key, r); err != nil {
			t.Fatal(err)
		}
		if ok, err := get(t, c); !ok || err != nil {
			t.Errorf("Get under a linked cache folder: %v, %v; want a hit", ok, err)
		}
	})
}
