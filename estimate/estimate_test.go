package estimate_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/transcript"
)

// reference loads the texts and the counts OpenAI's tiktoken gave for them
// (scripts/reference-counts.sh writes both).
func reference(t testing.TB) (texts []string, counts map[string][]int) {
	t.Helper()
	raw, err := os.ReadFile("testdata/reference-texts.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &texts); err != nil {
		t.Fatal(err)
	}
	raw, err = os.ReadFile("testdata/reference-counts.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	counts = map[string][]int{}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		var c []int
		if err := json.Unmarshal(doc[enc], &c); err != nil {
			t.Fatal(err)
		}
		if len(c) != len(texts) {
			t.Fatalf("%s: %d counts for %d texts; run scripts/reference-counts.sh", enc, len(c), len(texts))
		}
		counts[enc] = c
	}
	return texts, counts
}

// TestReferenceCounts compares every count with OpenAI's tiktoken: hard
// cases (CJK, emoji, U+FEFF, whitespace runs, special-token text, 100,000
// repeated letters, a base64 blob) and real transcript text.
func TestReferenceCounts(t *testing.T) {
	texts, counts := reference(t)
	for enc, want := range counts {
		e := estimate.MustNew(enc, estimate.OverheadNone)
		bad := 0
		for i, text := range texts {
			if got := e.Count(text); got != want[i] {
				bad++
				if bad <= 5 {
					t.Errorf("%s: text %d (%.60q…, %d bytes): %d tokens, tiktoken says %d", enc, i, text, len(text), got, want[i])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d counts differ from tiktoken", enc, bad, len(texts))
		}
	}
}

// TestAgainstPkoukk compares with pkoukk/tiktoken-go's Encode, the library
// ctxbench's counter reimplements the merge of, on the reference texts
// short enough for its quadratic merge.
func TestAgainstPkoukk(t *testing.T) {
	estimate.OfflineTiktoken()
	texts, _ := reference(t)
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		ref, err := tiktoken.GetEncoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		e := estimate.MustNew(enc, estimate.OverheadNone)
		for i, text := range texts {
			if len(text) > 20_000 {
				continue
			}
			if got, want := e.Count(text), len(ref.Encode(text, nil, nil)); got != want {
				t.Errorf("%s: text %d (%.60q): %d tokens, pkoukk says %d", enc, i, text, got, want)
			}
		}
	}
}

// FuzzBPE is a differential test against pkoukk/tiktoken-go.
func FuzzBPE(f *testing.F) {
	texts, _ := reference(f)
	for _, s := range texts {
		if len(s) < 2000 {
			f.Add(s)
		}
	}
	estimate.OfflineTiktoken()
	refs := map[string]*tiktoken.Tiktoken{}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		r, err := tiktoken.GetEncoding(enc)
		if err != nil {
			f.Fatal(err)
		}
		refs[enc] = r
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4000 {
			return // the reference is quadratic
		}
		for enc, ref := range refs {
			want := len(ref.Encode(s, nil, nil))
			if got := estimate.MustNew(enc, estimate.OverheadNone).Count(s); got != want {
				t.Fatalf("%s(%q) = %d, pkoukk says %d", enc, s, got, want)
			}
		}
	})
}

// TestCookbook reproduces the OpenAI cookbook's chat token counts ("How to
// count tokens with tiktoken"): 129 for gpt-4 (cl100k_base) and 124 for
// gpt-4o (o200k_base).
func TestCookbook(t *testing.T) {
	sys := func(name, content string) transcript.Message {
		return transcript.Message{Role: transcript.RoleSystem, Name: name, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: content}}}
	}
	msgs := []transcript.Message{
		sys("", "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."),
		sys("example_user", "New synergies will help drive top-line growth."),
		sys("example_assistant", "Things working well together will increase revenue."),
		sys("example_user", "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."),
		sys("example_assistant", "Let's talk later when we're less busy about how to do better."),
		{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "This late pivot means we don't have time to boil the ocean for the client deliverable."}}},
	}
	for enc, want := range map[string]int{"cl100k_base": 129, "o200k_base": 124} {
		if got := estimate.PromptTokens(estimate.MustNew(enc, estimate.OverheadOpenAI), msgs); got != want {
			t.Errorf("%s with OpenAI overhead: %d tokens, the cookbook says %d", enc, got, want)
		}
		without := estimate.PromptTokens(estimate.MustNew(enc, estimate.OverheadNone), msgs)
		if without >= want-6*3 {
			t.Errorf("%s without overhead: %d tokens, want fewer than %d", enc, without, want-18)
		}
	}
}

