package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/transcript/internal/claudecode"
	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
	"github.com/google/go-cmp/cmp"
)

// stagedLine decodes a Claude Code line as readClaudeCode does without
// the one pass, with encoding/json alone: the line, then its message, then
// the message's content. The message is nil when the line has none.
func stagedLine(t *testing.T, raw []byte) (claudecode.CcLine, *claudecode.CcMessage, error) {
	t.Helper()
	decode.StdDecode.Store(true)
	defer decode.StdDecode.Store(false)
	var l claudecode.CcLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return l, nil, err
	}
	msg := l.Message
	l.Message = nil
	if len(msg) == 0 {
		return l, nil, nil
	}
	var am decode.AnthropicMessage
	if err := json.Unmarshal(msg, &am); err != nil {
		return l, nil, err
	}
	blocks, err := decode.AnthropicContent(am.Content)
	if err != nil {
		return l, nil, err
	}
	return l, &claudecode.CcMessage{ID: am.ID, Model: am.Model, Usage: am.Usage, Blocks: blocks}, nil
}

// checkOnePass reports whether the one pass (onePass) decoded raw, and fails t when
// it decoded it otherwise than the staged decoders: what it decodes, they
// decode alike, without error.
func checkOnePass(t *testing.T, raw []byte) bool {
	t.Helper()
	var sc claudecode.CcScanner
	var l claudecode.CcLine
	var m claudecode.CcMessage
	buf := bytes.Clone(raw)
	if claudecode.OnePass(&sc, buf, &l, &m) == nil {
		measuring := claudecode.CcScanner{Measure: true}
		if claudecode.OnePass(&measuring, raw, &claudecode.CcLine{}, &claudecode.CcMessage{}) != nil {
			t.Fatalf("one pass measuring read %q, which it gives up on keeping the content", raw)
		}
		return false
	}
	if !utf8.Valid(raw) {
		t.Fatalf("one pass read %q, which is not valid UTF-8 (the staged decoders count it)", raw)
	}
	for i := range buf {
		buf[i] = 'x' // what the one pass returns holds nothing of its input
	}
	wantL, wantM, err := stagedLine(t, raw)
	if err != nil {
		t.Fatalf("one pass read %q; the staged decoders refuse it: %v", raw, err)
	}
	if diff := cmp.Diff(wantL, l); diff != "" {
		t.Fatalf("line %q (-staged +one pass):\n%s", raw, diff)
	}
	if wantM == nil {
		wantM = &claudecode.CcMessage{}
	}
	if diff := cmp.Diff(*wantM, m); diff != "" {
		t.Fatalf("message of %q (-staged +one pass):\n%s", raw, diff)
	}
	// Measuring, the scanner reads the same line, each block's content
	// measured in place of kept.
	sc = claudecode.CcScanner{Measure: true}
	var ml claudecode.CcLine
	var mm claudecode.CcMessage
	if claudecode.OnePass(&sc, raw, &ml, &mm) == nil {
		t.Fatalf("one pass measuring gave up on %q", raw)
	}
	if diff := cmp.Diff(l, ml); diff != "" {
		t.Fatalf("line %q (-kept +measured):\n%s", raw, diff)
	}
	if len(mm.Blocks) != len(m.Blocks) {
		t.Fatalf("%q: %d blocks measured, %d kept", raw, len(mm.Blocks), len(m.Blocks))
	}
	for i, b := range m.Blocks {
		want := Message{Blocks: []Block{b}}
		got := mm.Blocks[i]
		if n, w := got.Measured-model.ImageChars(got.Images), want.Chars()-utf8.RuneCountInString(b.Name); n != w {
			t.Fatalf("%q block %d: measured %d characters, the block kept has %d", raw, i, n, w)
		}
		if got.Text != "" || got.Input != nil || got.Raw != nil {
			t.Fatalf("%q block %d: measuring kept content: %+v", raw, i, got)
		}
		got.Text, got.Input, got.Raw, got.Measured = b.Text, b.Input, b.Raw, 0
		if diff := cmp.Diff(b, got); diff != "" {
			t.Fatalf("%q block %d (-kept +measured):\n%s", raw, i, diff)
		}
	}
	mm.Blocks, m.Blocks = nil, nil
	if diff := cmp.Diff(m, mm); diff != "" {
		t.Fatalf("message of %q (-kept +measured):\n%s", raw, diff)
	}
	return true
}

