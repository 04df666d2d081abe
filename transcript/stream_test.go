package transcript

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/google/go-cmp/cmp"
)

// Two Claude Code lines, a user's and an assistant's.
const (
	streamUser = `{"type":"user","sessionId":"s","message":{"role":"user","content":"hello"}}`
	streamAsst = `{"type":"assistant","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":2}}}`
)

// readStreamed reads data as Read reads a stream of unknown size that
// arrives in pieces of a few bytes to a few KiB ([chunkReader]), so that
// the buffered reader refills, and moves what it holds, within a line
// and between lines.
func readStreamed(data []byte, name string, opt Options) ([]*Transcript, error) {
	return Read(&chunkReader{r: bytes.NewReader(data)}, name, opt)
}

// A chunkReader returns at most a few bytes to a few KiB per Read, the
// sizes cycling through chunkSizes.
type chunkReader struct {
	r io.Reader
	n int
}

// chunkSizes are the sizes a chunkReader's reads cycle through: primes,
// so that pieces end at every offset of a line sooner or later.
var chunkSizes = []int{1, 7, 61, 509, 4093, 3, 8191, 127}

func (c *chunkReader) Read(p []byte) (int, error) {
	size := chunkSizes[c.n%len(chunkSizes)]
	c.n++
	return c.r.Read(p[:min(len(p), size)])
}

// TestStreamReadsAsParse: every file of the corpus and of testdata,
// strict and lenient, reads the same line by line as whole: transcripts,
// counts and errors.
func TestStreamReadsAsParse(t *testing.T) {
	streamed := 0
	for _, in := range inputFiles(t) {
		for _, lenient := range []bool{false, true} {
			opt := Options{Lenient: lenient}
			whole, wholeErr := Parse(bytes.Clone(in.data), in.path, opt)
			got, err := readStreamed(in.data, in.path, opt)
			if (err == nil) != (wholeErr == nil) || (err != nil && err.Error() != wholeErr.Error()) {
				t.Errorf("%s (lenient %v): streamed %v, whole %v", in.path, lenient, err, wholeErr)
				continue
			}
			if diff := quickDiff(whole, got); diff != "" {
				t.Errorf("%s (lenient %v): (-whole +streamed):\n%s", in.path, lenient, diff)
			}
			if err == nil {
				streamed++
			}
		}
	}
	if streamed < 60 {
		t.Errorf("only %d reads succeeded: the corpus was not found", streamed)
	}
}

// TestStreamReadsAsParseMany: every JSON Lines file of the corpus and of
// testdata, its lines repeated until it holds more records than format
// detection reads ([detectProbe]), reads the same streamed as whole:
// what a reader keeps of a record past the next is held to it.
func TestStreamReadsAsParseMany(t *testing.T) {
	inflated := 0
	for _, in := range inputFiles(t) {
		if !strings.HasSuffix(in.path, ".jsonl") {
			continue
		}
		lines := bytes.Count(in.data, []byte{'\n'}) + 1
		if lines > 4*decode.DetectProbe {
			continue // read as it is by TestStreamReadsAsParse
		}
		data := bytes.TrimRight(in.data, "\n")
		var b bytes.Buffer
		for b.Len() == 0 || bytes.Count(b.Bytes(), []byte{'\n'}) < 4*decode.DetectProbe {
			b.Write(data)
			b.WriteByte('\n')
		}
		whole, wholeErr := Parse(bytes.Clone(b.Bytes()), in.path, Options{Lenient: true})
		got, err := readStreamed(b.Bytes(), in.path, Options{Lenient: true})
		if (err == nil) != (wholeErr == nil) || (err != nil && err.Error() != wholeErr.Error()) {
			t.Errorf("%s repeated: streamed %v, whole %v", in.path, err, wholeErr)
			continue
		}
		if diff := quickDiff(whole, got); diff != "" {
			t.Errorf("%s repeated: (-whole +streamed):\n%s", in.path, diff)
		}
		inflated++
	}
	if inflated < 10 {
		t.Errorf("only %d files repeated: testdata was not found", inflated)
	}
}

