package transcript

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/anthropic"
	"github.com/ctxbench/ctxbench/transcript/internal/atif"
	"github.com/ctxbench/ctxbench/transcript/internal/claudecode"
	"github.com/ctxbench/ctxbench/transcript/internal/codex"
	"github.com/ctxbench/ctxbench/transcript/internal/copilot"
	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/gemini"
	"github.com/ctxbench/ctxbench/transcript/internal/openai"
	"github.com/ctxbench/ctxbench/transcript/internal/opencode"
	"github.com/ctxbench/ctxbench/transcript/internal/openhands"
	"github.com/ctxbench/ctxbench/transcript/internal/otel"
)

// Formats returns every format, in a fixed order.
func Formats() []Format {
	return []Format{FormatClaudeCode, FormatCodex, FormatOpenAIChat, FormatAnthropic, FormatGeminiCLI, FormatOpenHands, FormatOTel, FormatATIF, FormatLangfuse, FormatOpencode, FormatCopilot}
}

var readers = map[Format]func(*decode.Source) ([]*Transcript, error){
	FormatClaudeCode: claudecode.Read,
	FormatCodex:      codex.Read,
	FormatOpenAIChat: openai.Read,
	FormatAnthropic:  anthropic.Read,
	FormatGeminiCLI:  gemini.Read,
	FormatOpenHands:  openhands.Read,
	FormatOTel:       otel.Read,
	FormatATIF:       atif.Read,
	FormatLangfuse:   otel.ReadLangfuse,
	FormatOpencode:   opencode.Read,
	FormatCopilot:    copilot.Read,
}

var claudeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "result": true,
	"progress": true, "file-history-snapshot": true, "queue-operation": true,
}

var codexRolloutTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true,
}

var codexExecTypes = map[string]bool{
	"thread.started": true, "turn.started": true, "turn.completed": true, "turn.failed": true,
	"item.started": true, "item.updated": true, "item.completed": true,
}

// notRead is the error for input that looks like a format ctxbench does
// not read.
func notRead(file, name string) error {
	return &NotTranscriptError{File: file, Reason: name + ", a format ctxbench does not read"}
}

// detect names the format of s from its content.
func detect(s *decode.Source) (Format, error) {
	switch {
	case s.Db != "" || s.Storage != "":
		return FormatOpencode, nil // the only format kept in SQLite, or in a directory
	case s.Doc:
		return detectDoc(s)
	}
	return detectLines(s)
}

// detectDoc names the format of a JSON document.
func detectDoc(s *decode.Source) (Format, error) {
	var v any
	_ = decode.Unmarshal(s.DocRec.Raw, &v)
	switch v := v.(type) {
	case []any:
		return detectArray(s.File, v)
	case map[string]any:
		if name := decode.ForeignFormat(v); name != "" {
			return "", notRead(s.File, name)
		}
		if opencode.IsExport(v) {
			return FormatOpencode, nil
		}
		if f := detectObject(v); f != "" {
			return f, nil
		}
	}
	return "", &NotTranscriptError{File: s.File, Reason: "JSON document in no known format"}
}

// detectArray names the format of a document that is an array, from its
// first elements.
func detectArray(file string, v []any) (Format, error) {
	for _, e := range v[:min(len(v), decode.DetectProbe)] {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m["source"]; ok && (m["action"] != nil || m["observation"] != nil) {
			return FormatOpenHands, nil
		}
		if name := decode.ForeignFormat(m); name != "" {
			return "", notRead(file, name)
		}
		switch {
		case otel.IsLangfuse(m):
			return FormatLangfuse, nil
		case opencode.IsMessage(m):
			return FormatOpencode, nil
		case decode.HasAny(m, "modelInfo") || decode.HasAny(m, "metrics") && m["role"] == "assistant":
			return FormatAnthropic, nil // Cline's api_conversation_history.json
		}
	}
	return decode.ChatFlavour(v), nil
}

