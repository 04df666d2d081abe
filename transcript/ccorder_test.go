package transcript

import (
	"strings"
	"testing"
)

// TestOrderEarlyResults: a message of results written before the call
// it answers moves right after it; one that also answers an earlier
// call, one past a compaction, one too far ahead and a result of no
// call stay where the file has them.
func TestOrderEarlyResults(t *testing.T) {
	use := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.Blocks = append(m.Blocks, Block{Type: BlockToolUse, ID: id})
		}
		return m
	}
	result := func(ids ...string) Message {
		m := Message{Role: RoleUser}
		for _, id := range ids {
			m.Blocks = append(m.Blocks, Block{Type: BlockToolResult, ID: id})
		}
		return m
	}
	text := Message{Role: RoleUser, Blocks: []Block{{Type: BlockText, Text: "go on"}}}
	order := func(ms []Message) string {
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
		msgs        []Message
		compactions []Compaction
		want        string
	}{
		{"in order", []Message{use("a"), result("a"), use("b"), result("b")}, nil, "aa ua ab ub"},
		{"result first", []Message{use("a"), result("a"), result("b"), use("b")}, nil, "aa ua ab ub"},
		{"two results first", []Message{result("a", "b"), use("a", "b"), text}, nil, "aa+b ua+b u"},
		{"one result answers an earlier call", []Message{use("a"), result("a", "b"), use("b")}, nil, "aa ua+b ab"},
		{"past a compaction", []Message{use("a"), result("b"), use("b")}, []Compaction{{Index: 2}}, "aa ub ab"},
		{"too far", []Message{result("b"), text, text, text, text, use("b")}, nil, "ub u u u u ab"},
		{"no call", []Message{result("z"), use("a")}, nil, "uz aa"},
	} {
		tr := &Transcript{Messages: tc.msgs, Compactions: tc.compactions}
		orderEarlyResults(tr)
		if got := order(tr.Messages); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
