package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
)

// chatLineFile is a generated JSON Lines file of OpenAI chat messages
// and of JSON values that are no message (counted as malformed when read
// leniently), with lines of 2 to about 200 bytes.
type chatLineFile struct {
	data  []byte
	lines [][]byte // every line, its number its index + 1
}

// genChatLines makes a file of n lines from r: most are chat messages
// of a known role with text of 1 to 170 characters (ASCII, escapes,
// multi-byte UTF-8), some are other JSON values of 2 to 200 bytes, a few
// are blank; line ends are LF, now and then CRLF, and the last line may
// have none. The first line is a message, so that the file is chat.
func genChatLines(r *rand.Rand, n int) chatLineFile {
	const alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ0123456789.,;:!?-_()[]{}<>/\\\"'\t=+é漢😀"
	runes := []rune(alphabet)
	roles := []string{"user", "assistant", "system"}
	var f chatLineFile
	var buf bytes.Buffer
	for i := range n {
		var line []byte
		switch k := r.IntN(100); {
		case i > 0 && k < 3:
			line = nil // blank
		case i > 0 && k < 10:
			// A JSON value that is no chat message, 2 to 200 bytes.
			if r.IntN(2) == 0 {
				line = []byte("{}")
			} else {
				line, _ = json.Marshal(map[string]string{"note": strings.Repeat("x", r.IntN(186))})
			}
		default:
			text := make([]rune, 1+r.IntN(170))
			for j := range text {
				text[j] = runes[r.IntN(len(runes))]
			}
			text[0] = 'q' // not blank
			line, _ = json.Marshal(map[string]string{"role": roles[r.IntN(len(roles))], "content": string(text)})
		}
		f.lines = append(f.lines, line)
		buf.Write(line)
		switch {
		case i == n-1 && r.IntN(3) == 0:
			// no end
		case r.IntN(20) == 0:
			buf.WriteString("\r\n")
		default:
			buf.WriteByte('\n')
		}
	}
	f.data = buf.Bytes()
	return f
}

// wantChat is what encoding/json reads of f's lines one by one: each
// message's line, role and text, and the lines that are no message.
func (f chatLineFile) wantChat(t *testing.T) (msgs []string, bad []int) {
	t.Helper()
	for i, l := range f.lines {
		if len(l) == 0 {
			continue
		}
		var m struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %d: the generator wrote invalid JSON: %v", i+1, err)
		}
		if m.Role == "" {
			bad = append(bad, i+1)
			continue
		}
		msgs = append(msgs, fmt.Sprintf("%d %s %q", i+1, m.Role, m.Content))
	}
	return msgs, bad
}

// TestJSONLinesReadAsEncodingJSON: a generated JSON Lines file of any
// size, from one line to 10⁵, with lines of 2 to 200 bytes, reads the
// same records as encoding/json reads line by line, whether it is read
// as a stream in pieces (Read), from memory (Parse) or from the start of
// a file; leniently, the lines that are no message are counted, each at
// its line. make test reads the file of 10⁵ lines streamed only; make
// long reads it every way, and 300 more files of up to 20,000 lines.
func TestJSONLinesReadAsEncodingJSON(t *testing.T) {
	sizes := []int{1, 2, 3, decode.DetectProbe - 1, decode.DetectProbe, decode.DetectProbe + 1, decode.DetectProbe + 2, 1000, 1500, 3000, 100_000}
	r := rand.New(rand.NewPCG(64, 1))
	random, most := 4, 5_000
	if !testing.Short() {
		random, most = 300, 20_000
	}
	for range random {
		sizes = append(sizes, 1+r.IntN(most))
	}
	for _, n := range sizes {
		f := genChatLines(r, n)
		wantMsgs, wantBad := f.wantChat(t)
		reads := []struct {
			name string
			read func() ([]*Transcript, error)
		}{
			{"streamed", func() ([]*Transcript, error) { return readStreamed(f.data, "t.jsonl", Options{Lenient: true}) }},
			{"whole", func() ([]*Transcript, error) { return Parse(bytes.Clone(f.data), "t.jsonl", Options{Lenient: true}) }},
			{"one read", func() ([]*Transcript, error) {
				return Read(bytes.NewReader(f.data), "t.jsonl", Options{Lenient: true})
			}},
		}
		if n > 10_000 && testing.Short() {
			reads = reads[:1] // the largest file streamed only
		}
		for _, read := range reads {
			ts, err := read.read()
			if err != nil {
				t.Fatalf("%d lines, %s: %v", n, read.name, err)
			}
			if len(ts) != 1 || ts[0].Format != FormatOpenAIChat {
				t.Fatalf("%d lines, %s: %d transcripts, format %q", n, read.name, len(ts), ts[0].Format)
			}
			var gotMsgs []string
			for _, m := range ts[0].Messages {
				gotMsgs = append(gotMsgs, fmt.Sprintf("%d %s %q", m.Pos.Line, m.Role, m.Text()))
			}
			var gotBad []int
			for _, b := range ts[0].Bad {
				gotBad = append(gotBad, b.Line)
			}
			if d := quickDiff(wantMsgs, gotMsgs); d != "" {
				t.Fatalf("%d lines, %s: messages (-encoding/json +read):\n%s", n, read.name, d)
			}
			if d := quickDiff(wantBad[:min(len(wantBad), MaxBadListed)], gotBad); d != "" || ts[0].BadRecords != len(wantBad) {
				t.Fatalf("%d lines, %s: %d malformed records, want %d (-want +got lines):\n%s", n, read.name, ts[0].BadRecords, len(wantBad), d)
			}
		}
		// Strictly, a file of messages alone reads them all; the first
		// line that is no message is the error, at its line.
		_, err := readStreamed(f.data, "t.jsonl", Options{})
		switch {
		case len(wantBad) == 0 && err != nil:
			t.Fatalf("%d lines, strict: %v", n, err)
		case len(wantBad) > 0 && (err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("t.jsonl:%d: ", wantBad[0]))):
			t.Fatalf("%d lines, strict: error %v, want one at line %d", n, err, wantBad[0])
		}
	}
}
