package main

import (
	"os"
	"strings"
	"testing"
)

// TestSplice: make perf rewrites docs/performance.md between its figure
// markers only: the page's figures spliced back give the page, new
// figures change nothing outside the markers, and a page without them
// is refused rather than overwritten.
func TestSplice(t *testing.T) {
	b, err := os.ReadFile("../../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	head, rest, ok := strings.Cut(doc, beginFigures)
	if !ok {
		t.Fatalf("docs/performance.md has no %q", beginFigures)
	}
	figures, tail, ok := strings.Cut(rest, endFigures)
	if !ok {
		t.Fatalf("docs/performance.md has no %q", endFigures)
	}
	if got, err := splice(doc, figures); err != nil || got != doc {
		t.Errorf("its own figures spliced back: changed (%v)", err)
	}
	got, err := splice(doc, "| new |\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := head + beginFigures + "| new |\n" + endFigures + tail; got != want {
		t.Errorf("new figures: the page changed outside its markers")
	}
	for _, bad := range []string{"# Performance\n", head + beginFigures + figures} {
		if _, err := splice(bad, "x"); err == nil {
			t.Errorf("a page missing a marker was spliced")
		}
	}
}