func TestHeuristics(t *testing.T) {
	text := func(s string) transcript.Message {
		return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: s}}}
	}
	toolUse := transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{
		{Type: transcript.BlockText, Text: "ok"},
		{Type: transcript.BlockToolUse, ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
	}}
	result := transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{
		{Type: transcript.BlockToolResult, ID: "t1", Text: "a\n\"b\""},
	}}
	for _, tc := range []struct {
		est  string
		msg  transcript.Message
		want int
	}{
		// chars4: UTF-16 units / 4, rounded up; 🎉 is two units.
		{"chars4", text("abcd"), 1},
		{"chars4", text("abcde"), 2},
		{"chars4", text("日本語"), 1},
		{"chars4", text("🎉🎉"), 1},
		{"chars4", text("🎉🎉a"), 2},
		{"chars4", text(""), 0},
		// Structured content: JSON.stringify of the blocks (98 and 64
		// characters: see toolUseJSON and resultJSON).
		{"chars4", toolUse, 25},
		{"chars4", result, 16},
		// gemini (current): 0.25 per ASCII, 1.5 per other code point, floored.
		{"gemini", text("abcd"), 1},
		{"gemini", text("abc"), 0},
		{"gemini", text("日本語"), 4},
		{"gemini", text("🎉"), 1},
		{"gemini-2025-11", text("日本語"), 3},
		{"gemini-2026-05", text("abc"), 0},
		{"gemini-2026-05", text("abcdefghij日"), 4},
		// Above 100,000 UTF-16 units: length / 4.
		{"gemini", text(strings.Repeat("日", 100_001)), 25_000},
		{"gemini", text(strings.Repeat("日", 100_000)), 150_000},
		// A tool call: "ok" (0.5) + {"functionCall":{"name":"Bash","args":{"command":"ls"}}} (56/4).
		{"gemini", toolUse, 14},
		// A tool result: {"output":"a\n\"b\""} (20/4).
		{"gemini", result, 5},
	} {
		if got := estimate.MustNew(tc.est, estimate.OverheadNone).CountMessage(&tc.msg); got != tc.want {
			t.Errorf("%s(%.40q…): %d, want %d", tc.est, tc.msg.Blocks[0].Text, got, tc.want)
		}
	}
	const (
		toolUseJSON = `[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]`
		resultJSON  = `[{"type":"tool_result","tool_use_id":"t1","content":"a\n\"b\""}]`
	)
	if got := string(transcript.ContentJSON(toolUse.Blocks)); got != toolUseJSON || len(got) != 98 {
		t.Errorf("content JSON of the tool call: %s", got)
	}
	if got := string(transcript.ContentJSON(result.Blocks)); got != resultJSON || len(got) != 64 {
		t.Errorf("content JSON of the tool result: %s", got)
	}
}

func TestUnknownEstimator(t *testing.T) {
	_, err := estimate.New("chars3", estimate.OverheadNone)
	if err == nil || !strings.Contains(err.Error(), "chars4, gemini, gemini-2025-11, gemini-2026-05, cl100k_base, o200k_base") {
		t.Errorf("error %v, want the valid names listed", err)
	}
}

// TestOffline loads the encodings in a fresh process whose HTTP transport
// fails any request, with an empty tiktoken cache directory: the counts
// still come out, so nothing was downloaded.
func TestOffline(t *testing.T) {
	if os.Getenv("CTXBENCH_OFFLINE_CHILD") == "1" {
		http.DefaultTransport = refuseTransport{}
		for _, enc := range []string{"cl100k_base", "o200k_base"} {
			fmt.Println(enc, estimate.MustNew(enc, estimate.OverheadNone).Count("hello world"))
			estimate.OfflineTiktoken()
			ref, err := tiktoken.GetEncoding(enc)
			if err != nil {
				fmt.Println("error:", err)
				os.Exit(1)
			}
			fmt.Println("pkoukk", enc, len(ref.Encode("hello world", nil, nil)))
		}
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOffline$")
	cmd.Env = append(os.Environ(), "CTXBENCH_OFFLINE_CHILD=1", "TIKTOKEN_CACHE_DIR="+filepath.Join(t.TempDir(), "empty"),
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := "cl100k_base 2\npkoukk cl100k_base 2\no200k_base 2\npkoukk o200k_base 2\n"
	if string(out) != want {
		t.Errorf("child printed:\n%s\nwant:\n%s", out, want)
	}
}

type refuseTransport struct{}

func (refuseTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	fmt.Println("network request:", r.URL)
	os.Exit(3)
	return nil, nil
}

func readCorpus(t testing.TB, name string) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile(filepath.Join("../fixtures/corpus", name), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

// TestInvalidUTF8 counts byte strings that are not valid UTF-8 as OpenAI's
// tiktoken counts the text JavaScript's TextDecoder makes of them (one
// U+FFFD per maximal ill-formed subsequence): the exact encodings equal
// tiktoken's counts, and chars/4 divides the decoded text's
// String.length. scripts/reference-counts.sh writes the references.
func TestInvalidUTF8(t *testing.T) {
	var texts []string
	var ref struct {
		Tiktoken string `json:"tiktoken"`
		CL100K   []int  `json:"cl100k_base"`
		O200K    []int  `json:"o200k_base"`
		UTF16    []int  `json:"utf16"`
	}
	for name, v := range map[string]any{"testdata/reference-invalid.json": &texts, "testdata/reference-invalid-counts.json": &ref} {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatal(err)
		}
	}
	if len(texts) < 2000 || len(ref.CL100K) != len(texts) || len(ref.O200K) != len(texts) || len(ref.UTF16) != len(texts) {
		t.Fatalf("%d texts, %d/%d/%d counts; run scripts/reference-counts.sh", len(texts), len(ref.CL100K), len(ref.O200K), len(ref.UTF16))
	}
	cl, o2, c4 := estimate.MustNew("cl100k_base", 0), estimate.MustNew("o200k_base", 0), estimate.MustNew("chars4", 0)
	for i, b64 := range texts {
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		if got := []int{cl.Count(s), o2.Count(s), jsstring.Len(s), c4.Count(s)}; !slices.Equal(got, []int{ref.CL100K[i], ref.O200K[i], ref.UTF16[i], (ref.UTF16[i] + 3) / 4}) {
			t.Errorf("%q: cl100k_base, o200k_base, UTF-16 length, chars4 %v; tiktoken %s %d, %d, %d, %d", s, got, ref.Tiktoken, ref.CL100K[i], ref.O200K[i], ref.UTF16[i], (ref.UTF16[i]+3)/4)
		}
	}
}
