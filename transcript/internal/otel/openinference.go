package otel

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
)

// OpenInference (Arize Phoenix's tracing conventions, spec/
// semantic_conventions.md of Arize-ai/openinference) records the facts
// the GenAI conventions record under other names, with messages
// flattened into one attribute per field:
//
//	openinference.span.kind                  LLM, AGENT, TOOL, CHAIN, …
//	llm.model_name, llm.request.model_name, llm.response.model_name
//	llm.token_count.prompt                   the whole prompt: cache reads and writes included
//	llm.token_count.prompt_details.cache_read, .cache_write
//	llm.token_count.completion               reasoning included
//	llm.token_count.completion_details.reasoning
//	llm.input_messages.<i>.message.role, .content, .name, .tool_call_id
//	llm.input_messages.<i>.message.contents.<j>.message_content.type, .text, .image.image.url
//	llm.input_messages.<i>.message.tool_calls.<j>.tool_call.id, .function.name, .function.arguments
//	llm.output_messages.<i>.message.…        the same for the reply
//
// (the Anthropic instrumentation counts llm.token_count.prompt as
// input_tokens + cache_creation_input_tokens + cache_read_input_tokens,
// OpenAI's prompt_tokens holds its cached tokens: the same meaning as
// gen_ai.usage.input_tokens). fromOpenInference gives a record the
// GenAI attributes its OpenInference ones say, where it has none of
// its own, so that one reader reads both.
func fromOpenInference(r *otelRecord) {
	kind := r.str("openinference.span.kind")
	if kind == "" {
		return
	}
	set := func(key string, v json.RawMessage) {
		if _, ok := r.attrs[key]; !ok && len(v) > 0 {
			r.attrs[key] = v
		}
	}
	switch kind {
	case "LLM":
		set(Operation, json.RawMessage(`"chat"`))
	case "AGENT":
		set(Operation, json.RawMessage(`"invoke_agent"`))
	case "TOOL":
		set(Operation, json.RawMessage(`"execute_tool"`))
	}
	set("gen_ai.request.model", r.attrs["llm.request.model_name"])
	set("gen_ai.request.model", r.attrs["llm.model_name"])
	set("gen_ai.response.model", r.attrs["llm.response.model_name"])
	for _, m := range [][2]string{
		{"llm.token_count.prompt", InputTokens},
		{"llm.token_count.completion", OutputTokens},
		{"llm.token_count.prompt_details.cache_read", CacheRead},
		{"llm.token_count.prompt_details.cache_write", CacheCreation},
		{"llm.token_count.completion_details.reasoning", Reasoning},
	} {
		set(m[1], r.attrs[m[0]])
	}
	for key, prefix := range map[string]string{Input: "llm.input_messages.", Output: "llm.output_messages."} {
		if _, ok := r.attrs[key]; !ok {
			set(key, openInferenceMessages(r.attrs, prefix))
		}
	}
}

