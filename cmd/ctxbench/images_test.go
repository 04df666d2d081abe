package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestImagesCountByRule: a screenshot in a tool result (Claude Code's
// Read of a PNG; a Codex view_image output) counts by its provider's
// image rule in what replay measures, never as its base64 text: the
// none policy peaks at the text plus the rule's tokens, and the cost
// model fitted on the first call projects the screenshot's call within
// 2% of its billed prompt. Before, the peaks were 50,487 and 14,137
// tokens, and the Claude Code call's projection +1,500%.
func TestImagesCountByRule(t *testing.T) {
	for _, tc := range []struct {
		file    string
		maxPeak int // the text's tokens plus the image's by its rule
	}{
		{"claude-code-screenshot.jsonl", 416/2 + 1366},
		{"codex-view-image.jsonl", 100 + 910},
	} {
		path := "../../transcript/testdata/" + tc.file
		stdout, stderr, code := ctxbench("", "replay", "--policy", "none", "--json", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, code, stderr)
		}
		var doc struct {
			Transcripts []struct {
				Runs []struct {
					Summary struct {
						Peak map[string]int `json:"peak_tokens"`
					} `json:"summary"`
				} `json:"runs"`
			} `json:"transcripts"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		peak := doc.Transcripts[0].Runs[0].Summary.Peak["cl100k_base"]
		if peak > tc.maxPeak || peak < tc.maxPeak/2 {
			t.Errorf("%s: none peaks at %d tokens, want the text and the image by its rule, at most %d", tc.file, peak, tc.maxPeak)
		}

		dir := filepath.Join(t.TempDir(), "rows")
		if _, stderr, code := ctxbench("", "cost", "--fit-calls", "1", "--policy", "recorded", "--jsonl", dir, path); code != 0 {
			t.Fatalf("%s: cost: exit %d: %s", tc.file, code, stderr)
		}
		projected := maxPrompt(t, filepath.Join(dir, "calls.jsonl"))
		billed := int64(0)
		ts, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ts[0].Messages {
			if m.Usage != nil {
				billed = max(billed, m.Usage.Prompt())
			}
		}
		if d := float64(projected-billed) / float64(billed); d > 0.02 || d < -0.02 {
			t.Errorf("%s: largest projected prompt %d tokens, billed %d (%+.1f%%), want within 2%%", tc.file, projected, billed, 100*d)
		}
	}
}

// maxPrompt returns the largest prompt (cache read + write + uncached)
// of a --jsonl calls file.
func maxPrompt(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var most int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c struct {
			Read     int64 `json:"cache_read_tokens"`
			Write    int64 `json:"cache_write_tokens"`
			Uncached int64 `json:"uncached_input_tokens"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		most = max(most, c.Read+c.Write+c.Uncached)
	}
	return most
}
