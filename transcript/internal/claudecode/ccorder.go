package claudecode

import (
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// earlyResultReach is how many messages ahead a tool result written
// before its call may be moved to: the writes of one step.
const earlyResultReach = 4

// orderEarlyResults puts each message of tool results that Claude Code
// wrote before the call it answers (2.1.12x writes a result line some
// milliseconds before the tool_use line, its parentUuid pointing
// forward) right after that call, where the conversation has it: the
// file order contradicts the parent chain, and a replay would send the
// result before its call. A message moves only within
// [earlyResultReach] messages, past no compaction, clearing or rollback,
// and only when every result it holds answers a later call.
func orderEarlyResults(t *model.Transcript) {
	use := map[string]int{} // tool_use id → message index
	for i, m := range t.Messages {
		if m.Role != model.RoleAssistant {
			continue
		}
		for _, b := range m.Blocks {
			if b.Type == model.BlockToolUse && b.ID != "" {
				use[b.ID] = i
			}
		}
	}
	marks := map[int]bool{} // indexes a compaction, clearing or rollback falls at
	for _, c := range t.Compactions {
		marks[c.Index] = true
	}
	for _, c := range t.Clearings {
		marks[c.Index] = true
	}
	for _, r := range t.Rollbacks {
		marks[r.Index], marks[r.From] = true, true
	}
	moved := false
	out := make([]model.Message, 0, len(t.Messages))
	held := map[int][]model.Message{} // by the index of the call they answer
	for i, m := range t.Messages {
		if j := answersLater(m, i, use); j > 0 && !marked(marks, i+1, j) {
			held[j] = append(held[j], m)
			moved = true
			continue
		}
		out = append(out, m)
		out = append(out, held[i]...)
		delete(held, i)
	}
	if moved {
		t.Messages = out
	}
}

// answersLater returns the index of the latest call the tool results of
// m, message i, answer when every one answers a call after i within
// reach; 0 otherwise.
func answersLater(m model.Message, i int, use map[string]int) int {
	if m.Role == model.RoleAssistant || len(m.Blocks) == 0 {
		return 0
	}
	latest := 0
	for _, b := range m.Blocks {
		j, ok := use[b.ID]
		if b.Type != model.BlockToolResult || !ok || j <= i || j > i+earlyResultReach {
			return 0
		}
		latest = max(latest, j)
	}
	return latest
}

// marked reports whether a mark falls at an index from lo to hi.
func marked(marks map[int]bool, lo, hi int) bool {
	for k := lo; k <= hi; k++ {
		if marks[k] {
			return true
		}
	}
	return false
}
