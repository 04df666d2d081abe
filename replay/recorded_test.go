package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestRecordedKeepsInvariants: what the agent sent (recorded) and
// sending everything (none) break no invariant on any transcript of the
// corpus or of transcript/testdata: a violation there is ctxbench's
// reading of the file, not the agent's. codex-compacted-twice.jsonl holds
// two compactions with no call between.
func TestRecordedKeepsInvariants(t *testing.T) {
	policies := labeled(t, []string{"none", "recorded"})
	read := 0
	for _, dir := range []string{"../fixtures/corpus", "../transcript/testdata"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(filepath.Base(path), ".json") || strings.Contains(path, "foreign") {
				return err
			}
			ts, err := transcript.ReadFile(path, transcript.Options{Lenient: true})
			if err != nil {
				return nil // not a transcript: the readers' tests say which
			}
			for _, tr := range ts {
				read++
				for _, p := range policies {
					run, err := Replay(context.Background(), tr, p.Policy, Options{})
					if err != nil {
						t.Errorf("%s, %s: %v", path, p.Label, err)
						continue
					}
					for _, v := range run.Violations {
						t.Errorf("%s (%s), %s: %v", path, tr.ID, p.Label, v)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if read < 40 {
		t.Errorf("only %d transcripts read: the corpus was not found", read)
	}
}
