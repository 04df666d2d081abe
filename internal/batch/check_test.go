package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/suitecheck"
)

// TestUnreadableSuiteFile: a file of the suite that holds no transcript
// (a Git LFS pointer, an empty file) is an error naming it, never a case
// dropped: the run that would have passed with the readable file alone
// fails, and nothing is returned to update a baseline with.
func TestUnreadableSuiteFile(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("../../fixtures/corpus/spotter/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"a.jsonl":     string(good),
		"lfs.jsonl":   "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n",
		"empty.jsonl": "",
	} {
		if err := os.WriteFile(filepath.Join(sessions, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfgPath := filepath.Join(dir, "ctxbench.yaml")
	if err := os.WriteFile(cfgPath, []byte("transcripts: [sessions]\npolicies: [none]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := suitecheck.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(context.Background(), cfg, CheckOptions{})
	if err == nil || res != nil || !strings.Contains(err.Error(), "sessions/lfs.jsonl") || !strings.Contains(err.Error(), "sessions/empty.jsonl") {
		t.Errorf("result %v, error %v; want an error naming both files", res, err)
	}
}
