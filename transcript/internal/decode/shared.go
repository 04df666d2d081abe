package decode

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// UncachedInput is the uncached part of a prompt count that includes
// the cache reads and writes (OpenTelemetry's input_tokens, ATIF's
// prompt_tokens). A count too small to include both includes what it
// can hold: the cache reads (as OpenAI counts them), or neither (as
// Anthropic's usage counts them).
func UncachedInput(prompt, read, write int64) int64 {
	switch {
	case prompt >= read+write:
		return prompt - read - write
	case prompt >= read:
		return prompt - read
	}
	return prompt
}

// SameBlock reports whether a and b are the same block written twice.
func SameBlock(a, b model.Block) bool {
	return a.Type == b.Type && a.ID == b.ID && a.Name == b.Name && a.Text == b.Text && a.Measured == b.Measured &&
		a.IsError == b.IsError && bytes.Equal(a.Input, b.Input) && bytes.Equal(a.Raw, b.Raw)
}

// ArgumentsJSON returns a function call's arguments string as JSON: itself
// when it is valid JSON, compacted, otherwise as a JSON string.
func ArgumentsJSON(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return CompactJSON(json.RawMessage(args))
	}
	b, _ := json.Marshal(args)
	return b
}

// ForeignFormat names the format of a JSON object that belongs to a
// recording ctxbench does not read but that looks like one it does (a
// role, a list of messages), or returns "": such input is refused by
// name, never read as chat messages with no content.
func ForeignFormat(m map[string]any) string {
	typ, _ := m["type"].(string)
	role, _ := m["role"].(string)
	switch {
	case role == "model" && HasAny(m, "parts"):
		return "Gemini API contents (role \"model\" with parts)"
	case HasAny(m, "contents") && !HasAny(m, "messages"):
		if cs, ok := m["contents"].([]any); ok && len(cs) > 0 {
			if c, ok := cs[0].(map[string]any); ok && HasAny(c, "parts") {
				return "a Gemini API request (contents with parts)"
			}
		}
	case HasAny(m, "sessionID") && HasAny(m, "role") && HasAny(m, "time") && !HasAny(m, "content", "parts"):
		return "an opencode storage message alone (its parts are in storage/part: give ctxbench the storage directory, opencode.db or `opencode export`)"
	case typ == "init" && HasAny(m, "session_id", "model") || typ == "message" && HasAny(m, "delta") ||
		(typ == "tool_use" && HasAny(m, "tool_id", "tool_name")) || (typ == "tool_result" && HasAny(m, "tool_id")):
		return "Gemini CLI stream-json output (--output-format stream-json)"
	}
	return ""
}

// ChatFlavour tells OpenAI chat messages from Anthropic ones by the
// features only one of them has; plain text messages read the same either
// way and are taken as openai-chat.
func ChatFlavour(msgs []any) model.Format { return Flavour(ChatScores(msgs)) }

func Flavour(openai, anthropic int) model.Format {
	if anthropic > openai {
		return model.FormatAnthropic
	}
	return model.FormatOpenAIChat
}

// ChatScores counts the features of msgs that only OpenAI chat messages,
// or only Anthropic ones, have.
func ChatScores(msgs []any) (openai, anthropic int) {
	for _, e := range msgs[:min(len(msgs), DetectProbe)] {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if r, _ := m["role"].(string); r == "tool" || r == "function" {
			openai++
		}
		if HasAny(m, "tool_calls", "tool_call_id", "function_call", "reasoning_content") {
			openai++
		}
		if HasAny(m, "stop_reason") {
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