// openInferenceMessages gathers the flattened messages under prefix into
// the GenAI conventions' [{role, parts}] (as JSON), or returns nil when
// there are none. A message's content, then its contents in order, are
// text (or reasoning) parts; its tool calls tool_call parts; a tool
// message's content the tool_call_response to its tool_call_id.
func openInferenceMessages(attrs map[string]json.RawMessage, prefix string) json.RawMessage {
	msgs := map[int]*oiMessage{}
	for key, raw := range attrs {
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		i, field, ok := oiIndex(rest)
		if !ok {
			continue
		}
		m := msgs[i]
		if m == nil {
			m = &oiMessage{contents: map[int]*oiContent{}, calls: map[int]*oiContent{}}
			msgs[i] = m
		}
		if field, ok = strings.CutPrefix(field, "message."); ok {
			m.set(field, oiString(raw))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	var out []map[string]any
	for _, i := range slices.Sorted(maps.Keys(msgs)) {
		out = append(out, msgs[i].genAI())
	}
	b, _ := decode.MarshalNoEscape(out)
	return b
}

// An oiMessage is a flattened message gathered: its role, content, name
// and tool_call_id, and its contents and tool calls by index.
type oiMessage struct {
	role, text, name, toolCallID string
	contents, calls              map[int]*oiContent
}

// oiString is a flattened value as a string: a string's, else its JSON
// (a number or another value).
func oiString(raw json.RawMessage) string {
	var s string
	if decode.Unmarshal(raw, &s) != nil {
		return string(raw)
	}
	return s
}

// oiIndex splits "<n>.<rest>".
func oiIndex(s string) (int, string, bool) {
	n, rest, ok := strings.Cut(s, ".")
	i, err := strconv.Atoi(n)
	return i, rest, ok && err == nil && i >= 0
}

// set sets the message's field to v.
func (m *oiMessage) set(field, v string) {
	// part sets field f of the j-th of in, s being "<j>.<f>".
	part := func(in map[int]*oiContent, s string) {
		if j, f, ok := oiIndex(s); ok {
			if in[j] == nil {
				in[j] = &oiContent{}
			}
			in[j].set(f, v)
		}
	}
	switch {
	case field == "role":
		m.role = v
	case field == "content":
		m.text = v
	case field == "name":
		m.name = v
	case field == "tool_call_id":
		m.toolCallID = v
	case strings.HasPrefix(field, "contents."):
		part(m.contents, strings.TrimPrefix(field, "contents."))
	case strings.HasPrefix(field, "tool_calls."):
		part(m.calls, strings.TrimPrefix(field, "tool_calls."))
	}
}

// genAI returns the message as the GenAI conventions' {role, parts}.
func (m *oiMessage) genAI() map[string]any {
	var parts []map[string]any
	if m.role == "tool" {
		parts = append(parts, map[string]any{"type": "tool_call_response", "id": m.toolCallID, "response": m.text})
	} else if m.text != "" {
		parts = append(parts, map[string]any{"type": "text", "content": m.text})
	}
	for _, j := range slices.Sorted(maps.Keys(m.contents)) {
		parts = append(parts, m.contents[j].part())
	}
	for _, j := range slices.Sorted(maps.Keys(m.calls)) {
		parts = append(parts, m.calls[j].callPart())
	}
	msg := map[string]any{"role": m.role, "parts": parts}
	if m.name != "" {
		msg["name"] = m.name
	}
	return msg
}

// part returns a content as a GenAI part.
func (c *oiContent) part() map[string]any {
	switch c.typ {
	case "text", "":
		return map[string]any{"type": "text", "content": c.text}
	case "reasoning":
		return map[string]any{"type": "reasoning", "content": c.text}
	case "tool_use":
		return c.callPart()
	case "image":
		return map[string]any{"type": "uri", "modality": "image", "uri": c.image}
	}
	return map[string]any{"type": c.typ, "content": c.text}
}

// callPart returns a tool call as a GenAI tool_call part.
func (c *oiContent) callPart() map[string]any {
	p := map[string]any{"type": "tool_call", "id": c.callID, "name": c.name}
	if c.args != "" {
		p["arguments"] = decode.ArgumentsJSON(c.args)
	}
	return p
}

// oiContent is one of a message's contents (message_content.*, or a
// tool_call.* of an ordered tool_use content) or one of its tool calls
// (tool_call.*).
type oiContent struct {
	typ, text, image   string
	callID, name, args string
}

// set sets the field an attribute's name ends with.
func (c *oiContent) set(field, v string) {
	switch field {
	case "message_content.type":
		c.typ = v
	case "message_content.text":
		c.text = v
	case "message_content.image.image.url":
		c.image = v
	case "tool_call.id":
		c.callID = v
	case "tool_call.function.name":
		c.name = v
	case "tool_call.function.arguments":
		c.args = v
	}
}