// TestClaudeCodeOnePassReadsTheSame: every line of every corpus and
// testdata file that the one pass decodes, it decodes as the staged
// decoders do; and it decodes nearly every line of the Claude Code
// sessions (it gives up on system lines with compaction or microcompact
// metadata and stream-json results alone). TestFastDecodeReadsTheSame
// compares the transcripts whole.
func TestClaudeCodeOnePassReadsTheSame(t *testing.T) {
	var lines, decoded, ccLines, ccDecoded int
	for _, in := range inputFiles(t) {
		f, data := in.path, in.data
		claudeCode := false
		if src, err := decode.NewSource(data, f, Options{}); err == nil {
			format, err := detect(src)
			claudeCode = err == nil && format == FormatClaudeCode
		}
		for l := range bytes.Lines(data) {
			l = bytes.TrimSpace(l)
			if len(l) == 0 {
				continue
			}
			lines++
			ok := checkOnePass(t, l)
			if ok {
				decoded++
			}
			if claudeCode {
				ccLines++
				if ok {
					ccDecoded++
				} else if !bytes.Contains(l, []byte(`"compact_boundary"`)) && !bytes.Contains(l, []byte(`"microcompact_boundary"`)) && !bytes.Contains(l, []byte(`"type":"result"`)) {
					t.Errorf("%s: one pass gave up on %.300s", f, l)
				}
			}
		}
	}
	t.Logf("one pass: %d of %d lines, %d of %d Claude Code lines", decoded, lines, ccDecoded, ccLines)
	if ccLines < 1000 {
		t.Errorf("only %d Claude Code lines", ccLines)
	}
}

