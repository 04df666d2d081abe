package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctxbench/ctxbench/transcript/internal/claudecode"
	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
)

// readBoth parses data with the fast decoder and with encoding/json alone.
// The fast parse reads a copy of data, scribbled over once it is done, so
// that the two agree only if the transcripts and errors Parse makes hold
// nothing of its input: Read reuses a file's array for the next file
// (readBuffers).
func readBoth(t *testing.T, data []byte, name string, opt Options) (fast, std []*Transcript, fastErr, stdErr error) {
	t.Helper()
	buf := bytes.Clone(data)
	fast, fastErr = Parse(buf, name, opt)
	for i := range buf {
		buf[i] = 'x'
	}
	decode.StdDecode.Store(true)
	defer decode.StdDecode.Store(false)
	std, stdErr = Parse(data, name, opt)
	return
}

// quickDiff is cmp.Diff(x, y), with reflect.DeepEqual asked first:
// cmp.Diff of every corpus transcript takes a minute under the race
// detector, DeepEqual seconds, and what DeepEqual holds equal cmp does.
func quickDiff(x, y any) string {
	if reflect.DeepEqual(x, y) {
		return ""
	}
	return cmp.Diff(x, y)
}

// An inputFile is a file of the corpus or of testdata, read.
type inputFile struct {
	path string
	data []byte
}

// inputFiles reads every file of the corpus and of testdata.
func inputFiles(t testing.TB) []inputFile {
	t.Helper()
	var files []inputFile
	for _, dir := range []string{"../fixtures/corpus", "testdata"} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			files = append(files, inputFile{p, data})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestFastDecodeReadsTheSame: every file of the corpus and of testdata,
// strict and lenient, reads the same — transcripts, counts, errors — with
// goccy/go-json in front of encoding/json as with encoding/json alone,
// and Parse keeps nothing of its input (readBoth).
func TestFastDecodeReadsTheSame(t *testing.T) {
	read := 0
	for _, in := range inputFiles(t) {
		f, data := in.path, in.data
		for _, lenient := range []bool{false, true} {
			fast, std, fastErr, stdErr := readBoth(t, data, f, Options{Lenient: lenient})
			if (fastErr == nil) != (stdErr == nil) || (fastErr != nil && fastErr.Error() != stdErr.Error()) {
				t.Errorf("%s: fast %v, encoding/json %v", f, fastErr, stdErr)
				continue
			}
			if diff := quickDiff(std, fast); diff != "" {
				t.Errorf("%s (lenient %v): (-encoding/json +fast):\n%s", f, lenient, diff)
			}
			if fastErr == nil {
				read++
			}
		}
	}
	if read < 40 {
		t.Errorf("only %d reads succeeded", read)
	}
}

// FuzzUnmarshalAgrees: on any input, goccy/go-json succeeds exactly when
// encoding/json does, with the same value, for the records the readers
// decode (a Claude Code line, content blocks, any value).
func FuzzUnmarshalAgrees(f *testing.F) {
	for _, name := range []string{"../fixtures/corpus/spotter/tool_heavy.jsonl", "testdata/stream-json-subagents.jsonl", "testdata/codex-exec.jsonl", "testdata/openai-messages.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for i, l := range bytes.Split(data, []byte{'\n'}) {
			if i < 30 && len(l) < 8000 {
				f.Add(l)
			}
		}
	}
	for _, s := range []string{`{"usage":{"input_tokens":1e3}}`, `{"type":"a"} x`, `{"type":"\u00zz"}`, `[{"type":"text","text":"a"},]`, `{"message":{"content":[{"input":{"a":[1,2,}}]}}`, `{"TYPE":"user"}`, `{"type":"a","type":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, mk := range []func() any{
			func() any { return new(claudecode.CcLine) },
			func() any { return new([]json.RawMessage) },
			func() any { return new(map[string]json.RawMessage) },
			func() any { return new(any) },
		} {
			std, fast := mk(), mk()
			stdErr, fastErr := json.Unmarshal(b, std), gojson.Unmarshal(b, fast)
			if stdErr != nil && fastErr == nil {
				t.Fatalf("%T: go-json accepts what encoding/json refuses (%v): %q", std, stdErr, b)
			}
			if stdErr == nil && fastErr == nil && !reflect.DeepEqual(std, fast) {
				t.Fatalf("%T: values differ on %q:\n%#v\n%#v", std, b, std, fast)
			}
		}
	})
}

// compactReference is what compactJSON returned before its fast path:
// json.Compact's result, or raw when json.Compact refuses it.
func compactReference(raw []byte) []byte {
	if len(raw) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// TestCompactJSON: compactJSON, which returns compact input as it is, is
// json.Compact on every line of the corpus and on inputs made to catch
// the string scan out: escaped quotes, runs of backslashes, white space
// in and around strings, cut strings.
func TestCompactJSON(t *testing.T) {
	inputs := []string{``, `{}`, `{"a":1}`, `{"a": 1}`, "{\"a\":1}\n", `{"a":"x y"}`, `{"a":"x\" y"}`, `{"a":"x\\"}`, `{"a":"x\\" , "b":2}`,
		`{"a":"x\\\" y"}`, `{"a":"x\\\\"}`, `["\\\\", 1 ]`, `"x`, `"x\"`, `{"a":"\"}`, `[1,2 ]`, "[\t1]", "[\r\n1]", `{"a":"é ü"}`, `nul l`, `[1,]`}
	for _, f := range inputFiles(t) {
		for l := range bytes.SplitSeq(f.data, []byte{'\n'}) {
			inputs = append(inputs, string(l))
		}
	}
	compact := 0
	for _, in := range inputs {
		got, want := decode.CompactJSON(json.RawMessage(in)), compactReference([]byte(in))
		if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("compactJSON(%.200q) = %.200q, want %.200q", in, got, want)
		}
		if len(in) > 0 && !decode.SpaceOutsideStrings([]byte(in)) {
			compact++
		}
	}
	// Both paths were taken, many times each.
	if compact < 1000 || len(inputs)-compact < 1000 {
		t.Errorf("%d of %d lines took the fast path", compact, len(inputs))
	}
}

func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{`{"a":"x\\" , "b":2}`, `{"a": [1, "\" ", {"b" :null}]}`, `"\\\\\" "`, "[\"a\"\t]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := decode.CompactJSON(b), compactReference(b); !bytes.Equal(got, want) {
			t.Fatalf("compactJSON(%q) = %q, want %q", b, got, want)
		}
	})
}

// TestCallsAreAssistantMessages: one definition of a call, everywhere:
// every transcript of the corpus and of testdata counts as many calls
// (inspect's) as it has assistant messages (the calls a replay replays).
func TestCallsAreAssistantMessages(t *testing.T) {
	for _, in := range inputFiles(t) {
		ts, err := Parse(in.data, in.path, Options{Lenient: true})
		if err != nil {
			continue
		}
		for _, tr := range ts {
			n := 0
			for i := range tr.Messages {
				if tr.Messages[i].Role == RoleAssistant {
					n++
				}
			}
			if n != tr.Calls {
				t.Errorf("%s (%s): %d calls, %d assistant messages", in.path, tr.ID, tr.Calls, n)
			}
		}
	}
}
