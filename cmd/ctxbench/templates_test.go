package main

import (
	"strings"
	"testing"
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
