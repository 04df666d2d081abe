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
	t.Run("linked subfolder", cacheLinkedSubfolder)
	t.Run("linked entry", cacheLinkedEntry)
	t.Run("pipe entry", cachePipeEntry)
	t.Run("linked cache folder", cacheLinkedFolder)
}

// cacheKey and cacheResult are what the cases of TestCacheOnlyItsOwn
// store and look up.
const cacheKey = "ab0123"

var cacheResult = Result{Text: "summary", Model: "m"}

// getBounded runs c.Get(cacheKey) with a bound: a pipe opened for reading
// waits for a writer.
func getBounded(t *testing.T, c *diskCache) (bool, error) {
	t.Helper()
	type got struct {
		ok  bool
		err error
	}
	done := make(chan got, 1)
	go func() {
		_, ok, err := c.Get(cacheKey)
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

// cacheLinkedSubfolder: a folder of the cache that is a link is an error
// naming it; nothing is written through it.
func cacheLinkedSubfolder(t *testing.T) {
	root := t.TempDir()
	c := &diskCache{Dir: filepath.Join(root, "cache")}
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
	if err := c.Put(cacheKey, cacheResult); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Put through a linked folder: %v, want an error naming the link", err)
	}
	if fi, err := os.Stat(other); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the link's target: %v, %v; want mode 0755 kept", fi.Mode(), err)
	}
	if left, _ := os.ReadDir(other); len(left) > 0 {
		t.Errorf("%d files written through the link", len(left))
	}
	if _, err := getBounded(t, c); err == nil {
		t.Error("Get through a linked folder: no error")
	}
}

// cacheLinkedEntry: an entry that is a link is an error, never followed.
func cacheLinkedEntry(t *testing.T) {
	root := t.TempDir()
	good := &diskCache{Dir: filepath.Join(root, "good")}
	if err := good.Put(cacheKey, cacheResult); err != nil {
		t.Fatal(err)
	}
	c := &diskCache{Dir: filepath.Join(root, "cache")}
	if err := os.MkdirAll(filepath.Dir(c.path(cacheKey)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(good.path(cacheKey), c.path(cacheKey)); err != nil {
		t.Fatal(err)
	}
	if ok, err := getBounded(t, c); ok || err == nil {
		t.Errorf("Get of a linked entry: served %v, error %v; want an error", ok, err)
	}
}

// cachePipeEntry: an entry that is a named pipe is an error, never read.
func cachePipeEntry(t *testing.T) {
	c := &diskCache{Dir: filepath.Join(t.TempDir(), "cache")}
	if err := os.MkdirAll(filepath.Dir(c.path(cacheKey)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(c.path(cacheKey), 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if ok, err := getBounded(t, c); ok || err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Get of a pipe: served %v, error %v; want an error", ok, err)
	}
}

// cacheLinkedFolder: a cache folder that is itself a link (the user's choice) is used.
func cacheLinkedFolder(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "real")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	c := &diskCache{Dir: filepath.Join(root, "cache")}
	if err := os.Symlink(target, c.Dir); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(cacheKey, cacheResult); err != nil {
		t.Fatal(err)
	}
	if ok, err := getBounded(t, c); !ok || err != nil {
		t.Errorf("Get under a linked cache folder: %v, %v; want a hit", ok, err)
	}
}
