package opencode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
)

// TestDatabaseUnregistered: without package opencodedb, whose reader
// links SQLite, a database is no transcript, its error naming the
// import, and a storage directory beside one is not passed over.
func TestDatabaseUnregistered(t *testing.T) {
	if readDB != nil {
		t.Fatal("a database reader is registered without transcript/opencodedb imported")
	}
	ts, err := Read(&decode.Source{File: "opencode.db", Db: "opencode.db"})
	if err == nil || !strings.Contains(err.Error(), `importing "github.com/ctxbench/ctxbench/transcript/opencodedb"`) || !strings.HasPrefix(err.Error(), "opencode.db: ") {
		t.Fatalf("Read of a database = %v, %v; want an error naming the import", ts, err)
	}
	// A walk passes the database over and reads the storage beside it.
	var nt *decode.NotTranscriptError
	if !errors.As(err, &nt) {
		t.Errorf("Read of a database: %T, want a NotTranscriptError", err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "storage"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "opencode.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if db := DBBeside(filepath.Join(dir, "storage")); db != "" {
		t.Errorf("DBBeside = %q with no database reader; want \"\": the storage is read", db)
	}
}

// TestOpencodeUsage: the AI SDK providers that count reasoning apart
// from output, and a step whose reasoning exceeds its output.
func TestOpencodeUsage(t *testing.T) {
	for _, c := range []struct {
		provider, model       string
		output, reasoning, to int64
	}{
		{"openai", "gpt-5", 900, 600, 900},
		{"openrouter", "openai/gpt-5", 900, 600, 900},
		{"google", "gemini-2.5-pro", 900, 600, 1500},
		{"openrouter", "google/gemini-2.5-pro", 900, 600, 1500},
		{"opencode", "grok-code", 12, 266, 278},
		{"xai", "grok-4", 900, 600, 1500},
		{"anthropic", "claude-sonnet-4-5", 900, 0, 900},
		{"github-copilot", "gpt-5", 100, 300, 400},
	} {
		k := opencodeTokens{Output: c.output, Reasoning: c.reasoning}
		if u := k.usage(c.provider, c.model); u.Output != c.to || u.Reasoning != c.reasoning {
			t.Errorf("%s/%s output %d reasoning %d: %+v, want output %d", c.provider, c.model, c.output, c.reasoning, u, c.to)
		}
	}
}