// TestClaudeCodeOnePassEdges: inputs at each rule of the one pass, the
// ones it must give up on among them.
func TestClaudeCodeOnePassEdges(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{"type":"user","message":{"role":"user","content":"hi"}}`, true},
		{` {"type" : "user" , "message" : { "content" : [ ] } } `, true},
		{`{"type":"user","message":{"content":null},"parentUuid":null,"isSidechain":null}`, true},
		{`{"type":"user","message":{"content":"a\nb\"c\\d\/e\u00e9\ud83d\ude00\b\f\r\t"}}`, true},
		{`{"type":"assistant","message":{"id":"m","model":"x","usage":{"input_tokens":3,"output_tokens":0,"cache_creation":{"ephemeral_1h_input_tokens":7,"ephemeral_5m_input_tokens":1},"server_tool_use":{"a":[1.5e3,-2,true,false,null]}},"content":[{"type":"tool_use","id":"t","name":"Bash","input":{ "command" : "ls" }}]}}`, true},
		{`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}],"is_error":true}]}}`, true},
		{`{"type":"user","message":{"content":[{"type":"tool_result","content":null},{"type":"redacted_thinking","data":"x"},{"type":"server_tool_use"},{"text":"no type"}]}}`, true},
		{`{"type":"user","message":{"content":[{"type":"text","text":"a","content":{"odd":1}}]}}`, true},
		{`{"type":"user","message":{"role":"user","timestamp":"t","content":[{"type":"tool_result","content":[{"type":"x","id":"a","name":"b","tool_use_id":"c","thinking":"d","is_error":false,"input":{},"content":[]}]}]}}`, true},
		{`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","id":"a","id":"b"}]}]}}`, false},
		{`{"type":"progress","data":{"x":"\u0000"},"toolUseResult":[[[[]]]]}`, true},
		{`{"type":"user","message":{"content":"a"},"toolUseResult":"\ud800 \udc00\ud800x"}`, true}, // lone surrogates passed over
		{`{"type":"user","message":{"content":"\u00e9\ud83d\ude00\u0041\"\\\/"}}`, true},
		{`{"type":"user","message":{"content":"a\ud800"}}`, false},                               // a lone surrogate: encoding/json writes U+FFFD
		{`{"type":"user","message":{"content":"a\udc00\ud800"}}`, false},                         // likewise
		{`{"type":"user","message":{"content":[{"type":"text","text":"\ud83d\u0041"}]}}`, false}, // a high surrogate, then no low one
		{`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":null},{"type":"text","text":"\u00e9\n"},{"type":"text"}]}]}}`, true},
		{`{"TYPE":"user","message":{"content":"a"}}`, false},                    // a field named ignoring case
		{`{"type":"user","type":"assistant","message":{"content":"a"}}`, false}, // a field given twice
		{`{"typ\u0065":"user","message":{"content":"a"}}`, false},               // an escaped key
		{`{"type":"user"}`, false},                                                             // no message: the staged decoders report it
		{`{"type":"user","message":null}`, false},                                              // null message
		{`{"type":"user","message":{"content":5}}`, false},                                     // content of another type
		{`{"type":"user","message":{"content":[{"type":"tool_result","content":{}}]}}`, false}, // a tool result's content of another type
		{`{"type":"user","message":{"content":[{"type":"tool_result","content":[1]}]}}`, false},
		{`{"type":"user","message":{"content":["a"]}}`, false},
		{`{"type":"assistant","message":{"usage":{"input_tokens":1.0}}}`, false},
		{`{"type":"assistant","message":{"usage":{"input_tokens":-1}}}`, false},
		{`{"type":"assistant","message":{"usage":{"input_tokens":1234567890123456789}}}`, false},
		{`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}}`, false},
		{`{"type":"result","usage":{"input_tokens":1},"total_cost_usd":0.5}`, false},
		{`{"type":"user","message":{"content":"a"}} x`, false},
		{`{"type":"user","message":{"content":"a"},}`, false},
		{`{"type":"user","message":{"content":"a` + "\t" + `"}}`, false},
		{`{"type":"user","message":{"content":"a\x"}}`, false},
		{`{"type":"user","message":{"content":"a\u12"}}`, false},
		{`{"type":"user","message":{"content":"a"},"x":01}`, false},
		{`{"type":"user","message":{"content":"a"},"x":1.}`, false},
		{`{"type":"user","message":{"content":"a"},"x":tru}`, false},
		{`{"type":"user","message":{"content":"a"},"x":[1 2]}`, false},
		{`{"type":"user","message":{"content":"a"},"x":{"a" 1}}`, false},
		{`{"type":"user","message":{"content":"a"`, false},
		{"{\"type\":\"user\",\"message\":{\"content\":\"a\xffb\"}}", false},                                                      // invalid UTF-8: counted in stages
		{"{\"type\":\"user\",\"message\":{\"content\":\"a\"},\"toolUseResult\":\"" + strings.Repeat("é", 20) + "\xc3\"}", false}, // in a string passed over
		{"{\"type\":\"user\",\"message\":{\"content\":\"a\"},\"x\":\xc3\xa9}", false},                                            // outside a string
		{"{\"type\":\"user\",\"message\":{\"content\":\"a\"},\"x\":\"" + strings.Repeat("é", 20) + "\"}", true},
		{`{"type":"user","message":{"content":"a"},"x":` + strings.Repeat("[", claudecode.MaxScanDepth) + strings.Repeat("]", claudecode.MaxScanDepth) + `}`, false},
		{`{"type":"user","message":{"content":"a"},"x":` + strings.Repeat("[", claudecode.MaxScanDepth-1) + strings.Repeat("]", claudecode.MaxScanDepth-1) + `}`, true},
		{`{"type":"user","message":{"content":"a"},"x":[` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `,` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `]}`, true}, // depth comes back down
	} {
		if got := checkOnePass(t, []byte(c.line)); got != c.ok {
			t.Errorf("%s: one pass %v, want %v", c.line, got, c.ok)
		}
	}
}

