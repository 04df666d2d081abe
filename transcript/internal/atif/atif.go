// Package atif reads Agent Trajectory Interchange Format trajectories
// (Harbor, Terminal-Bench).
package atif

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// atifTrajectory is an Agent Trajectory Interchange Format document
// (Harbor's RFC 0001, ATIF-v1.x): the session, the agent, its steps and
// the totals.
type atifTrajectory struct {
	SchemaVersion string `json:"schema_version"`
	SessionID     string `json:"session_id"`
	Agent         struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		ModelName string `json:"model_name"`
	} `json:"agent"`
	Steps        []json.RawMessage `json:"steps"`
	FinalMetrics *struct {
		Prompt     *int64   `json:"total_prompt_tokens"`
		Completion *int64   `json:"total_completion_tokens"`
		Cached     *int64   `json:"total_cached_tokens"`
		CostUSD    *float64 `json:"total_cost_usd"`
	} `json:"final_metrics"`
}

// atifStep is one step: a system prompt, a user message, or an agent
// turn (the model's reply, its tool calls, and what they returned).
type atifStep struct {
	StepID           int             `json:"step_id"`
	Timestamp        string          `json:"timestamp"`
	Source           string          `json:"source"`
	ModelName        string          `json:"model_name"`
	Message          json.RawMessage `json:"message"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []struct {
		ID        string          `json:"tool_call_id"`
		Function  string          `json:"function_name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
	Observation *struct {
		Results []struct {
			SourceCallID *string         `json:"source_call_id"`
			Content      json.RawMessage `json:"content"`
			Subagents    []struct {
				SessionID string `json:"session_id"`
			} `json:"subagent_trajectory_ref"`
		} `json:"results"`
	} `json:"observation"`
	Metrics *struct {
		Prompt     int64    `json:"prompt_tokens"`
		Completion int64    `json:"completion_tokens"`
		Cached     int64    `json:"cached_tokens"`
		CostUSD    *float64 `json:"cost_usd"`
		Extra      struct {
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			Reasoning     int64 `json:"reasoning_tokens"`
		} `json:"extra"`
	} `json:"metrics"`
}

// IsTrajectory reports whether m is an ATIF trajectory: a schema_version
// naming ATIF, an agent and steps.
func IsTrajectory(m map[string]any) bool {
	v, _ := m["schema_version"].(string)
	return strings.HasPrefix(strings.ToUpper(v), "ATIF") && decode.HasAny(m, "steps") && decode.HasAny(m, "agent")
}

