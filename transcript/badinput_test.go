package transcript_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	. "github.com/ctxbench/ctxbench/transcript"
)

const (
	ccUser = `{"type":"user","sessionId":"s","message":{"role":"user","content":"hello"}}`
	ccAsst = `{"type":"assistant","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":2}}}`
)

func TestBadInput(t *testing.T) {
	type want struct {
		err      string // the error's text, "" for none
		notTr    bool   // the error is a NotTranscriptError
		messages int
		bad      []int // lines of the records skipped (lenient)
		badUTF8  int
	}
	for _, tc := range []struct {
		name    string
		in      string
		lenient bool
		want    want
	}{
		{name: "empty", in: "", want: want{err: "f: not a transcript: empty", notTr: true}},
		{name: "blank lines", in: "\n \r\n\t\n", want: want{err: "f: not a transcript: empty", notTr: true}},
		{name: "binary", in: "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", want: want{err: "f: not a transcript: binary content (NUL bytes)", notTr: true}},
		{name: "NUL in the first line", in: "{\"type\":\"us\x00er\"}\n" + ccAsst + "\n", want: want{err: "f:1: invalid JSON: invalid character '\\x00' in string literal"}},
		{name: "NUL in the first line lenient", in: "{\"type\":\"us\x00er\"}\n" + ccAsst + "\n", lenient: true, want: want{messages: 1, bad: []int{1}}},
		{name: "NUL in a key of a pretty document", in: "{\n  \"messages\": [\n    {\n      \"role\": \"user\",\n      \"content\": \"hi\"\n    }\n  ],\n  \"k\x00ey\": 1\n}\n",
			want: want{err: "f:8: invalid JSON: invalid character '\\x00' in string literal"}},
		{name: "NUL in a document of objects on a line", in: "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"}\n  ],\n  \"k\x00ey\": 1\n}\n",
			want: want{err: "f:5: invalid JSON: invalid character '\\x00' in string literal"}},
		{name: "NULs of a binary file after a brace", in: "{" + strings.Repeat("\x00\x01", 20), want: want{err: "f: not a transcript: binary content (NUL bytes)", notTr: true}},
		{name: "bad token in a one-line document", in: `{"messages":[{"role":"user","content":"hi"}], "bad": tru}`,
			want: want{err: "f: not a transcript: line 1: invalid JSON: invalid character '}' in literal true (expecting 'e')", notTr: true}},
		{name: "NUL in a later line", in: ccUser + "\n{\"type\":\"us\x00er\"}\n" + ccAsst + "\n",
			want: want{err: "f:2: invalid JSON: invalid character '\\x00' in string literal"}},
		{name: "NUL in a later line lenient", in: ccUser + "\n{\"type\":\"us\x00er\"}\n" + ccAsst + "\n", lenient: true,
			want: want{messages: 2, bad: []int{2}}},
		{name: "plain text", in: "hello world\n", want: want{err: "f: not a transcript: not JSON or JSON Lines", notTr: true}},
		{name: "unknown JSON Lines", in: `{"a":1}` + "\n" + `{"b":2}` + "\n", want: want{err: "f: not a transcript: JSON Lines in no known format", notTr: true}},
		{name: "BOM", in: "\xEF\xBB\xBF" + ccUser + "\n" + ccAsst + "\n", want: want{messages: 2}},
		{name: "CRLF", in: ccUser + "\r\n" + ccAsst + "\r\n", want: want{messages: 2}},
		{name: "CR alone", in: ccUser + "\r" + ccAsst + "\r", want: want{messages: 2}},
		{name: "CR alone, a bad line named", in: ccUser + "\r{oops\r" + ccAsst + "\r", want: want{err: "f:2: invalid JSON: invalid character 'o' looking for beginning of object key string"}},
		{name: "no final newline", in: ccUser + "\n" + ccAsst, want: want{messages: 2}},
		{name: "blank lines between", in: ccUser + "\n\n\n" + ccAsst + "\n", want: want{messages: 2}},
		{name: "truncated last line", in: ccUser + "\n" + ccAsst + "\n" + ccUser[:30],
			want: want{err: "f:3: truncated record: the input ends inside it"}},
		{name: "truncated last line lenient", in: ccUser + "\n" + ccAsst + "\n" + ccUser[:30], lenient: true,
			want: want{messages: 2, bad: []int{3}}},
		{name: "invalid JSON", in: ccUser + "\n{\"type\":\"user\",,}\n" + ccAsst + "\n",
			want: want{err: "f:2: invalid JSON: invalid character ',' looking for beginning of object key string"}},
		{name: "invalid JSON lenient", in: ccUser + "\n{\"type\":\"user\",,}\n" + ccAsst + "\n{oops\n", lenient: true,
			want: want{messages: 2, bad: []int{2, 4}}},
		{name: "array record", in: ccUser + "\n[1,2]\n", want: want{err: "f:2: expected an object, found JSON array"}},
		{name: "negative usage", in: ccUser + "\n" + strings.Replace(ccAsst, `"input_tokens":1`, `"input_tokens":-5`, 1) + "\n",
			want: want{err: "f:2: usage: input tokens -5, want 0 to 1099511627776"}},
		{name: "negative usage lenient", in: ccUser + "\n" + strings.Replace(ccAsst, `"input_tokens":1`, `"input_tokens":-5`, 1) + "\n", lenient: true,
			want: want{messages: 2, bad: []int{2}}},
		{name: "overflowing usage", in: ccUser + "\n" + strings.Replace(ccAsst, `"output_tokens":2`, `"output_tokens":9223372036854775807`, 1) + "\n",
			want: want{err: "f:2: usage: output tokens 9223372036854775807, want 0 to 1099511627776"}},
		{name: "a number past int64", in: ccUser + "\n" + strings.Replace(ccAsst, `"output_tokens":2`, `"output_tokens":`+strings.Repeat("9", 5000), 1) + "\n",
			want: want{err: "f:2: field \"usage.output_tokens\": expected an integer within int64, found JSON number 999999999999999999999999999999999…"}},
		{name: "no type", in: ccUser + "\n{\"sessionId\":\"s\"}\n", want: want{err: "f:2: record has no type"}},
		{name: "no message", in: ccUser + "\n{\"type\":\"assistant\",\"uuid\":\"u\"}\n", want: want{err: "f:2: assistant line has no message"}},
		{name: "bad content", in: ccUser + "\n" + `{"type":"user","sessionId":"s","message":{"role":"user","content":7}}` + "\n",
			want: want{err: "f:2: message content: expected a string or a list of blocks"}},
		{name: "a part of another shape", in: ccUser + "\n" + `{"type":"user","sessionId":"s","message":{"role":"user","content":[{"teXt":{}}]}}` + "\n",
			want: want{messages: 2}},
		{name: "a text block whose text is no string", in: ccUser + "\n" + `{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":5}]}}` + "\n",
			want: want{err: `f:2: message content block 0: text block: "text" holds a number, not a string`}},
		{name: "invalid UTF-8", in: strings.Replace(ccUser, "hello", "hel\xff\xfelo", 1) + "\n", want: want{messages: 1, badUTF8: 1}},
		{name: "truncated document", in: "[\n  {\"source\": \"user\", \"action\": \"message\",\n   \"message\": \"hi\"},\n  {\"source\": ",
			want: want{err: "f:4: truncated record: the input ends inside it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := Parse([]byte(tc.in), "f", Options{Lenient: tc.lenient})
			var got want
			if err != nil {
				got.err = err.Error()
				var nt *NotTranscriptError
				got.notTr = errors.As(err, &nt)
			}
			for _, tr := range ts {
				got.messages += len(tr.Messages)
				got.badUTF8 += tr.InvalidUTF8
				for _, b := range tr.Bad {
					got.bad = append(got.bad, b.Line)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestInvalidUTF8Replaced(t *testing.T) {
	ts, err := Parse([]byte(strings.Replace(ccUser, "hello", "hel\xfflo", 1)), "f", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ts[0].Messages[0].Text(); got != "hel\uFFFDlo" {
		t.Errorf("text %q, want the invalid byte read as U+FFFD", got)
	}
}

// TestLongLine reads a line far beyond bufio.Scanner's 64 KiB default.
func TestLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 65 MiB line")
	}
	long := strings.Repeat("x", 65<<20)
	in := strings.Replace(ccUser, "hello", long, 1) + "\n" + ccAsst + "\n"
	ts, err := Parse([]byte(in), "f", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ts[0].Messages[0].Text()); got != len(long) {
		t.Errorf("read %d characters of a %d-character line", got, len(long))
	}
	if n := len(ts[0].Messages); n != 2 {
		t.Errorf("%d messages after the long line, want 2", n)
	}
}

// TestReadInPieces feeds a real file all at once, byte by byte and in
// halves: the result is the same.
func TestReadInPieces(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(corpusDir, "spotter/tool_heavy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Read(bytes.NewReader(raw), "f", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rd   func() (*Transcript, error)
	}{
		{"byte by byte", func() (*Transcript, error) {
			ts, err := Read(iotest.OneByteReader(bytes.NewReader(raw)), "f", Options{})
			if err != nil {
				return nil, err
			}
			return ts[0], nil
		}},
		{"halves", func() (*Transcript, error) {
			ts, err := Read(iotest.HalfReader(bytes.NewReader(raw)), "f", Options{})
			if err != nil {
				return nil, err
			}
			return ts[0], nil
		}},
	} {
		got, err := tc.rd()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(whole[0], got, transcriptOpts); diff != "" {
			t.Errorf("%s differs from reading at once (-whole +%s):\n%s", tc.name, tc.name, diff)
		}
	}
	if _, err := Read(iotest.TimeoutReader(bytes.NewReader(raw)), "f", Options{}); err == nil {
		t.Error("a read error was not reported")
	}
}

func TestReadLimit(t *testing.T) {
	_, err := Read(strings.NewReader(ccUser+"\n"+ccAsst+"\n"), "f", Options{MaxBytes: 10})
	if err == nil || !strings.Contains(err.Error(), "larger than 10 bytes") {
		t.Errorf("error %v, want the size limit named", err)
	}
}

func TestFormatOverride(t *testing.T) {
	in := ccUser + "\n" + ccAsst + "\n"
	_, err := Parse([]byte(in), "f", Options{Format: FormatOpenAIChat})
	if want := "f:1: message has no role (its fields: message, sessionId, type)"; err == nil || err.Error() != want {
		t.Errorf("reading Claude Code lines as openai-chat: error %v, want %s", err, want)
	}
	_, err = Parse([]byte(in), "f", Options{Format: "nope"})
	if err == nil || !strings.Contains(err.Error(), `unknown format "nope"`) {
		t.Errorf("unknown format: error %v", err)
	}
}

// TestMalformedFirstLine: a JSON Lines file whose first line is cut
// short is JSON Lines with a bad record, not a broken document: read
// strictly, the error names line 1; read leniently (with its format
// given or detected), line 1 is skipped and counted and the rest read.
func TestMalformedFirstLine(t *testing.T) {
	body, err := os.ReadFile("../fixtures/corpus/spotter/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(body, []byte("\n"))
	lines[0] = lines[0][:len(lines[0])/2]
	lines[0] = append(slices.Clip(lines[0]), '\n')
	cut := bytes.Join(lines, nil)
	whole, err := Read(bytes.NewReader(body), "s.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Read(bytes.NewReader(cut), "s.jsonl", Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("strict: %v, want a syntax error at line 1", err)
	}
	for _, opt := range []Options{{Lenient: true}, {Lenient: true, Format: FormatClaudeCode}} {
		ts, err := Read(bytes.NewReader(cut), "s.jsonl", opt)
		if err != nil || len(ts) != 1 {
			t.Fatalf("%+v: %d transcripts, %v", opt, len(ts), err)
		}
		if len(ts[0].Bad) != 1 || ts[0].Bad[0].Line != 1 || len(ts[0].Messages) != len(whole[0].Messages) {
			t.Errorf("%+v: bad %v, %d messages of %d", opt, ts[0].Bad, len(ts[0].Messages), len(whole[0].Messages))
		}
	}
}

// TestCompressedAndUTF16: a gzip-compressed log is read as the log; xz,
// zstd and bzip2 files and UTF-16 text are named, with the command that
// makes them readable, not reported as "binary content".
func TestCompressedAndUTF16(t *testing.T) {
	body, err := os.ReadFile("../fixtures/corpus/spotter/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	plain, err := Read(bytes.NewReader(body), "s.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(gz.Bytes()), "s.jsonl.gz", Options{})
	if err != nil || len(got) != 1 || len(got[0].Messages) != len(plain[0].Messages) || got[0].Usage() != plain[0].Usage() {
		t.Fatalf("gzip: %v, %d transcripts", err, len(got))
	}
	if _, err := Read(bytes.NewReader(gz.Bytes()), "s.jsonl.gz", Options{MaxBytes: int64(len(body) / 2)}); err == nil {
		t.Error("gzip: decompressed past MaxBytes")
	}
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range string(body[:200]) {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"xz":    {append([]byte{0xFD, '7', 'z', 'X', 'Z', 0x00}, 0, 1, 2), "xz-compressed: decompress it first (xz -d)"},
		"zstd":  {append([]byte{0x28, 0xB5, 0x2F, 0xFD}, 0, 0, 0), "zstd-compressed"},
		"bzip2": {append([]byte("BZh9"), 0x31, 0x41, 0, 0), "bzip2-compressed"},
		"utf16": {utf16, "UTF-16 text: convert it to UTF-8 first"},
	} {
		_, err := Read(bytes.NewReader(c.data), "f", Options{})
		var nt *NotTranscriptError
		if !errors.As(err, &nt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestManyBadRecordsCounted: read leniently, a file of thousands of
// malformed lines lists the first MaxBadListed and counts them all: none
// is dropped uncounted, and their memory is bounded.
func TestManyBadRecordsCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString(ccUser + "\n")
	for range 3000 {
		b.WriteString("{not json\n")
	}
	b.WriteString(ccAsst + "\n")
	ts, err := Read(strings.NewReader(b.String()), "bad.jsonl", Options{Lenient: true})
	if err != nil || len(ts) != 1 {
		t.Fatalf("%d transcripts, %v", len(ts), err)
	}
	tr := ts[0]
	if tr.BadRecords != 3000 || len(tr.Bad) != MaxBadListed || tr.Bad[0].Line != 2 || len(tr.Messages) != 2 {
		t.Errorf("%d bad counted, %d listed (first at line %d), %d messages", tr.BadRecords, len(tr.Bad), tr.Bad[0].Line, len(tr.Messages))
	}
	if st := tr.Summary(); st.BadRecords != 3000 {
		t.Errorf("stats: %d bad records", st.BadRecords)
	}
}

// TestUsageNamedAtItsLine: usage out of range in a codex exec
// turn.completed or a stream-json result line is named at that line —
// not at "line 0", as the sum of the turns' usage was — and, read
// leniently, skipped and counted there.
func TestUsageNamedAtItsLine(t *testing.T) {
	for _, c := range []struct {
		file, from, to string
		line           int
	}{
		{"testdata/codex-exec.jsonl", `{"type":"turn.completed","usage":{"input_tokens":24763`, `{"type":"turn.completed","usage":{"input_tokens":-24763`, 10},
		{"testdata/stream-json-model-usage.jsonl", `"usage":{"input_tokens":12,`, `"usage":{"input_tokens":-12,`, 13},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Replace(string(b), c.from, c.to, 1)
		if bad == string(b) {
			t.Fatalf("%s: nothing replaced", c.file)
		}
		_, err = Read(strings.NewReader(bad), c.file, Options{})
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != c.line || !strings.Contains(se.Msg, "usage") {
			t.Errorf("%s strict: %v, want a usage error at line %d", c.file, err, c.line)
		}
		ts, err := Read(strings.NewReader(bad), c.file, Options{Lenient: true})
		if err != nil || len(ts) == 0 || ts[0].BadRecords != 1 || ts[0].Bad[0].Line != c.line {
			t.Errorf("%s lenient: %v", c.file, err)
		}
	}
}

// TestErrorBeforeTheRest: a malformed line 2 is reported without an index
// of the lines after it being made (a million lines after it took 40 MB
// of records before the error).
func TestErrorBeforeTheRest(t *testing.T) {
	head := `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n"
	rest := strings.Repeat(`{"type":1}`+"\n", 1_000_000)
	allocs := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	data := []byte(head + rest)
	var err error
	n := allocs(func() { _, err = Parse(data, "s.jsonl", Options{}) })
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("error %v, want a syntax error at line 2", err)
	}
	if n > 4<<20 {
		t.Errorf("the error at line 2 took %d MB of allocations, want under 4 MB", n>>20)
	}
}
