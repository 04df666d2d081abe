package main

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/transcript"
)

// TestSamples: the samples read are every transcript fixtures embeds, each
// named with the prefix, and they cover the formats the samples promise.
func TestSamples(t *testing.T) {
	var embedded []string
	err := fs.WalkDir(fixtures.Samples(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(path.Base(p), "LICENSE") && p != "MANIFEST.md" {
			embedded = append(embedded, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(slices.Values(sampleFiles)), embedded; !slices.Equal(got, want) {
		t.Errorf("sampleFiles %q, fixtures embeds %q", got, want)
	}
	formats := map[transcript.Format]int{}
	err = readSamples(transcript.Options{}, func(tr *transcript.Transcript) error {
		if !strings.HasPrefix(tr.File, samplePrefix) {
			t.Errorf("sample %s lacks the %s prefix", tr.File, samplePrefix)
		}
		if len(tr.Messages) == 0 || tr.Calls == 0 {
			t.Errorf("sample %s: %d messages, %d calls", tr.File, len(tr.Messages), tr.Calls)
		}
		formats[tr.Format]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []transcript.Format{transcript.FormatClaudeCode, transcript.FormatCodex, transcript.FormatOpenAIChat, transcript.FormatGeminiCLI, transcript.FormatOpenHands, transcript.FormatAnthropic} {
		if formats[f] == 0 {
			t.Errorf("no embedded sample of %s", f)
		}
	}
}
