package transcript

import "encoding/json"

// ccLine is one line of a Claude Code session or Agent SDK stream-json log.
type ccLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	Message          json.RawMessage `json:"message"`
	SessionID        string          `json:"sessionId"`
	SessionIDSDK     string          `json:"session_id"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	CompactMetadata  *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
	CompactMetadataSDK *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"pre_tokens"`
	} `json:"compact_metadata"`
	Model        string          `json:"model"`
	Timestamp    string          `json:"timestamp"`
	Usage        *anthropicUsage `json:"usage"`
	TotalCostUSD float64         `json:"total_cost_usd"`
}

// readClaudeCode reads a Claude Code session JSONL file or an Agent SDK
// stream-json log into one transcript.
//
// Claude Code writes one line per content block of a response and repeats
// the call's usage on each. Lines with the same message.id are merged into
// one assistant message when only tool results stand between them (Claude
// Code writes a tool's result as soon as it has it, so results of a
// response's first tool call can precede the line of its second). The
// input side of the usage is counted once per message.id, and the largest
// output_tokens of its lines is kept, since output grows as the response
// streams.
//
// Lines that are not messages (progress, file-history-snapshot, …) are
// counted by type in Skipped, system lines by "system/<subtype>". In a main
// session, sidechain lines (a subagent's conversation, written inline by
// older Claude Code versions) are skipped and counted as "sidechain"; a
// file whose first message is a sidechain is a subagent's own transcript
// and is read whole. A compact_boundary and the summary message after it
// become a [Compaction]. The stream-json "result" event's usage and cost
// are kept in Reported and ReportedCostUSD.
func readClaudeCode(s *source) ([]*Transcript, error) {
	t := &Transcript{}
	pending := -1 // index in t.Compactions of a boundary still waiting for its summary
	seenMessage, sidechainFile := false, false
	byID := map[string]int{} // message.id → the message that carries its usage
	lastAssistant := -1
	for _, r := range s.recs {
		var l ccLine
		ok, err := s.decode(t, r, &l)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if t.ID == "" {
			t.ID = l.SessionID + l.SessionIDSDK
		}
		pos := Pos{s.file, r.line}
		switch l.Type {
		case "user", "assistant":
			if !seenMessage {
				seenMessage, sidechainFile = true, l.IsSidechain
			}
			if l.IsSidechain && !sidechainFile {
				t.skip("sidechain")
				continue
			}
			if len(l.Message) == 0 {
				if err := s.bad(t, r.line, "%s line has no message", l.Type); err != nil {
					return nil, err
				}
				continue
			}
			var m anthropicMessage
			if ok, err := s.decode(t, record{line: r.line, raw: l.Message, nested: true}, &m); !ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			blocks, err := anthropicContent(m.Content)
			if err != nil {
				if err := s.bad(t, r.line, "message %v", err); err != nil {
					return nil, err
				}
				continue
			}
			msg := Message{Role: Role(l.Type), Blocks: blocks, Pos: pos, Time: parseTime(l.Timestamp)}
			if l.Type == "user" {
				if l.IsCompactSummary || (pending >= 0 && msg.Count(BlockToolResult) == 0) {
					if pending < 0 {
						t.Compactions = append(t.Compactions, Compaction{Index: len(t.Messages), Pos: pos})
						pending = len(t.Compactions) - 1
					}
					t.Compactions[pending].Summary = &msg
					pending = -1
					continue
				}
				t.Messages = append(t.Messages, msg)
				continue
			}
			msg.Model, msg.CallID = m.Model, m.ID
			t.addModel(m.Model)
			u := m.Usage.usage()
			if i, seen := byID[m.ID]; seen && m.ID != "" {
				if prev := t.Messages[i].Usage; u != nil && prev != nil && u.Output > prev.Output {
					prev.Output = u.Output
				} else if u != nil && prev == nil {
					t.Messages[i].Usage = u
				}
				if i == lastAssistant && onlyToolResultsAfter(t.Messages, i) {
					t.Messages[i].Blocks = append(t.Messages[i].Blocks, blocks...)
					continue
				}
				// The same response again after other messages: its usage
				// stays with the first message that carried it.
				u = nil
			} else {
				byID[m.ID] = len(t.Messages)
				t.Calls++
			}
			msg.Usage = u
			t.Messages = append(t.Messages, msg)
			lastAssistant = len(t.Messages) - 1
		case "system":
			switch l.Subtype {
			case "compact_boundary":
				c := Compaction{Index: len(t.Messages), Pos: pos}
				if md := l.CompactMetadata; md != nil {
					c.Trigger, c.PreTokens = md.Trigger, md.PreTokens
				} else if md := l.CompactMetadataSDK; md != nil {
					c.Trigger, c.PreTokens = md.Trigger, md.PreTokens
				}
				t.Compactions = append(t.Compactions, c)
				pending = len(t.Compactions) - 1
			case "init":
				t.addModel(l.Model)
			case "":
				t.skip("system")
			default:
				t.skip("system/" + l.Subtype)
			}
		case "result":
			t.Reported = l.Usage.usage()
			t.ReportedCostUSD = l.TotalCostUSD
		case "":
			if err := s.bad(t, r.line, "record has no type"); err != nil {
				return nil, err
			}
		default:
			t.skip(l.Type)
		}
	}
	if t.ID == "" {
		t.ID = baseID(s.file)
	}
	return []*Transcript{t}, nil
}

// onlyToolResultsAfter reports whether every message after msgs[i] is a
// user message holding only tool results.
func onlyToolResultsAfter(msgs []Message, i int) bool {
	for _, m := range msgs[i+1:] {
		if m.Role != RoleUser || len(m.Blocks) == 0 || m.Count(BlockToolResult) != len(m.Blocks) {
			return false
		}
	}
	return true
}