// TestNextSpecial: the word-at-a-time search finds the first quote,
// backslash or control character from every offset, at every position
// of both words of a stride and of the tail, next to bytes of every
// value.
func TestNextSpecial(t *testing.T) {
	for c := 0; c < 256; c++ {
		for n := 1; n < 40; n++ {
			for pos := 0; pos < n; pos++ {
				b := bytes.Repeat([]byte{'a'}, n)
				b[pos] = byte(c)
				if pos > 0 {
					b[pos-1] = 0xff // a byte above every limit right below
				}
				for start := 0; start <= pos; start++ {
					want := n
					if c == '"' || c == '\\' || c < 0x20 {
						want = pos
					}
					if got, _ := claudecode.NextSpecial(b, start); got != want {
						t.Fatalf("byte %#x at %d of %d from %d: %d, want %d", c, pos, n, start, got, want)
					}
				}
			}
		}
	}
	// Several in one word: the first.
	for _, c := range []struct {
		in   string
		want int
	}{{"ab\x01\"\\cdefgh", 2}, {"a\x1f\x00\"\\cdefgh", 1}, {"abcdefgh\x20\x7f\x80\\\"", 11}} {
		if got, _ := claudecode.NextSpecial([]byte(c.in), 0); got != c.want {
			t.Errorf("%q: %d, want %d", c.in, got, c.want)
		}
	}
}

// TestStringEnd: the string scan ends at the first unescaped quote, after
// runs of backslashes of either parity, and refuses what JSON does.
func TestStringEnd(t *testing.T) {
	for _, c := range []struct {
		in      string
		end     int // -1: refused
		escaped bool
	}{
		{`""`, 1, false},
		{`"abc"x`, 4, false},
		{`"a\"b"`, 5, true},
		{`"a\\"b"`, 4, true},
		{`"a\\\"b"`, 7, true},
		{`"\\\\"`, 5, true},
		{`"\""`, 3, true},
		{`"\u00e9\n"`, 9, true},
		{`"` + strings.Repeat("x", 40) + `\t` + strings.Repeat("y", 40) + `"`, 83, true},
		{`"abc`, -1, false},
		{`"a\"`, -1, false},
		{`"a\`, -1, false},
		{`"a\q"`, -1, false},
		{`"a\u12"`, -1, false},
		{`"a\u12g4"`, -1, false},
		{"\"a\tb\"", -1, false},
		{"\"" + strings.Repeat("x", 40) + "\x1f\"", -1, false},
		{"\"" + strings.Repeat("x", 40) + "\\n\x01\"", -1, false},
	} {
		s := claudecode.CcScanner{B: []byte(c.in)}
		_, end := s.StringEnd()
		escaped := s.Escaped()
		if c.end < 0 {
			if !s.Bad {
				t.Errorf("%q: read to %d, want refused", c.in, end)
			}
			continue
		}
		if s.Bad || end != c.end || escaped != c.escaped || s.I != end+1 {
			t.Errorf("%q: end %d escaped %v (bad %v, at %d), want %d %v", c.in, end, escaped, s.Bad, s.I, c.end, c.escaped)
		}
	}
}

// FuzzClaudeCodeLine: on any input, what the one pass decodes the staged
// decoders decode alike.
func FuzzClaudeCodeLine(f *testing.F) {
	for _, name := range []string{"../fixtures/corpus/spotter/tool_heavy.jsonl", "testdata/stream-json-subagents.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for i, l := range bytes.Split(data, []byte{'\n'}) {
			if i < 40 && len(l) < 8000 {
				f.Add(l)
			}
		}
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a\ud83d\ude00"}],"is_error":true}]}}`))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":3,"cache_creation":{"ephemeral_1h_input_tokens":7}},"content":[{"type":"tool_use","input":{ "a" : [1, 2e5] }}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkOnePass(t, b)
	})
}

