package transcript_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	. "github.com/ctxbench/ctxbench/transcript"
)

// ignorePos compares messages without their source positions and request
// ids (which no target format has a field for), which a
// conversion changes by design.
var ignorePos = cmp.Options{equateEmpty, rawEqual, cmpopts.IgnoreFields(Message{}, "Pos", "RequestID")}

func convert(t *testing.T, tr *Transcript, f Format) (*Transcript, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, tr, f); err != nil {
		t.Fatal(err)
	}
	out := bytes.Clone(buf.Bytes())
	ts, err := Parse(buf.Bytes(), "converted", Options{})
	if err != nil {
		t.Fatalf("reading the %s output back: %v\n%.500s", f, err, out)
	}
	if len(ts) != 1 {
		t.Fatalf("%d transcripts read back, want 1", len(ts))
	}
	if ts[0].Format != f {
		t.Errorf("%s output detected as %s", f, ts[0].Format)
	}
	return ts[0], out
}

// shape is what every conversion keeps: the tool calls and results in
// order, the recorded usage, the id and the models.
type shape struct {
	ID, Models        string
	Uses, Results     []string
	Usage             Usage
	AssistantMessages int
}

func shapeOf(tr *Transcript) shape {
	s := shape{ID: tr.ID, Models: strings.Join(tr.Models, ","), Usage: tr.Usage()}
	for _, m := range tr.Messages {
		if m.Role == RoleAssistant {
			s.AssistantMessages++
		}
		for _, b := range m.Blocks {
			switch b.Type {
			case BlockToolUse:
				s.Uses = append(s.Uses, b.ID+" "+b.Name+" "+string(b.Input))
			case BlockToolResult:
				s.Results = append(s.Results, b.ID+" "+b.Text)
			}
		}
	}
	return s
}

func TestConvertRoundTrip(t *testing.T) {
	for _, path := range corpusFiles(t) {
		src := readOne(t, path, Options{})
		for _, f := range []Format{FormatOpenAIChat, FormatAnthropic} {
			t.Run(strings.TrimPrefix(path, corpusDir+"/")+"/"+string(f), func(t *testing.T) {
				once, out1 := convert(t, src, f)
				twice, out2 := convert(t, once, f)
				if diff := cmp.Diff(once.Messages, twice.Messages, ignorePos); diff != "" {
					t.Errorf("convert → read is not stable (-once +twice):\n%s", diff)
				}
				if !bytes.Equal(out1, out2) {
					t.Errorf("writing the read-back transcript changed its bytes")
				}
				want := shapeOf(src)
				if u := src.Unattributed; u != nil {
					// No target format records usage but per message.
					want.Usage.Input -= u.Input
					want.Usage.CacheRead -= u.CacheRead
					want.Usage.CacheWrite -= u.CacheWrite
					want.Usage.Output -= u.Output
				}
				if f == FormatOpenAIChat {
					want.Usage.CacheWrite1h = 0 // openai-chat has no field for it
				} else {
					want.Usage.Reasoning = 0 // nor anthropic for this
				}
				if diff := cmp.Diff(want, shapeOf(once), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("conversion lost tool calls, results or usage (-source +converted):\n%s", diff)
				}
				exact := (f == FormatAnthropic && src.Format == FormatClaudeCode) ||
					(f == FormatOpenAIChat && src.Format == FormatOpenAIChat)
				if exact {
					if diff := cmp.Diff(src.Messages, once.Messages, ignorePos); diff != "" {
						t.Errorf("%s → %s → read changed the messages (-source +converted):\n%s", src.Format, f, diff)
					}
				}
			})
		}
	}
}

// TestConvertOTelRoundTrip holds convert --to otel to its promise: every
// corpus transcript read back from OTLP JSON has the same messages
// (times, models, usage and response ids included), compactions and
// subagent names, and writing it again gives the same bytes.
func TestConvertOTelRoundTrip(t *testing.T) {
	for _, path := range corpusFiles(t) {
		src := readOne(t, path, Options{})
		t.Run(strings.TrimPrefix(path, corpusDir+"/"), func(t *testing.T) {
			once, out1 := convert(t, src, FormatOTel)
			want := src.Messages
			if diff := cmp.Diff(want, once.Messages, ignorePos, cmpopts.IgnoreFields(Usage{}, "CacheWrite1h")); diff != "" {
				t.Errorf("otel → read changed the messages (-source +converted):\n%s", diff)
			}
			if diff := cmp.Diff(src.Compactions, once.Compactions, ignorePos, cmpopts.IgnoreFields(Compaction{}, "Pos", "Trigger", "PreTokens")); diff != "" {
				t.Errorf("otel → read changed the compactions (-source +converted):\n%s", diff)
			}
			if once.ID != src.ID || once.Parent != src.Parent || once.Subagent != src.Subagent {
				t.Errorf("id %q parent %q subagent %q, want %q %q %q", once.ID, once.Parent, once.Subagent, src.ID, src.Parent, src.Subagent)
			}
			_, out2 := convert(t, once, FormatOTel)
			if !bytes.Equal(out1, out2) {
				t.Errorf("writing the read-back transcript changed its bytes")
			}
		})
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	err := Write(&bytes.Buffer{}, &Transcript{ID: "x"}, FormatGeminiCLI)
	if err == nil || !strings.Contains(err.Error(), "cannot write format") {
		t.Errorf("error %v, want cannot write format", err)
	}
}
