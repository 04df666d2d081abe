package summarize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/internal/scan"
)

// tailPrompt is a prompt as two-tier writes it: a header that names n,
// then a conversation of paragraphs that name files, the same whatever n.
func tailPrompt(n, files int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Summarize this:\n\nMessages being summarized: %d\nFiles read: /src/head%d.go\n\n**Conversation:**\n", n, n%3)
	for i := 0; b.Len() < 3*minTail; i++ {
		fmt.Fprintf(&b, "[USER %d]\nread /src/pkg/file%d.go and ./cmd/main_%d.ts, then /src/head0.go\n\n---\n\n", i+1, i%files, i%7)
	}
	return b.String()
}

// TestTailMemo holds what the memos give equal to measuring anew: the
// count of a prompt, and the files an extraction lists, for prompts
// whose tails repeat, change, or are not cut at a paragraph.
func TestTailMemo(t *testing.T) {
	texts := []string{tailPrompt(1, 5), tailPrompt(2, 5), tailPrompt(3, 5), tailPrompt(4, 80), tailPrompt(5, 80),
		"x" + tailPrompt(6, 5), strings.ReplaceAll(tailPrompt(7, 5), "\n[", "\n("), tailPrompt(8, 5)[1:], "short\n[a] /x/y.go"}
	for _, round := range []string{"cold", "warm"} {
		for i, s := range texts {
			if got, want := promptTokens(s, newParagraphCache()), counter().Count(s); got != want {
				t.Errorf("%s text %d: promptTokens = %d, Count = %d", round, i, got, want)
			}
			var got, want []string
			addTo := func(list *[]string) func(string) {
				seen := map[string]bool{}
				return func(f string) {
					if !seen[f] && len(*list) < maxFiles {
						seen[f] = true
						*list = append(*list, f)
					}
				}
			}
			textFiles(s, addTo(&got))
			scan.Files(s, addTo(&want))
			if len(want) == 0 {
				t.Fatalf("text %d: no files: the test finds nothing to compare", i)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s text %d: files (-scan +textFiles):\n%s", round, i, diff)
			}
		}
	}
	if _, _, ok := tailTokens.lookup(tailPrompt(9, 5)); !ok {
		t.Error("a prompt whose tail was measured is not found in the memo")
	}
}