// detectLines names the format of JSON Lines. Chat messages one per line
// are told apart by the features of all the probed lines, not of the
// first alone.
func detectLines(s *decode.Source) (Format, error) {
	var chat []any
	probed, objects := 0, 0
	var firstBad string // the first line that is no JSON object, and why
	for r := range s.Probe() {
		if probed++; probed > decode.DetectProbe {
			break
		}
		var m map[string]any
		if err := decode.Unmarshal(r.Raw, &m); err != nil {
			if firstBad == "" {
				firstBad = fmt.Sprintf("line %d: %s", r.Line, decode.DescribeJSONError(err, r))
			}
			continue
		}
		objects++
		if name := decode.ForeignFormat(m); name != "" {
			return "", notRead(s.File, name)
		}
		if _, ok := m["role"].(string); ok && m["messages"] == nil {
			chat = append(chat, m)
			continue
		}
		if f := detectObject(m); f != "" {
			return f, nil
		}
	}
	if len(chat) > 0 {
		return decode.ChatFlavour(chat), nil
	}
	if objects == 0 && firstBad != "" {
		// No line is an object: the first one's fault is the reason.
		return "", &NotTranscriptError{File: s.File, Reason: firstBad}
	}
	return "", &NotTranscriptError{File: s.File, Reason: "JSON Lines in no known format"}
}

// detectObject names the format a single top-level object belongs to, or
// returns "".
func detectObject(m map[string]any) Format {
	if f := detectRecord(m); f != "" {
		return f
	}
	if f := detectWrapper(m); f != "" {
		return f
	}
	if msgs, ok := m["messages"].([]any); ok {
		return detectConversation(m, msgs)
	}
	if _, ok := m["role"].(string); ok {
		return decode.ChatFlavour([]any{m})
	}
	return ""
}

// detectRecord names the format whose records m is one of, or returns "".
func detectRecord(m map[string]any) Format {
	typ, _ := m["type"].(string)
	switch {
	case claudeTypes[typ] && decode.HasAny(m, "message", "uuid", "sessionId", "session_id", "subtype", "leafUuid", "snapshot"):
		return FormatClaudeCode
	case codexRolloutTypes[typ] && decode.HasAny(m, "payload"):
		return FormatCodex
	case codexExecTypes[typ]:
		return FormatCodex
	case decode.HasAny(m, "source") && decode.HasAny(m, "action", "observation"):
		return FormatOpenHands
	case otelObject(m):
		return FormatOTel
	case atif.IsTrajectory(m):
		return FormatATIF
	case otel.IsLangfuse(m):
		return FormatLangfuse
	case copilot.IsEvent(m):
		return FormatCopilot
	}
	return ""
}

// detectWrapper names the format whose records m wraps (a page of
// Langfuse's API, an OpenHands export), or returns "".
func detectWrapper(m map[string]any) Format {
	if rows, ok := m["data"].([]any); ok && len(rows) > 0 {
		if row, ok := rows[0].(map[string]any); ok && otel.IsLangfuse(row) {
			return FormatLangfuse
		}
	}
	if evs, ok := m["events"].([]any); ok && decode.HasAny(m, "exported_at", "conversation") {
		for _, e := range evs[:min(len(evs), decode.DetectProbe)] {
			if e, ok := e.(map[string]any); ok && decode.HasAny(e, "source") && decode.HasAny(e, "action", "observation") {
				return FormatOpenHands
			}
		}
	}
	return ""
}

// detectConversation names the format of an object holding a
// conversation's messages, msgs.
func detectConversation(m map[string]any, msgs []any) Format {
	if decode.HasAny(m, "sessionId") && decode.HasAny(m, "projectHash", "startTime", "lastUpdated") {
		return FormatGeminiCLI
	}
	if decode.HasAny(m, "sessionId") && decode.HasAny(m, "version") {
		return FormatAnthropic // a Cline 4 session's messages file
	}
	openai, anthropic := decode.ChatScores(msgs)
	if _, ok := m["system"]; ok && openai == 0 {
		// Only Anthropic requests carry the system prompt apart.
		return FormatAnthropic
	}
	return decode.Flavour(openai, anthropic)
}

// otelObject reports whether m is OpenTelemetry data that follows the
// GenAI conventions: an OTLP TracesData or LogsData object, or a span or
// log record as the JavaScript SDK writes it whose attributes include a
// gen_ai one.
func otelObject(m map[string]any) bool {
	if decode.HasAny(m, "resourceSpans", "resourceLogs") {
		return true
	}
	attrs, ok := m["attributes"].(map[string]any)
	if !ok {
		return false
	}
	for k := range attrs {
		if strings.HasPrefix(k, "gen_ai.") || k == "openinference.span.kind" {
			return true
		}
	}
	return false
}
