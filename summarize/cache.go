package summarize

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/transcript"
)

// diskCache stores provider responses on disk, keyed by a hash of the
// provider, model, base URL and request body, so that a re-run makes no
// request and costs nothing. Entries are written atomically (a temporary
// file renamed into place) with mode 0600 in 0700 directories: prompts can
// hold user data. API keys are never part of a key or an entry.
type diskCache struct {
	Dir string
}

// Key returns the cache key of a request.
func (c *diskCache) Key(provider, model, baseURL string, body []byte) string {
	h := sha256.New()
	for _, s := range []string{provider, model, baseURL} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func (c *diskCache) path(key string) string {
	return filepath.Join(c.Dir, "summaries", key[:2], key+".json")
}

// entry is what a cache file holds.
type entry struct {
	Text  string           `json:"text"`
	Model string           `json:"model"`
	Usage transcript.Usage `json:"usage"`
}

// Get returns the cached result for key, if there is one. The cache's
// folders and entries are ctxbench's own: a symbolic link or anything but
// a folder or regular file where one of them belongs is an error, never
// followed or read (a pipe there would hold the run forever).
func (c *diskCache) Get(key string) (Result, bool, error) {
	p := c.path(key)
	for _, d := range c.dirs(p) {
		ok, err := ownEntry(d, true)
		if err != nil {
			return Result{}, false, fmt.Errorf("reading the response cache: %w", err)
		}
		if !ok {
			return Result{}, false, nil
		}
	}
	ok, err := ownEntry(p, false)
	if err != nil {
		return Result{}, false, fmt.Errorf("reading the response cache: %w", err)
	}
	if !ok {
		return Result{}, false, nil
	}
	b, err := limit.ReadFile(p, limit.Prices)
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, fmt.Errorf("reading the response cache: %w", err)
	}
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		// A damaged entry is a miss; the next Put replaces it.
		return Result{}, false, nil
	}
	return Result{Text: e.Text, Model: e.Model, Usage: e.Usage}, true, nil
}

// dirs are the folders between the cache's own and the entry at p,
// outermost first.
func (c *diskCache) dirs(p string) []string {
	var ds []string
	for d := filepath.Dir(p); d != c.Dir && len(d) > len(c.Dir); d = filepath.Dir(d) {
		ds = append(ds, d)
	}
	slices.Reverse(ds)
	return ds
}

// ownEntry reports whether path exists, and is an error when it is not
// what the cache puts there (a folder if dir, else a regular file).
func ownEntry(path string, dir bool) (bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, fmt.Errorf("%s is a symbolic link; ctxbench keeps its responses only in files and folders it made", path)
	case dir && !fi.IsDir():
		return false, fmt.Errorf("%s is not a folder; ctxbench keeps its responses only in files and folders it made", path)
	case !dir && !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s is not a regular file; ctxbench keeps its responses only in files and folders it made", path)
	}
	return true, nil
}

// Put stores r under key.
func (c *diskCache) Put(key string, r Result) error {
	p := c.path(key)
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("writing the response cache: %w", err)
	}
	for _, d := range c.dirs(p) {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("writing the response cache: %w", err)
		}
		if _, err := ownEntry(d, true); err != nil {
			return fmt.Errorf("writing the response cache: %w", err)
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("writing the response cache: %w", err)
		}
	}
	b, err := json.Marshal(entry{Text: r.Text, Model: r.Model, Usage: r.Usage})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing the response cache: %w", err)
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("writing the response cache: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("writing the response cache: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the response cache: %w", err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		return fmt.Errorf("writing the response cache: %w", err)
	}
	return nil
}
