package anthropic

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// clineSession is what a Cline 4 session's messages file
// (~/.cline/data/sessions/<id>/<id>.messages.json; cline/cline
// sdk/packages/core, fixtures/session) holds beside its messages: its
// version, the session's id and the system prompt.
type clineSession struct {
	Version      *int    `json:"version"`
	SessionID    *string `json:"sessionId"`
	SystemPrompt string  `json:"system_prompt"`
}

// cline4Message is a message of a Cline 4 session: a Messages-API
// message (content a string or blocks, among them Cline's file blocks),
// its time (ts, milliseconds), an assistant message's model
// (modelInfo.id) and the call's usage (metrics, the AI SDK's: inputTokens
// is the whole prompt, cache reads and writes included), and a
// compaction's record (metadata).
type cline4Message struct {
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	TS        int64           `json:"ts"`
	ModelInfo *struct {
		ID string `json:"id"`
	} `json:"modelInfo"`
	Metrics  *clineMetrics `json:"metrics"`
	Metadata *struct {
		// Kind is "compaction_summary" on the summary an agentic
		// compaction put in place of the history (TokensBefore its
		// count of it), "compaction" on the first prompt a basic
		// compaction kept.
		Kind         string `json:"kind"`
		Reason       string `json:"reason"`
		TokensBefore int64  `json:"tokensBefore"`
		// UsageBefore is, on a basic compaction's record, the sum of the
		// metrics of every message it rewrote (theirs are stripped), over
		// every compaction so far.
		UsageBefore *clineMetrics `json:"usageBefore"`
	} `json:"metadata"`
}

// clineMetrics is a call's usage as Cline records it (the AI SDK's:
// inputTokens is the whole prompt, cache reads and writes included), or
// a sum of calls'.
type clineMetrics struct {
	InputTokens      int64    `json:"inputTokens"`
	OutputTokens     int64    `json:"outputTokens"`
	CacheReadTokens  int64    `json:"cacheReadTokens"`
	CacheWriteTokens int64    `json:"cacheWriteTokens"`
	Cost             *float64 `json:"cost"`
}

// usage is m with the cache reads and writes taken out of the input.
func (m *clineMetrics) usage() model.Usage {
	return model.Usage{Input: max(0, m.InputTokens-m.CacheReadTokens-m.CacheWriteTokens),
		CacheRead: m.CacheReadTokens, CacheWrite: m.CacheWriteTokens, Output: m.OutputTokens}
}

// clineSessionOf returns what the JSON object raw holds beside its
// messages when it is a Cline 4 session's messages file (a version and
// a sessionId), in one pass over it; ok is false when it is not one.
func clineSessionOf(raw []byte) (sess clineSession, ok bool) {
	if decode.Unmarshal(raw, &sess) != nil {
		return clineSession{}, false
	}
	return sess, sess.Version != nil && sess.SessionID != nil
}

// readClineSession reads a Cline 4 session's messages file: the system
// prompt, then the messages. A file block (a file the user attached) is
// the text Cline sends for it (formatFileContentBlock: <file_content
// path="P">, the content, </file_content>). An assistant message's
// usage is its metrics, the cache reads and writes taken out of
// inputTokens, and their costs are summed in ReportedCostUSD. A
// compaction rewrites the file: the messages before it are gone, and
// what is left records it: an agentic compaction's summary (metadata
// kind compaction_summary) is the compaction's summary, not a message;
// a basic compaction's (kind compaction, on the first prompt it kept)
// is a compaction with no summary, and the usage of the messages it
// rewrote (usageBefore, their metrics stripped) is Unattributed. Calls
// is the number of assistant messages.
func readClineSession(s *decode.Source, sess clineSession) ([]*model.Transcript, error) {
	t := &model.Transcript{ID: s.NameID()}
	if *sess.SessionID != "" {
		t.ID = *sess.SessionID
	}
	if sess.SystemPrompt != "" {
		t.Messages = append(t.Messages, model.Message{Role: model.RoleSystem, Blocks: []model.Block{{Type: model.BlockText, Text: sess.SystemPrompt}}, Pos: model.Pos{File: s.File, Line: s.DocRec.Line}})
	}
	recs, err := decode.MessageRecords(s.DocRec, "messages")
	if err != nil {
		if err := s.Bad(t, s.DocRec.Line, "%v", err); err != nil {
			return nil, err
		}
	}
	for _, r := range recs {
		var m cline4Message
		ok, err := s.Decode(t, r, &m)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		am := decode.AnthropicMessage{ID: m.ID, Role: m.Role, Content: m.Content}
		if m.ModelInfo != nil && m.Role == string(model.RoleAssistant) {
			am.Model = m.ModelInfo.ID
		}
		n := len(t.Messages)
		if err := anthropicAppend(s, t, r, am); err != nil {
			return nil, err
		}
		if len(t.Messages) == n {
			continue
		}
		msg := &t.Messages[n]
		clineFileBlocks(msg.Blocks)
		if m.TS > 0 {
			msg.Time = time.UnixMilli(m.TS).UTC()
		}
		if md := m.Metadata; md != nil {
			switch md.Kind {
			case "compaction_summary":
				sum := *msg
				t.Messages = t.Messages[:n]
				t.Compactions = append(t.Compactions, model.Compaction{Index: n, PreTokens: md.TokensBefore, Summary: &sum, Pos: msg.Pos})
				continue
			case "compaction":
				t.Compactions = append(t.Compactions, model.Compaction{Index: n, Trigger: clineTrigger(md.Reason), Pos: msg.Pos})
				if ub := md.UsageBefore; ub != nil {
					u := ub.usage()
					if t.Unattributed != nil {
						u.Add(*t.Unattributed)
					}
					t.Unattributed = &u
					if ub.Cost != nil {
						t.ReportedCostUSD += *ub.Cost
					}
				}
			}
		}
		if mt := m.Metrics; mt != nil && msg.Role == model.RoleAssistant {
			u := mt.usage()
			msg.Usage = &u
			if mt.Cost != nil {
				t.ReportedCostUSD += *mt.Cost
			}
		}
	}
	decode.CountAssistantCalls(t)
	return []*model.Transcript{t}, nil
}

// clineTrigger names a compaction's reason as the other formats do
// (basic-compaction.ts: manual_compaction, auto_compaction,
// overflow_recovery_compaction); another is kept as it is.
func clineTrigger(reason string) string {
	switch reason {
	case "manual_compaction":
		return "manual"
	case "auto_compaction", "overflow_recovery_compaction":
		return "auto"
	}
	return reason
}

// clineFileBlocks turns Cline's file blocks into the text Cline sends
// for them.
func clineFileBlocks(blocks []model.Block) {
	for i, b := range blocks {
		if b.Type != model.BlockOther || !bytes.Contains(b.Raw, []byte(`"file"`)) {
			continue
		}
		var f struct {
			Type    string `json:"type"`
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		if decode.Unmarshal(b.Raw, &f) != nil || f.Type != "file" {
			continue
		}
		blocks[i] = model.Block{Type: model.BlockText, Text: `<file_content path="` + f.Path + "\">\n" + f.Content + "\n</file_content>"}
	}
}
