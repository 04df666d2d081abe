package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/otel"
)

// writeOTel writes t as OTLP JSON following the GenAI conventions, a
// TracesData line per span (as the OpenTelemetry file exporter writes
// batches), so that what is held at once is one span, not the session: an invoke_agent span for the session (and one under
// it for a subagent, its gen_ai.agent.id the subagent's name), and
// under it a chat span per assistant message, holding what the agent
// sent for that call (gen_ai.input.messages: the history since the last
// compaction, that compaction's summary first with a compaction part),
// the message (gen_ai.output.messages), its model, response id, time and
// usage (gen_ai.usage.*: input_tokens the whole prompt, as the
// conventions say). Messages after the last call are the input of a
// last chat span with no output and no usage. What no part of the
// conventions says is kept in fields of ctxbench's own, which readers
// ignore: a message's "timestamp", a tool response's "is_error", and a
// block of no part's type as {"type":"ctxbench.block","block_type",
// "raw"}.
func writeOTel(w io.Writer, t *Transcript) error {
	session, agent := t.ID, ""
	if t.Parent != "" {
		session, agent = t.Parent, t.Subagent
	}
	trace := otelID(t.ID, 16)
	root := otelID(t.ID+"\x00agent", 8)
	var err error
	emitSpan := func(sp otelOutSpan) {
		if err == nil {
			err = writeOTelSpan(w, sp)
		}
	}
	parent := root
	var first, last time.Time
	for i := range t.Messages {
		if tm := t.Messages[i].Time; !tm.IsZero() {
			if first.IsZero() {
				first = tm
			}
			last = tm
		}
	}
	attrs := []otelKV{otelString(otel.Operation, "invoke_agent"), otelString(otel.Conversation, session)}
	emitSpan(otelOutSpan{TraceID: trace, SpanID: root, Name: "invoke_agent", Kind: 1,
		Start: otelNanos(first), End: otelNanos(last), Attributes: attrs})
	if agent != "" {
		parent = otelID(t.ID+"\x00subagent", 8)
		emitSpan(otelOutSpan{TraceID: trace, SpanID: parent, ParentSpanID: root, Name: "invoke_agent " + agent, Kind: 1,
			Start: otelNanos(first), End: otelNanos(last),
			Attributes: []otelKV{otelString(otel.Operation, "invoke_agent"), otelString(otel.Conversation, session), otelString("gen_ai.agent.id", agent)}})
	}
	comp, base, written := 0, 0, 0
	var summary *Message
	var emit func(i, end int, reply *Message)
	chat := func(i, end int, reply *Message) {
		for comp < len(t.Compactions) && t.Compactions[comp].Index <= end {
			c := &t.Compactions[comp]
			if c.Index > written {
				// Messages between the last call and the compaction:
				// the input of a span with no reply.
				emit(-1-c.Index, c.Index, nil)
			}
			base, summary = c.Index, c.Summary
			comp++
		}
		emit(i, end, reply)
		written = end
		if reply != nil {
			written++
		}
	}
	emit = func(i, end int, reply *Message) {
		input := make([]any, 0, end-base+1)
		if summary != nil {
			m := otelOutMessageOf(summary)
			m.Parts = append([]any{struct {
				Type string `json:"type"`
			}{"compaction"}}, m.Parts...)
			input = append(input, m)
		}
		for j := base; j < end; j++ {
			input = append(input, otelOutMessageOf(&t.Messages[j]))
		}
		in, _ := decode.MarshalNoEscape(input)
		attrs := []otelKV{otelString(otel.Operation, "chat"), otelString(otel.Conversation, session), otelString(otel.Input, string(in))}
		sp := otelOutSpan{TraceID: trace, SpanID: otelID(t.ID+"\x00"+strconv.Itoa(i), 8), ParentSpanID: parent, Name: "chat", Kind: 3}
		if reply != nil {
			out, _ := decode.MarshalNoEscape([]any{otelOutMessageOf(reply)})
			attrs = append(attrs, otelString(otel.Output, string(out)))
			if reply.Model != "" {
				sp.Name = "chat " + reply.Model
				attrs = append(attrs, otelString("gen_ai.request.model", reply.Model), otelString("gen_ai.response.model", reply.Model))
			}
			if reply.CallID != "" {
				attrs = append(attrs, otelString(otel.ResponseID, reply.CallID))
			}
			if u := reply.Usage; u != nil {
				attrs = append(attrs, otelInt(otel.InputTokens, u.Prompt()), otelInt(otel.CacheRead, u.CacheRead),
					otelInt(otel.CacheCreation, u.CacheWrite), otelInt(otel.OutputTokens, u.Output))
				if u.Reasoning > 0 {
					attrs = append(attrs, otelInt(otel.Reasoning, u.Reasoning))
				}
			}
			sp.Start, sp.End = otelNanos(reply.Time), otelNanos(reply.Time)
		}
		sp.Attributes = attrs
		emitSpan(sp)
	}
	end := 0
	for i := range t.Messages {
		if t.Messages[i].Role == RoleAssistant {
			chat(i, i, &t.Messages[i])
			end = i + 1
		}
	}
	if end < len(t.Messages) || comp < len(t.Compactions) {
		chat(len(t.Messages), len(t.Messages), nil)
	}
	return err
}

