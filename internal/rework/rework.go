// Package rework measures what a recorded compaction cost the agent in
// work done again: in the calls after the compaction, the share of tool
// calls that repeat one made before it (the same tool, the same input
// once normalized) and of file reads whose file was read before it,
// against the same shares in the calls before it. An agent that lost
// what it had read reads it again; the share before the compaction is
// how often it does so anyway.
//
// It reads the compactions a transcript recorded (Claude Code's
// compact_boundary, in session files and stream-json; Codex's compacted
// items): the ground truth a replayed policy's losses are held to.
package rework

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
)

// DefaultCalls is how many calls on each side of a compaction are
// measured.
const DefaultCalls = 20

// A Window is the tool calls of some consecutive API calls, and how
// many of them repeat one made before the window.
type Window struct {
	// Calls counts the API calls (assistant messages) in the window.
	Calls int `json:"calls"`
	// ToolCalls counts their tool calls, Repeated those whose tool and
	// normalized input one made before the window had.
	ToolCalls int `json:"tool_calls"`
	Repeated  int `json:"repeated"`
	// Reads counts their calls of a read tool ([ReadPath]), Reread those
	// of a file read before the window.
	Reads  int `json:"reads"`
	Reread int `json:"reread"`
}

// RepeatedShare is Repeated over ToolCalls (0 with no tool call).
func (w Window) RepeatedShare() float64 { return share(w.Repeated, w.ToolCalls) }

// RereadShare is Reread over Reads (0 with no read).
func (w Window) RereadShare() float64 { return share(w.Reread, w.Reads) }

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// A Compaction is one recorded compaction's re-work: the windows of up
// to n calls after it and before it, each cut at the neighbouring
// compactions.
type Compaction struct {
	// Index is the compaction's place in [transcript.Transcript.Compactions]
	// and Message the number of messages before it.
	Index   int `json:"index"`
	Message int `json:"message"`
	// Trigger is "auto" or "manual" where recorded.
	Trigger string `json:"trigger,omitempty"`
	After   Window `json:"after"`
	Before  Window `json:"before"`
}

// Of measures every compaction t recorded, n calls on each side (0:
// DefaultCalls).
func Of(t *transcript.Transcript, n int) []Compaction {
	if n <= 0 {
		n = DefaultCalls
	}
	var out []Compaction
	for k, c := range t.Compactions {
		lo, hi := 0, len(t.Messages)
		if k > 0 {
			lo = t.Compactions[k-1].Index
		}
		if k+1 < len(t.Compactions) {
			hi = t.Compactions[k+1].Index
		}
		at := min(max(c.Index, lo), hi)
		// The window before: the last n calls of [lo, at).
		start := at
		for calls := 0; start > lo; start-- {
			if t.Messages[start-1].Role == transcript.RoleAssistant {
				if calls == n {
					break
				}
				calls++
			}
		}
		out = append(out, Compaction{Index: k, Message: c.Index, Trigger: c.Trigger,
			After: window(t.Messages, at, hi, n), Before: window(t.Messages, start, at, n)})
	}
	return out
}

// window measures the tool calls of up to n calls from message from,
// before message to, against every call before from.
func window(msgs []transcript.Message, from, to, n int) Window {
	seen, read := map[string]bool{}, map[string]bool{}
	for i := range msgs[:from] {
		for _, b := range msgs[i].Blocks {
			if b.Type == transcript.BlockToolUse {
				seen[callKey(b)] = true
				if p := ReadPath(b); p != "" {
					read[p] = true
				}
			}
		}
	}
	var w Window
	for i := from; i < to; i++ {
		m := &msgs[i]
		if m.Role != transcript.RoleAssistant {
			continue
		}
		if w.Calls == n {
			break
		}
		w.Calls++
		for _, b := range m.Blocks {
			if b.Type != transcript.BlockToolUse {
				continue
			}
			w.ToolCalls++
			if seen[callKey(b)] {
				w.Repeated++
			}
			if p := ReadPath(b); p != "" {
				w.Reads++
				if read[p] {
					w.Reread++
				}
			}
		}
	}
	return w
}

// callKey is a tool call's tool and its input as canonical JSON: keys
// sorted, no insignificant space, numbers as written.
func callKey(b transcript.Block) string {
	return b.Name + "\x00" + canonical(b.Input)
}

func canonical(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(bytes.TrimSpace(raw))
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// readTools are the tools that read one file, and the inputs that name
// it: Claude Code's Read, Gemini CLI's read_file, opencode's read,
// OpenHands' str_replace_editor with command view, and those of the
// same names.
var readTools = map[string][]string{
	"read":               {"file_path", "filePath", "path"},
	"read_file":          {"absolute_path", "file_path", "path"},
	"view":               {"path", "file_path"},
	"str_replace_editor": {"path"},
}

// ReadPath returns the file a tool call reads whole or in part, "" when
// the call is not a read tool's (a shell command that cats a file is
// not counted).
func ReadPath(b transcript.Block) string {
	keys, ok := readTools[strings.ToLower(b.Name)]
	if !ok {
		return ""
	}
	var in map[string]any
	if json.Unmarshal(b.Input, &in) != nil {
		return ""
	}
	if strings.EqualFold(b.Name, "str_replace_editor") {
		if cmd, _ := in["command"].(string); cmd != "view" {
			return ""
		}
	}
	for _, k := range keys {
		if p, _ := in[k].(string); p != "" {
			return p
		}
	}
	return ""
}
