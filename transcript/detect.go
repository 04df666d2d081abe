package transcript

import (
	"fmt"
	"strings"
)

// Formats returns every format, in a fixed order.
func Formats() []Format {
	return []Format{FormatClaudeCode, FormatCodex, FormatOpenAIChat, FormatAnthropic, FormatGeminiCLI, FormatOpenHands, FormatOTel, FormatATIF, FormatLangfuse, FormatOpencode, FormatCopilot}
}

var readers = map[Format]func(*source) ([]*Transcript, error){
	FormatClaudeCode: readClaudeCode,
	FormatCodex:      readCodex,
	FormatOpenAIChat: readOpenAIChat,
	FormatAnthropic:  readAnthropic,
	FormatGeminiCLI:  readGemini,
	FormatOpenHands:  readOpenHands,
	FormatOTel:       readOTel,
	FormatATIF:       readATIF,
	FormatLangfuse:   readLangfuse,
	FormatOpencode:   readOpencode,
	FormatCopilot:    readCopilot,
}

// detectProbe is how many records detection looks at.
const detectProbe = 64

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

// foreignFormat names the format of a JSON object that belongs to a
// recording ctxbench does not read but that looks like one it does (a
// role, a list of messages), or returns "": such input is refused by
// name, never read as chat messages with no content.
func foreignFormat(m map[string]any) string {
	typ, _ := m["type"].(string)
	role, _ := m["role"].(string)
	switch {
	case role == "model" && hasAny(m, "parts"):
		return "Gemini API contents (role \"model\" with parts)"
	case hasAny(m, "contents") && !hasAny(m, "messages"):
		if cs, ok := m["contents"].([]any); ok && len(cs) > 0 {
			if c, ok := cs[0].(map[string]any); ok && hasAny(c, "parts") {
				return "a Gemini API request (contents with parts)"
			}
		}
	case hasAny(m, "sessionID") && hasAny(m, "role") && hasAny(m, "time") && !hasAny(m, "content", "parts"):
		return "an opencode storage message alone (its parts are in storage/part: give ctxbench the storage directory, opencode.db or `opencode export`)"
	case typ == "init" && hasAny(m, "session_id", "model") || typ == "message" && hasAny(m, "delta") ||
		(typ == "tool_use" && hasAny(m, "tool_id", "tool_name")) || (typ == "tool_result" && hasAny(m, "tool_id")):
		return "Gemini CLI stream-json output (--output-format stream-json)"
	}
	return ""
}

// notRead is the error for input that looks like a format ctxbench does
// not read.
func notRead(file, name string) error {
	return &NotTranscriptError{file, name + ", a format ctxbench does not read"}
}

// detect names the format of s from its content.
func detect(s *source) (Format, error) {
	switch {
	case s.db != "" || s.storage != "":
		return FormatOpencode, nil // the only format kept in SQLite, or in a directory
	case s.doc:
		return detectDoc(s)
	}
	return detectLines(s)
}

// detectDoc names the format of a JSON document.
func detectDoc(s *source) (Format, error) {
	var v any
	_ = unmarshal(s.docRec.raw, &v)
	switch v := v.(type) {
	case []any:
		return detectArray(s.file, v)
	case map[string]any:
		if name := foreignFormat(v); name != "" {
			return "", notRead(s.file, name)
		}
		if opencodeExport(v) {
			return FormatOpencode, nil
		}
		if f := detectObject(v); f != "" {
			return f, nil
		}
	}
	return "", &NotTranscriptError{s.file, "JSON document in no known format"}
}

// detectArray names the format of a document that is an array, from its
// first elements.
func detectArray(file string, v []any) (Format, error) {
	for _, e := range v[:min(len(v), detectProbe)] {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m["source"]; ok && (m["action"] != nil || m["observation"] != nil) {
			return FormatOpenHands, nil
		}
		if name := foreignFormat(m); name != "" {
			return "", notRead(file, name)
		}
		switch {
		case langfuseObject(m):
			return FormatLangfuse, nil
		case opencodeObject(m):
			return FormatOpencode, nil
		case hasAny(m, "modelInfo") || hasAny(m, "metrics") && m["role"] == "assistant":
			return FormatAnthropic, nil // Cline's api_conversation_history.json
		}
	}
	return chatFlavour(v), nil
}

