package rework

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
)

func call(name, input string) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolUse, Name: name, ID: name + input, Input: json.RawMessage(input)}
}

func asst(blocks ...transcript.Block) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Blocks: blocks}
}

func user(text string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: text}}}
}

// TestOf: after the compaction the agent reads a.go again and lists the
// folder again (the same input, keys spaced otherwise); before it, it
// repeated nothing.
func TestOf(t *testing.T) {
	tr := &transcript.Transcript{Messages: []transcript.Message{
		user("task"),
		asst(call("Read", `{"file_path":"a.go"}`), call("Bash", `{"command":"ls","timeout":1}`)),
		user("results"),
		asst(call("Read", `{"file_path":"b.go"}`)),
		user("result"),
		asst(call("Read", `{"file_path":"a.go","offset":10}`), call("Bash", `{ "timeout": 1, "command": "ls" }`)),
		user("results"),
		asst(call("Read", `{"file_path":"c.go"}`)),
		user("result"),
		asst(transcript.Block{Type: transcript.BlockText, Text: "done"}),
	}, Compactions: []transcript.Compaction{{Index: 5, Trigger: "auto"}}}
	got := Of(tr, 0)
	want := []Compaction{{Index: 0, Message: 5, Trigger: "auto",
		After:  Window{Calls: 3, ToolCalls: 3, Repeated: 1, Reads: 2, Reread: 1},
		Before: Window{Calls: 2, ToolCalls: 3, Repeated: 0, Reads: 2, Reread: 0}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("n=20 (-want +got):\n%s", d)
	}
	// One call each side: the call after is a5's; the call before a3's,
	// against a1's.
	got = Of(tr, 1)
	want[0].After = Window{Calls: 1, ToolCalls: 2, Repeated: 1, Reads: 1, Reread: 1}
	want[0].Before = Window{Calls: 1, ToolCalls: 1, Repeated: 0, Reads: 1, Reread: 0}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("n=1 (-want +got):\n%s", d)
	}
	if s := got[0].After.RepeatedShare(); s != 0.5 {
		t.Errorf("repeated share %v, want 0.5", s)
	}
}

// TestWindowsStopAtCompactions: a window ends at the neighbouring
// compaction.
func TestWindowsStopAtCompactions(t *testing.T) {
	tr := &transcript.Transcript{Messages: []transcript.Message{
		user("task"),
		asst(call("Read", `{"file_path":"a.go"}`)), user("r"),
		asst(call("Read", `{"file_path":"a.go"}`)), user("r"),
		asst(call("Read", `{"file_path":"a.go"}`)), user("r"),
	}, Compactions: []transcript.Compaction{{Index: 3}, {Index: 5}}}
	got := Of(tr, 0)
	if len(got) != 2 || got[0].After.Calls != 1 || got[1].Before.Calls != 1 || got[1].After.Calls != 1 {
		t.Fatalf("windows %+v", got)
	}
	if w := got[1].Before; w.Reread != 1 || w.Repeated != 1 {
		t.Errorf("the window between the compactions: %+v", w)
	}
}

// TestReadPath: the read tools and the inputs that name their file;
// str_replace_editor reads with view alone.
func TestReadPath(t *testing.T) {
	for _, c := range []struct {
		name, input, want string
	}{
		{"Read", `{"file_path":"/a/b.go","limit":20}`, "/a/b.go"},
		{"read_file", `{"absolute_path":"/x.md"}`, "/x.md"},
		{"read", `{"filePath":"src/y.ts"}`, "src/y.ts"},
		{"str_replace_editor", `{"command":"view","path":"/r/z.py"}`, "/r/z.py"},
		{"str_replace_editor", `{"command":"create","path":"/r/z.py"}`, ""},
		{"Bash", `{"command":"cat a.go"}`, ""},
		{"Read", `not json`, ""},
	} {
		if got := ReadPath(call(c.name, c.input)); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.name, c.input, got, c.want)
		}
	}
}
