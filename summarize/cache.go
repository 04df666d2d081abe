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

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/transcript"
)

// Cache stores provider responses on disk, keyed by a hash of the
// provider, model, base URL and request body, so that a re-run makes no
// request and costs nothing. Entries are written atomically (a temporary
// file renamed into place) with mode 0600 in 0700 directories: prompts can
// hold user data. API keys are never part of a key or an entry.
type Cache struct {
	Dir string
}

// DefaultCacheDir returns ctxbench's directory in the user's cache
// directory.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ctxbench"), nil
}

// Key returns the cache key of a request.
func (c *Cache) Key(provider, model, baseURL string, body []byte) string {
	h := sha256.New()
	for _, s := range []string{provider, model, baseURL} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.Dir, "summaries", key[:2], key+".json")
}

// entry is what a cache file holds.
type entry struct {
	Text  string           `json:"text"`
	Model string           `json:"model"`
	Usage transcript.Usage `json:"usage"`
}

// Get returns the cached result for key, if there is one.
func (c *Cache) Get(key string) (Result, bool, error) {
	b, err := limit.ReadFile(c.path(key), limit.Prices)
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

// Put stores r under key.
func (c *Cache) Put(key string, r Result) error {
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("writing the response cache: %w", err)
	}
	for d := filepath.Dir(p); d != c.Dir && len(d) > len(c.Dir); d = filepath.Dir(d) {
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
