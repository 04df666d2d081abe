package claudecode

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// TestOrderEarlyResults: a message of results written before the call
// it answers moves right after it; one that also answers an earlier
// call, one past a compaction, one too far ahead and a result of no
// call stay where the file has them.
func TestOrderEarlyResults(t *testing.T) {
	use := func(ids ...string) model.Message {
		m := model.Message{Role: model.RoleAssistant}
		for _, id := range ids {
			m.Blocks = append(m.Blocks, model.Block{Type: model.BlockToolUse, ID: id})
		}
		return m
	}
	result := func(ids ...string) model.Message {
		m := model.Message{Role: model.RoleUser}
		for _, id := range ids {
			m.Blocks = append(m.Blocks, model.Block{Type: model.BlockToolResult, ID: id})
		}
		return m
	}
	text := model.Message{Role: model.RoleUser, Blocks: []model.Block{{Type: model.BlockText, Text: "go on"}}}
	order := func(ms []model.Message) string {
		var s []string
		for _, m := range ms {
			var ids []string
			for _, b := range m.Blocks {
				ids = append(ids, b.ID)
			}
			s = append(s, string(m.Role[0])+strings.Join(ids, "+"))
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		name        string
		msgs        []model.Message
		compactions []model.Compaction
		want        string
	}{
		{"in order", []model.Message{use("a"), result("a"), use("b"), result("b")}, nil, "aa ua ab ub"},
		{"result first", []model.Message{use("a"), result("a"), result("b"), use("b")}, nil, "aa ua ab ub"},
		{"two results first", []model.Message{result("a", "b"), use("a", "b"), text}, nil, "aa+b ua+b u"},
		{"one result answers an earlier call", []model.Message{use("a"), result("a", "b"), use("b")}, nil, "aa ua+b ab"},
		{"past a compaction", []model.Message{use("a"), result("b"), use("b")}, []model.Compaction{{Index: 2}}, "aa ub ab"},
		{"too far", []model.Message{result("b"), text, text, text, text, use("b")}, nil, "ub u u u u ab"},
		{"no call", []model.Message{result("z"), use("a")}, nil, "uz aa"},
	} {
		tr := &model.Transcript{Messages: tc.msgs, Compactions: tc.compactions}
		orderEarlyResults(tr)
		if got := order(tr.Messages); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
