// Package conversation renders messages as the plain text summary
// prompts and probes read.
package conversation

import (
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
)

// Text renders messages as plain text, one paragraph per block:
// "[User] …", "[Assistant] …", "[Tool call Name] {input}", "[Tool result]
// …", "[Thinking] …".
func Text(msgs []transcript.Message) string {
	var b strings.Builder
	b.Grow(textLen(msgs))
	Write(&b, msgs)
	return b.String()
}

// A Writer takes text in pieces: a strings.Builder, or summarize's
// prompt meter.
type Writer interface {
	io.Writer
	io.StringWriter
}

// Write writes Text(msgs) to w, piece by piece.
func Write(w Writer, msgs []transcript.Message) {
	first := true
	for _, m := range msgs {
		role := roleLabel(m.Role)
		for _, bl := range m.Blocks {
			if !first {
				w.WriteString("\n\n")
			}
			first = false
			switch bl.Type {
			case transcript.BlockText:
				w.WriteString("[")
				w.WriteString(role)
				w.WriteString("] ")
				w.WriteString(bl.Text)
			case transcript.BlockThinking:
				w.WriteString("[Thinking] ")
				w.WriteString(bl.Text)
			case transcript.BlockToolUse:
				w.WriteString("[Tool call ")
				w.WriteString(bl.Name)
				w.WriteString("] ")
				w.Write(bl.Input)
			case transcript.BlockToolResult:
				if bl.IsError {
					w.WriteString("[Tool error] ")
				} else {
					w.WriteString("[Tool result] ")
				}
				w.WriteString(bl.Text)
			case transcript.BlockImage:
				w.WriteString("[")
				w.WriteString(role)
				w.WriteString("] [image]")
			default:
				w.WriteString("[")
				w.WriteString(role)
				w.WriteString("] ")
				w.Write(bl.Raw)
			}
		}
	}
}

// textLen returns about the length of Text(msgs), a
// little more: the size to reserve for it.
func textLen(msgs []transcript.Message) int {
	n := 0
	for _, m := range msgs {
		for _, bl := range m.Blocks {
			n += len("\n\n[") + len(m.Role) + len("Tool call ] ") + len(bl.Name) + len(bl.Text) + len(bl.Input) + len(bl.Raw)
		}
	}
	return n
}

func roleLabel(r transcript.Role) string {
	switch r {
	case transcript.RoleSystem:
		return "System"
	case transcript.RoleUser:
		return "User"
	case transcript.RoleAssistant:
		return "Assistant"
	case transcript.RoleTool:
		return "Tool"
	}
	return string(r)
}
