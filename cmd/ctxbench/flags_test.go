package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
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

// TestLoadTemplate: a prompt file replaces the template's prompt and keeps
// its output limit; a file that does not parse, or never uses the
// conversation, is refused.
func TestLoadTemplate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tm, err := loadTemplate(write("good.tmpl", "Sum up:\n{{.Conversation}}"), summarize.AIDF)
	if err != nil || tm.MaxTokens != 1024 || tm.Prompt != "Sum up:\n{{.Conversation}}" {
		t.Fatalf("loadTemplate: %v, %+v", err, tm)
	}
	if _, err := loadTemplate(write("bad.tmpl", "no placeholder"), summarize.AIDF); err == nil || !strings.Contains(err.Error(), "never uses {{.Conversation}}") {
		t.Errorf("a template without {{.Conversation}}: %v", err)
	}
	if _, err := loadTemplate(write("broken.tmpl", "{{.Conversation"), summarize.AIDF); err == nil {
		t.Error("a template that does not parse was accepted")
	}
	if _, err := loadTemplate(write("range.tmpl", "{{range 10}}{{end}}{{.Conversation}}"), summarize.Generic); err == nil || !strings.Contains(err.Error(), "cannot use range") {
		t.Errorf("range: %v, want it refused", err)
	}
}