// BenchmarkClaudeCodeLine: the one pass against the staged decoders, on
// every line of a Claude Code session.
func BenchmarkClaudeCodeLine(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("../fixtures/corpus", "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte{'\n'})
	for _, measure := range []bool{false, true} {
		name := "one-pass"
		if measure {
			name += "-measuring"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			sc := claudecode.CcScanner{Measure: measure}
			for b.Loop() {
				for _, l := range lines {
					var cl claudecode.CcLine
					var m claudecode.CcMessage
					claudecode.OnePass(&sc, l, &cl, &m)
				}
			}
		})
	}
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var sc claudecode.CcScanner
		for b.Loop() {
			for _, l := range lines {
				sc.B, sc.I, sc.Depth, sc.Bad = l, 0, 0, false
				sc.Skip()
			}
		}
	})
	b.Run("staged", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for _, l := range lines {
				var cl claudecode.CcLine
				if decode.Unmarshal(l, &cl) != nil || len(cl.Message) == 0 {
					continue
				}
				var am decode.AnthropicMessage
				if decode.Unmarshal(cl.Message, &am) == nil {
					decode.AnthropicContent(am.Content)
				}
			}
		}
	})
}

// TestScannerFieldsAreTheStructs: the names the one pass checks keys
// against are the JSON names of the staged decoders' structs, so a field
// added to a struct is one the scanner gives up on until it decodes it.
func TestScannerFieldsAreTheStructs(t *testing.T) {
	for _, c := range []struct {
		names []string
		of    any
	}{
		{claudecode.CcLineFields, claudecode.CcLine{}},
		{claudecode.CcMessageFields, decode.AnthropicMessage{}},
		{claudecode.CcBlockFields, decode.AnthropicBlock{}},
		{claudecode.CcUsageFields, decode.AnthropicUsage{}},
		{claudecode.CcCacheFields, decode.AnthropicCacheDetail{}},
	} {
		var want []string
		typ := reflect.TypeOf(c.of)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			want = append(want, name)
		}
		if diff := cmp.Diff(want, c.names); diff != "" {
			t.Errorf("%s (-struct +scanner):\n%s", typ, diff)
		}
	}
}

// TestMeasureReadsTheSame: every corpus and testdata file read measuring
// (Options.Measure) gives the transcripts read whole, but for the
// content, which is measured: each message counts the same characters,
// and the summaries are equal.
func TestMeasureReadsTheSame(t *testing.T) {
	measured := 0
	for _, in := range inputFiles(t) {
		for _, lenient := range []bool{false, true} {
			whole, werr := Read(bytes.NewReader(in.data), in.path, Options{Lenient: lenient})
			meas, merr := Read(bytes.NewReader(in.data), in.path, Options{Lenient: lenient, Measure: true})
			if fmt.Sprint(werr) != fmt.Sprint(merr) || len(whole) != len(meas) {
				t.Fatalf("%s: %d transcripts (%v) read whole, %d (%v) measuring", in.path, len(whole), werr, len(meas), merr)
			}
			for k := range whole {
				if diff := cmp.Diff(whole[k].Summary(), meas[k].Summary()); diff != "" {
					t.Fatalf("%s: summary (-whole +measured):\n%s", in.path, diff)
				}
				for i := range whole[k].Messages {
					w, m := &whole[k].Messages[i], &meas[k].Messages[i]
					if w.Chars() != m.Chars() {
						t.Fatalf("%s message %d: %d characters whole, %d measured", in.path, i, w.Chars(), m.Chars())
					}
					for j := range m.Blocks {
						measured += m.Blocks[j].Measured
					}
					w.Blocks, m.Blocks = nil, nil
				}
				for i, c := range whole[k].Compactions {
					if w, m := c.Summary, meas[k].Compactions[i].Summary; w != nil && m != nil {
						if w.Chars() != m.Chars() {
							t.Fatalf("%s compaction %d: %d characters whole, %d measured", in.path, i, w.Chars(), m.Chars())
						}
						w.Blocks, m.Blocks = nil, nil
					}
				}
				if whole[k].Measured || meas[k].Measured != (meas[k].Format == FormatClaudeCode) {
					t.Fatalf("%s (%s): Measured %v read whole, %v measuring", in.path, meas[k].Format, whole[k].Measured, meas[k].Measured)
				}
				meas[k].Measured = false
				if diff := quickDiff(whole[k], meas[k]); diff != "" {
					t.Fatalf("%s: transcript but its blocks (-whole +measured):\n%s", in.path, diff)
				}
			}
		}
	}
	if measured < 1_000_000 {
		t.Errorf("%d characters measured: too few to compare", measured)
	}
}
