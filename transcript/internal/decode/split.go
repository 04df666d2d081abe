package decode

import (
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// splitWindow is how close in time two assistant lines are written for
// [joinSplitResponses] to read them as one response.
const splitWindow = time.Second

// JoinSplitResponses joins the assistant messages of t that are the
// blocks of one response written a line each, as message dumps write
// them (the first line often with no content): consecutive assistant
// messages, no message between them, written within [splitWindow] of
// the first, are one message, one call, unless something says they are
// two calls: each has its own usage, or each its own call id.
func JoinSplitResponses(t *model.Transcript) {
	if len(t.Messages) < 2 {
		return
	}
	out := t.Messages[:1]
	for _, m := range t.Messages[1:] {
		last := &out[len(out)-1]
		if !sameResponse(last, &m) {
			out = append(out, m)
			continue
		}
		last.Blocks = append(last.Blocks, m.Blocks...)
		if last.Usage == nil {
			last.Usage = m.Usage
		}
		if last.Model == "" {
			last.Model = m.Model
		}
		if last.CallID == "" {
			last.CallID = m.CallID
		}
		if last.RequestID == "" {
			last.RequestID = m.RequestID
		}
	}
	clear(t.Messages[len(out):])
	t.Messages = out
}

// sameResponse reports whether b, the message after a, continues a's
// response ([joinSplitResponses]).
func sameResponse(a, b *model.Message) bool {
	switch {
	case a.Role != model.RoleAssistant || b.Role != model.RoleAssistant:
		return false
	case a.Time.IsZero() || b.Time.IsZero() || b.Time.Before(a.Time) || b.Time.Sub(a.Time) > splitWindow:
		return false
	case a.Usage != nil && b.Usage != nil:
		return false // each billed: two calls
	case a.CallID != "" && b.CallID != "" && a.CallID != b.CallID:
		return false
	}
	return true
}
