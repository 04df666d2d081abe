//go:build hostile

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileChatLines runs the built command on OpenAI chat JSON Lines
// of short lines, from 1,500 pairs (past what format detection reads,
// and past the read buffer's first fill) to a million (65 MB): every
// command reads every message, strictly and leniently, none skipped.
func TestHostileChatLines(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	for _, pairs := range []int{1_000, 1_500, 100_000, 1_000_000} {
		path := filepath.Join(dir, fmt.Sprintf("chat%d.jsonl", pairs))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := range pairs {
			fmt.Fprintf(w, `{"role":"user","content":"a%d"}`+"\n"+`{"role":"assistant","content":"b%d"}`+"\n", i, i)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for _, args := range [][]string{
			{"inspect", "--json"},
			{"inspect", "--json", "--lenient"},
			{"inspect", "--json", "--format", "openai-chat"},
			{"cost", "--policy", "none"},
			{"replay", "--policy", "none"},
		} {
			name := fmt.Sprintf("%d pairs, %s", pairs, strings.Join(args, " "))
			var out strings.Builder
			code, took, rss := launch(t, &out, bin, append(args, path)...)
			fmt.Printf("%-48s %6.2fs %6d MB exit %d\n", name, took.Seconds(), rss>>10, code)
			if code != 0 {
				t.Errorf("%s: exit %d: %.300s", name, code, out.String())
				continue
			}
			if args[0] != "inspect" {
				continue
			}
			var got struct {
				Transcripts []struct {
					Messages   int `json:"messages"`
					BadRecords int `json:"bad_records"`
				} `json:"transcripts"`
			}
			if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if len(got.Transcripts) != 1 || got.Transcripts[0].Messages != 2*pairs || got.Transcripts[0].BadRecords != 0 {
				t.Errorf("%s: read %+v, want one transcript of %d messages, none malformed", name, got.Transcripts, 2*pairs)
			}
		}
	}
}