// TestStreamShapes: inputs at the edges of what is read a line at a time
// and what is read whole read as Parse reads them.
func TestStreamShapes(t *testing.T) {
	long := strings.Repeat("y", 3*decode.StreamBuffer+17)
	longUser := strings.Replace(streamUser, "hello", long, 1)
	for _, tc := range []struct{ name, in string }{
		{"plain", streamUser + "\n" + streamAsst + "\n"},
		{"no final newline", streamUser + "\n" + streamAsst},
		{"CRLF", streamUser + "\r\n" + streamAsst + "\r\n"},
		{"CR alone", streamUser + "\r" + streamAsst + "\r"},
		{"blank lines first", "\n \r\n\t\n" + streamUser + "\n" + streamAsst + "\n"},
		{"indented first line", "  " + streamUser + "\n" + streamAsst + "\n"},
		{"BOM", "\xEF\xBB\xBF" + streamUser + "\n" + streamAsst + "\n"},
		{"one line", streamUser},
		{"long first line", longUser + "\n" + streamAsst + "\n"},
		{"long later line", streamUser + "\n" + longUser + "\n" + streamAsst + "\n" + longUser},
		{"long line not ended", streamUser + "\n" + longUser},
		{"truncated last line", streamUser + "\n" + streamAsst[:len(streamAsst)/2]},
		{"bad line", streamUser + "\n{\"type\":\n" + streamAsst + "\n"},
		{"NUL later", streamUser + "\n\x00\n" + streamAsst + "\n"},
		{"NUL after blank line", "\n" + streamUser + "\n\x00\n"},
		{"malformed first line", "{\"type\":\n" + streamUser + "\n" + streamAsst + "\n"},
		{"document", "[" + streamUser + ",\n" + streamAsst + "]\n"},
		{"pretty document", "{\n  \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]\n}\n"},
		{"not JSON", "hello\n"},
		{"empty", ""},
		{"blank", "\n\n  \n"},
	} {
		for _, lenient := range []bool{false, true} {
			opt := Options{Lenient: lenient}
			whole, wholeErr := Parse([]byte(tc.in), "f", opt)
			got, err := readStreamed([]byte(tc.in), "f", opt)
			if (err == nil) != (wholeErr == nil) || (err != nil && err.Error() != wholeErr.Error()) {
				t.Errorf("%s (lenient %v): streamed %v, whole %v", tc.name, lenient, err, wholeErr)
				continue
			}
			if diff := cmp.Diff(whole, got); diff != "" {
				t.Errorf("%s (lenient %v): (-whole +streamed):\n%s", tc.name, lenient, diff)
			}
		}
	}
}

// TestStreamLimit: a stream that goes on past MaxBytes is an error naming
// the limit, whether the limit falls in a short line or in one longer than
// the buffer, and in a gzip stream.
func TestStreamLimit(t *testing.T) {
	long := strings.Replace(streamUser, "hello", strings.Repeat("z", 2*decode.StreamBuffer), 1)
	in := strings.Repeat(streamUser+"\n", 100) + long + "\n" + streamAsst + "\n"
	for _, max := range []int64{int64(len(streamUser)) * 50, int64(len(streamUser))*100 + decode.StreamBuffer, int64(len(in)) - 1} {
		_, err := readStreamed([]byte(in), "f", Options{MaxBytes: max})
		var tl *limit.TooLargeError
		if !errors.As(err, &tl) || tl.Max != max || tl.Name != "f" {
			t.Errorf("max %d of %d bytes: error %v, want the limit named", max, len(in), err)
		}
	}
	if _, err := readStreamed([]byte(in), "f", Options{MaxBytes: int64(len(in))}); err != nil {
		t.Errorf("an input of exactly MaxBytes: %v", err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(in))
	zw.Close()
	_, err := Read(bytes.NewReader(gz.Bytes()), "s.jsonl.gz", Options{MaxBytes: int64(len(in)) - 1})
	if err == nil || !strings.Contains(err.Error(), "s.jsonl.gz (gzip): larger than") {
		t.Errorf("gzip past MaxBytes: error %v", err)
	}
}

// TestStreamReadError: a read error after the first lines is reported,
// not read as the end of the input.
func TestStreamReadError(t *testing.T) {
	in := strings.Repeat(streamUser+"\n"+streamAsst+"\n", 2000)
	r := io.MultiReader(strings.NewReader(in), errReader{})
	if _, err := Read(r, "f", Options{}); err == nil || !strings.Contains(err.Error(), "reading f: disk on fire") {
		t.Errorf("error %v, want the read error", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }
