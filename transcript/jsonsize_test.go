package transcript_test

import (
	"encoding/json"
	"testing"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/transcript"
)

// contentJSONSize is what ContentJSONSize must equal: the length of
// ContentJSON's output in bytes and in UTF-16 units.
func contentJSONSize(blocks []transcript.Block) [2]int {
	b := transcript.ContentJSON(blocks)
	return [2]int{len(b), jsstring.Len(string(b))}
}

// TestContentJSONSizeCorpus holds ContentJSONSize equal to the length of
// ContentJSON's output for every message of the corpus.
func TestContentJSONSizeCorpus(t *testing.T) {
	msgs := 0
	for _, f := range corpusFiles(t) {
		ts, err := transcript.ReadFile(f, transcript.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range ts {
			for i, m := range tr.Messages {
				msgs++
				size, units := transcript.ContentJSONSize(m.Blocks)
				if want := contentJSONSize(m.Blocks); [2]int{size, units} != want {
					t.Errorf("%s, message %d: size %d, %d units; ContentJSON's %v", f, i, size, units, want)
				}
			}
		}
	}
	if msgs < 1000 {
		t.Fatalf("only %d messages in the corpus", msgs)
	}
}

// FuzzContentJSONSize holds ContentJSONSize equal to the length of
// ContentJSON's output for blocks of every type made from any text and
// any raw JSON (valid or not).
func FuzzContentJSONSize(f *testing.F) {
	f.Add("plain", `{"a": [1, 2.5, "x y"], "b" :null}`, true)
	f.Add("esc \"q\" \\ \b\f\n\r\t \x01\x1f <>& \u2028\u2029 é 日本 😀 \xff\xfe", "  [ \"\\u00e9\\\"\", \"é 😀\", {\"k\"\t:\n\"\xff\"} ]  ", false)
	f.Add("", "", true)
	f.Add("x", `{"unterminated": `, false)
	f.Add("x", `"str"`, true)
	f.Fuzz(func(t *testing.T, text, raw string, isErr bool) {
		r := json.RawMessage(raw)
		sets := [][]transcript.Block{
			{{Type: transcript.BlockText, Text: text}},
			{{Type: transcript.BlockThinking, Text: text}, {Type: transcript.BlockThinking, Raw: r}},
			{{Type: transcript.BlockToolUse, ID: text, Name: text, Input: r}, {Type: transcript.BlockToolUse, ID: "t", Name: "n"}},
			{{Type: transcript.BlockToolResult, ID: text, Text: text, IsError: isErr}, {Type: transcript.BlockToolResult, ID: "t", Raw: r}},
			{{Type: transcript.BlockImage}, {Type: transcript.BlockType(text)}, {Type: transcript.BlockOther, Raw: r}},
			{},
		}
		for k, blocks := range sets {
			size, units := transcript.ContentJSONSize(blocks)
			if want := contentJSONSize(blocks); [2]int{size, units} != want {
				t.Errorf("set %d (text %q, raw %q): size %d, %d units; ContentJSON's %v", k, text, raw, size, units, want)
			}
		}
	})
}