// Read reads an ATIF trajectory (Harbor, Terminal-Bench; Harbor
// converts Claude Code, Codex, Gemini CLI and opencode logs into it).
// A system step is a system message, a user step a user message, an
// agent step an assistant message (reasoning_content as thinking, the
// message, the tool calls) — a call — followed by what its observation
// returned: the results answering a tool call in one tool message, the
// others (actions without tool calls, a subagent's summary) as text of a
// user message. A step's message is a string or a list of parts (text,
// image). Usage is the step's metrics: prompt_tokens includes the cached
// tokens (cached_tokens) and, where recorded, the cache writes
// (metrics.extra.cache_creation_input_tokens); completion_tokens
// includes reasoning (metrics.extra.reasoning_tokens). The model is the
// step's model_name, else the agent's. cost_usd is summed in
// ReportedCostUSD (final_metrics.total_cost_usd where given), the
// final_metrics totals kept in Reported. A subagent's trajectory is a
// file of its own, read as a session of its own.
func Read(s *decode.Source) ([]*model.Transcript, error) {
	var out []*model.Transcript
	for r := range s.Records() {
		t := &model.Transcript{ID: s.NameID()}
		if !s.Doc {
			t.ID = decode.LineID(s, r) // JSON Lines of trajectories
		}
		if err := readTrajectory(s, r, t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// readTrajectory reads the trajectory r into t.
func readTrajectory(s *decode.Source, r decode.Record, t *model.Transcript) error {
	var tr atifTrajectory
	if ok, err := s.Decode(t, r, &tr); !ok || err != nil {
		return err
	}
	if tr.SessionID != "" {
		t.ID = tr.SessionID
	}
	t.AgentVersion = tr.Agent.Version
	recs, err := decode.MessageRecords(r, "steps")
	if err != nil {
		return s.Bad(t, r.Line, "%v", err)
	}
	var cost float64
	for _, sr := range recs {
		var st atifStep
		ok, err := s.Decode(t, sr, &st)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := atifAppend(t, &st, tr.Agent.ModelName, model.Pos{File: s.File, Line: sr.Line}, &cost); err != nil {
			if err := s.Bad(t, sr.Line, "step %d: %v", st.StepID, err); err != nil {
				return err
			}
		}
	}
	t.ReportedCostUSD = cost
	if fm := tr.FinalMetrics; fm != nil {
		if fm.CostUSD != nil {
			t.ReportedCostUSD = *fm.CostUSD
		}
		if fm.Prompt != nil || fm.Completion != nil {
			u := model.Usage{}
			if fm.Cached != nil {
				u.CacheRead = *fm.Cached
			}
			if fm.Prompt != nil {
				u.Input = max(0, *fm.Prompt-u.CacheRead)
			}
			if fm.Completion != nil {
				u.Output = *fm.Completion
			}
			t.Reported = &u
		}
	}
	return nil
}

// atifAppend adds step st's messages to t.
func atifAppend(t *model.Transcript, st *atifStep, modelName string, pos model.Pos, cost *float64) error {
	msg, err := atifContent(st.Message)
	if err != nil {
		return fmt.Errorf("message: %v", err)
	}
	m := model.Message{Pos: pos, Time: model.ParseTime(st.Timestamp)}
	switch st.Source {
	case "system":
		m.Role, m.Blocks = model.RoleSystem, msg
	case "user":
		m.Role, m.Blocks = model.RoleUser, msg
	case "agent":
		m.Role = model.RoleAssistant
		if st.ReasoningContent != "" {
			m.Blocks = append(m.Blocks, model.Block{Type: model.BlockThinking, Text: st.ReasoningContent})
		}
		for _, b := range msg {
			if b.Type != model.BlockText || b.Text != "" {
				m.Blocks = append(m.Blocks, b)
			}
		}
		for _, c := range st.ToolCalls {
			b := model.Block{Type: model.BlockToolUse, ID: c.ID, Name: c.Function}
			if len(c.Arguments) > 0 && string(c.Arguments) != "null" {
				b.Input = decode.CompactJSON(c.Arguments)
			}
			m.Blocks = append(m.Blocks, b)
		}
		m.Model = st.ModelName
		if m.Model == "" {
			m.Model = modelName
		}
		if mt := st.Metrics; mt != nil {
			w := mt.Extra.CacheCreation
			m.Usage = &model.Usage{Input: decode.UncachedInput(mt.Prompt, mt.Cached, w), CacheRead: mt.Cached, CacheWrite: w,
				Output: mt.Completion, Reasoning: mt.Extra.Reasoning}
			if mt.CostUSD != nil {
				*cost += *mt.CostUSD
			}
		}
		model.AddModel(t, m.Model)
		t.Calls++
	default:
		return fmt.Errorf("source %q, want system, user or agent", st.Source)
	}
	t.Messages = append(t.Messages, m)
	if st.Observation == nil {
		return nil
	}
	tool := model.Message{Role: model.RoleTool, Pos: pos}
	other := model.Message{Role: model.RoleUser, Pos: pos}
	for i, r := range st.Observation.Results {
		text, rich, err := decode.ResultContent(r.Content)
		if err != nil {
			return fmt.Errorf("observation result %d: %v", i, err)
		}
		if r.SourceCallID == nil {
			if text == "" && len(r.Subagents) > 0 {
				var ids []string
				for _, sa := range r.Subagents {
					ids = append(ids, sa.SessionID)
				}
				text = "subagent " + strings.Join(ids, ", ")
			}
			other.Blocks = append(other.Blocks, model.Block{Type: model.BlockText, Text: text})
			continue
		}
		b := model.Block{Type: model.BlockToolResult, ID: *r.SourceCallID, Text: text}
		if rich {
			b.Raw = decode.CompactJSON(r.Content)
		}
		tool.Blocks = append(tool.Blocks, b)
	}
	for _, o := range []model.Message{tool, other} {
		if len(o.Blocks) > 0 {
			t.Messages = append(t.Messages, o)
		}
	}
	return nil
}

// atifContent reads a step's message: a string, or a list of parts
// (text; image, kept as it is).
func atifContent(raw json.RawMessage) ([]model.Block, error) {
	return decode.TypedParts(raw, func(typ, text string, p json.RawMessage) model.Block {
		switch typ {
		case "text":
			return model.Block{Type: model.BlockText, Text: text}
		case "image":
			return model.Block{Type: model.BlockImage, Raw: decode.CompactJSON(p)}
		}
		return model.Block{Type: model.BlockOther, Raw: decode.CompactJSON(p)}
	})
}