// writeOTelSpan writes sp as one TracesData line.
func writeOTelSpan(w io.Writer, sp otelOutSpan) error {
	line, err := decode.MarshalNoEscape(otelOutDoc{ResourceSpans: []otelOutResource{{
		Resource:   otelOutAttrs{Attributes: []otelKV{otelString("service.name", "ctxbench")}},
		ScopeSpans: []otelOutScope{{Scope: otelOutScopeName{Name: "ctxbench"}, Spans: []otelOutSpan{sp}}},
	}}})
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}

type otelOutDoc struct {
	ResourceSpans []otelOutResource `json:"resourceSpans"`
}

type otelOutResource struct {
	Resource   otelOutAttrs   `json:"resource"`
	ScopeSpans []otelOutScope `json:"scopeSpans"`
}

type otelOutAttrs struct {
	Attributes []otelKV `json:"attributes"`
}

type otelOutScope struct {
	Scope otelOutScopeName `json:"scope"`
	Spans []otelOutSpan    `json:"spans"`
}

type otelOutScopeName struct {
	Name string `json:"name"`
}

type otelOutSpan struct {
	TraceID      string   `json:"traceId"`
	SpanID       string   `json:"spanId"`
	ParentSpanID string   `json:"parentSpanId,omitempty"`
	Name         string   `json:"name"`
	Kind         int      `json:"kind"`
	Start        string   `json:"startTimeUnixNano"`
	End          string   `json:"endTimeUnixNano"`
	Attributes   []otelKV `json:"attributes"`
}

type otelKV struct {
	Key   string         `json:"key"`
	Value map[string]any `json:"value"`
}

func otelString(k, v string) otelKV { return otelKV{k, map[string]any{"stringValue": v}} }

// otelInt is an int attribute, written as OTLP JSON writes 64-bit
// integers: a decimal string.
func otelInt(k string, v int64) otelKV {
	return otelKV{k, map[string]any{"intValue": strconv.FormatInt(v, 10)}}
}

func otelNanos(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixNano(), 10)
}

// otelID is a trace (16 bytes) or span (8 bytes) id made from s, in hex:
// the same transcript gets the same ids.
func otelID(s string, n int) string {
	h := fnv64(s)
	var b strings.Builder
	for b.Len() < 2*n {
		fmt.Fprintf(&b, "%016x", h)
		h = fnv64(s + strconv.FormatUint(h, 16))
	}
	return b.String()[:2*n]
}

func fnv64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

type otelOutMessage struct {
	Role      string `json:"role"`
	Name      string `json:"name,omitempty"`
	Parts     []any  `json:"parts"`
	Timestamp string `json:"timestamp,omitempty"`
}

func otelOutMessageOf(m *Message) otelOutMessage {
	out := otelOutMessage{Role: string(m.Role), Name: m.Name, Parts: make([]any, 0, len(m.Blocks))}
	if m.Role != RoleAssistant {
		out.Timestamp = timestamp(m.Time)
	}
	for i := range m.Blocks {
		out.Parts = append(out.Parts, otelOutPart(&m.Blocks[i]))
	}
	return out
}

type otelTextPart struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

func otelOutPart(b *Block) any {
	switch {
	case b.Type == BlockText && len(b.Raw) == 0:
		return otelTextPart{"text", b.Text}
	case b.Type == BlockThinking && len(b.Raw) == 0:
		return otelTextPart{"reasoning", b.Text}
	case b.Type == BlockToolUse:
		return struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments,omitempty"`
		}{"tool_call", b.ID, b.Name, b.Input}
	case b.Type == BlockToolResult:
		var resp any = b.Text
		if len(b.Raw) > 0 {
			resp = b.Raw
		}
		return struct {
			Type     string `json:"type"`
			ID       string `json:"id"`
			Response any    `json:"response"`
			IsError  bool   `json:"is_error,omitempty"`
		}{"tool_call_response", b.ID, resp, b.IsError}
	}
	// A block with raw JSON is written as it is where reading it back
	// gives the same block, else wrapped.
	if len(b.Raw) > 0 && b.Raw[0] == '{' {
		if back, err := otel.PartBlock(b.Raw); err == nil && back.Type == b.Type && bytes.Equal(back.Raw, b.Raw) && back.Text == b.Text {
			return b.Raw
		}
	}
	return struct {
		Type      string          `json:"type"`
		BlockType BlockType       `json:"block_type"`
		Text      string          `json:"text,omitempty"`
		Raw       json.RawMessage `json:"raw,omitempty"`
	}{otel.BlockWrapper, b.Type, b.Text, b.Raw}
}
