package main

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestTemplateByName: --template finds each named prompt, and an unknown
// name is refused with the known ones listed.
func TestTemplateByName(t *testing.T) {
	for _, want := range summaryTemplates {
		if got, err := templateByName(want.Name); err != nil || got != want {
			t.Errorf("templateByName(%q) = %v, %v", want.Name, got, err)
		}
	}
	if _, err := templateByName("nope"); err == nil || !strings.Contains(err.Error(), "aidf, two-tier, cross-turn, generic") {
		t.Errorf("unknown template: %v", err)
	}
}

// TestParseFormat: --format takes a format's name, and an unknown one is
// refused with the known ones listed.
func TestParseFormat(t *testing.T) {
	if f, err := parseFormat("gemini-cli"); err != nil || f != transcript.FormatGeminiCLI {
		t.Errorf("parseFormat(gemini-cli) = %q, %v", f, err)
	}
	if _, err := parseFormat("gemini"); err == nil || !strings.Contains(err.Error(), "claude-code, codex") {
		t.Errorf("parseFormat(gemini): %v, want the known formats listed", err)
	}
}