// detectLines names the format of JSON Lines. Chat messages one per line
// are told apart by the features of all the probed lines, not of the
// first alone.
func detectLines(s *source) (Format, error) {
	var chat []any
	probed, objects := 0, 0
	var firstBad string // the first line that is no JSON object, and why
	for r := range s.probe() {
		if probed++; probed > detectProbe {
			break
		}
		var m map[string]any
		if err := unmarshal(r.raw, &m); err != nil {
			if firstBad == "" {
				firstBad = fmt.Sprintf("line %d: %s", r.line, describeJSONError(err, r))
			}
			continue
		}
		objects++
		if name := foreignFormat(m); name != "" {
			return "", notRead(s.file, name)
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
		return chatFlavour(chat), nil
	}
	if objects == 0 && firstBad != "" {
		// No line is an object: the first one's fault is the reason.
		return "", &NotTranscriptError{s.file, firstBad}
	}
	return "", &NotTranscriptError{s.file, "JSON Lines in no known format"}
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
		return chatFlavour([]any{m})
	}
	return ""
}

// detectRecord names the format whose records m is one of, or returns "".
func detectRecord(m map[string]any) Format {
	typ, _ := m["type"].(string)
	switch {
	case claudeTypes[typ] && hasAny(m, "message", "uuid", "sessionId", "session_id", "subtype", "leafUuid", "snapshot"):
		return FormatClaudeCode
	case codexRolloutTypes[typ] && hasAny(m, "payload"):
		return FormatCodex
	case codexExecTypes[typ]:
		return FormatCodex
	case hasAny(m, "source") && hasAny(m, "action", "observation"):
		return FormatOpenHands
	case otelObject(m):
		return FormatOTel
	case atifObject(m):
		return FormatATIF
	case langfuseObject(m):
		return FormatLangfuse
	case copilotObject(m):
		return FormatCopilot
	}
	return ""
}

// detectWrapper names the format whose records m wraps (a page of
// Langfuse's API, an OpenHands export), or returns "".
func detectWrapper(m map[string]any) Format {
	if rows, ok := m["data"].([]any); ok && len(rows) > 0 {
		if row, ok := rows[0].(map[string]any); ok && langfuseObject(row) {
			return FormatLangfuse
		}
	}
	if evs, ok := m["events"].([]any); ok && hasAny(m, "exported_at", "conversation") {
		for _, e := range evs[:min(len(evs), detectProbe)] {
			if e, ok := e.(map[string]any); ok && hasAny(e, "source") && hasAny(e, "action", "observation") {
				return FormatOpenHands
			}
		}
	}
	return ""
}

// detectConversation names the format of an object holding a
// conversation's messages, msgs.
func detectConversation(m map[string]any, msgs []any) Format {
	if hasAny(m, "sessionId") && hasAny(m, "projectHash", "startTime", "lastUpdated") {
		return FormatGeminiCLI
	}
	if hasAny(m, "sessionId") && hasAny(m, "version") {
		return FormatAnthropic // a Cline 4 session's messages file
	}
	openai, anthropic := chatScores(msgs)
	if _, ok := m["system"]; ok && openai == 0 {
		// Only Anthropic requests carry the system prompt apart.
		return FormatAnthropic
	}
	return flavour(openai, anthropic)
}

// chatFlavour tells OpenAI chat messages from Anthropic ones by the
// features only one of them has; plain text messages read the same either
// way and are taken as openai-chat.
func chatFlavour(msgs []any) Format { return flavour(chatScores(msgs)) }

func flavour(openai, anthropic int) Format {
	if anthropic > openai {
		return FormatAnthropic
	}
	return FormatOpenAIChat
}

// chatScores counts the features of msgs that only OpenAI chat messages,
// or only Anthropic ones, have.
func chatScores(msgs []any) (openai, anthropic int) {
	for _, e := range msgs[:min(len(msgs), detectProbe)] {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if r, _ := m["role"].(string); r == "tool" || r == "function" {
			openai++
		}
		if hasAny(m, "tool_calls", "tool_call_id", "function_call", "reasoning_content") {
			openai++
		}
		if hasAny(m, "stop_reason") {
			anthropic++
		}
		parts, _ := m["content"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			t, _ := pm["type"].(string)
			switch {
			case t == "tool_use" || t == "tool_result" || t == "thinking" || t == "redacted_thinking" || t == "document":
				anthropic++
			case t == "image" && pm["source"] != nil:
				anthropic++
			case strings.HasPrefix(t, "image_url") || t == "input_audio" || t == "refusal":
				openai++
			}
		}
	}
	return openai, anthropic
}

// otelObject reports whether m is OpenTelemetry data that follows the
// GenAI conventions: an OTLP TracesData or LogsData object, or a span or
// log record as the JavaScript SDK writes it whose attributes include a
// gen_ai one.
func otelObject(m map[string]any) bool {
	if hasAny(m, "resourceSpans", "resourceLogs") {
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

func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// ParseFormat returns the format named s, or an error that lists the
// known ones.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown format %q (known: %s)", s, strings.Join(names, ", "))
}
