// Package otel reads OpenTelemetry traces that follow the GenAI semantic
// conventions or OpenInference's, and Langfuse's observations, which it
// reads as the same span records.
package otel

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// An otelRecord is one span or log record of an OpenTelemetry trace
// file, in either of its two shapes: OTLP JSON (resourceSpans →
// scopeSpans → spans, attributes a list of {key, value: AnyValue}, times
// in nanoseconds as strings) or the JavaScript SDK's span as its file
// exporters write it, one per line (attributes an object, times
// [seconds, nanoseconds]; GitHub Copilot's COPILOT_OTEL_FILE_EXPORTER_PATH
// files). Attribute values are plain JSON values either way.
type otelRecord struct {
	span                    bool
	traceID, spanID, parent string
	name                    string
	start, end              time.Time
	attrs                   map[string]json.RawMessage
	line, order             int
	// fixed is the usage a record of another format recorded (a
	// Langfuse observation's), read in its own terms; cost what it says
	// the call cost.
	fixed *model.Usage
	cost  float64
	// skipAs names the record where it is counted as skipped (else
	// "span" or "log" and its operation).
	skipAs string
}

// The gen_ai attributes read (OpenTelemetry GenAI semantic conventions).
const (
	Operation        = "gen_ai.operation.name"
	Input            = "gen_ai.input.messages"
	Output           = "gen_ai.output.messages"
	otelSystem       = "gen_ai.system_instructions"
	InputTokens      = "gen_ai.usage.input_tokens"
	OutputTokens     = "gen_ai.usage.output_tokens"
	CacheRead        = "gen_ai.usage.cache_read.input_tokens"
	CacheCreation    = "gen_ai.usage.cache_creation.input_tokens"
	Reasoning        = "gen_ai.usage.reasoning.output_tokens"
	ResponseID       = "gen_ai.response.id"
	Conversation     = "gen_ai.conversation.id"
	otelInferenceLog = "gen_ai.client.inference.operation.details"
)

// otelSessionAttrs are the attributes that name a session, by priority;
// of equal priorities the last present wins (ccusage's copilot adapter,
// parser.rs SESSION_ATTRS with Iterator::max_by_key).
var otelSessionAttrs = []struct {
	key      string
	priority int
}{
	{Conversation, 3}, {"copilot_chat.session_id", 3}, {"copilot_chat.chat_session_id", 3}, {"session.id", 3},
	{"github.copilot.interaction_id", 2}, {ResponseID, 1},
}

func (r *otelRecord) str(key string) string {
	raw, ok := r.attrs[key]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if decode.Unmarshal(raw, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// num reads a token count: a number or a numeric string (OTLP writes
// intValue as a string); anything else is 0.
func (r *otelRecord) num(key string) int64 {
	raw, ok := r.attrs[key]
	if !ok {
		return 0
	}
	raw = bytes.Trim(raw, `"`)
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func (r *otelRecord) model() string {
	if m := r.str("gen_ai.response.model"); m != "" {
		return m
	}
	return r.str("gen_ai.request.model")
}

// session returns the session the record names and its priority (0 when
// it names none).
func (r *otelRecord) session() (string, int) {
	id, best := "", 0
	for _, a := range otelSessionAttrs {
		if v := r.str(a.key); v != "" && a.priority >= best {
			id, best = v, a.priority
		}
	}
	return id, best
}

// call reports whether r is a model call: a span whose operation is chat
// (or named "chat …"), or a gen_ai.client.inference.operation.details
// event; inferenceLog says which.
func (r *otelRecord) call() (ok, inferenceLog bool) {
	if r.span {
		op := r.str(Operation)
		return op == "chat" || op == "text_completion" || op == "generate_content" || op == "" && strings.HasPrefix(r.name, "chat "), false
	}
	return r.str("event.name") == otelInferenceLog, true
}

// usage is the record's usage with the cache reads and writes taken out
// of gen_ai.usage.input_tokens, which the conventions say SHOULD include
// both (registry: "The value SHOULD be included in
// gen_ai.usage.input_tokens"). A count too small to include both
// includes what it can hold: the cache reads (as OpenAI counts them), or
// neither (as Anthropic's usage counts them). Output includes reasoning,
// as the conventions say.
func (r *otelRecord) usage() *model.Usage {
	if r.fixed != nil {
		u := *r.fixed
		return &u
	}
	in, read, write := r.num(InputTokens), r.num(CacheRead), r.num(CacheCreation)
	if write == 0 {
		write = r.num("gen_ai.usage.cache_write.input_tokens")
	}
	reasoning := r.num(Reasoning)
	if reasoning == 0 {
		reasoning = r.num("gen_ai.usage.reasoning_tokens")
	}
	u := model.Usage{Input: decode.UncachedInput(in, read, write), CacheRead: read, CacheWrite: write, Output: r.num(OutputTokens), Reasoning: reasoning}
	if u.IsZero() {
		if _, ok := r.attrs[InputTokens]; !ok {
			if _, ok := r.attrs[OutputTokens]; !ok {
				return nil
			}
		}
	}
	return &u
}

// otelSpanLine is a span or log record as the JavaScript SDK's file
// exporters write it.
type otelSpanLine struct {
	Type        string `json:"type"`
	TraceID     string `json:"traceId"`
	SpanID      string `json:"spanId"`
	ParentID    string `json:"parentSpanId"`
	SpanContext *struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId"`
	} `json:"spanContext"`
	ParentSpanContext *struct {
		SpanID string `json:"spanId"`
	} `json:"parentSpanContext"`
	Name       string                     `json:"name"`
	StartTime  json.RawMessage            `json:"startTime"`
	EndTime    json.RawMessage            `json:"endTime"`
	HrTime     json.RawMessage            `json:"hrTime"`
	Attributes map[string]json.RawMessage `json:"attributes"`
	// OTLP JSON, a TracesData or LogsData object.
	ResourceSpans []otlpResource `json:"resourceSpans"`
	ResourceLogs  []otlpResource `json:"resourceLogs"`
}

type otlpResource struct {
	ScopeSpans []struct {
		Spans []otlpSpan `json:"spans"`
	} `json:"scopeSpans"`
	ScopeLogs []struct {
		LogRecords []otlpSpan `json:"logRecords"`
	} `json:"scopeLogs"`
}

// otlpSpan is an OTLP JSON span or log record.
type otlpSpan struct {
	TraceID      string          `json:"traceId"`
	SpanID       string          `json:"spanId"`
	ParentSpanID string          `json:"parentSpanId"`
	Name         string          `json:"name"`
	Start        json.RawMessage `json:"startTimeUnixNano"`
	End          json.RawMessage `json:"endTimeUnixNano"`
	Time         json.RawMessage `json:"timeUnixNano"`
	Attributes   []otlpKeyValue  `json:"attributes"`
}

type otlpKeyValue struct {
	Key   string       `json:"key"`
	Value otlpAnyValue `json:"value"`
}

type otlpAnyValue struct {
	String *string         `json:"stringValue"`
	Int    json.RawMessage `json:"intValue"`
	Double json.RawMessage `json:"doubleValue"`
	Bool   *bool           `json:"boolValue"`
	Bytes  *string         `json:"bytesValue"`
	Array  *struct {
		Values []otlpAnyValue `json:"values"`
	} `json:"arrayValue"`
	KVList *struct {
		Values []otlpKeyValue `json:"values"`
	} `json:"kvlistValue"`
}

// json returns v as a plain JSON value (an int as a number).
func (v *otlpAnyValue) json() json.RawMessage {
	switch {
	case v.String != nil:
		b, _ := json.Marshal(*v.String)
		return b
	case v.Bytes != nil:
		b, _ := json.Marshal(*v.Bytes)
		return b
	case len(v.Int) > 0:
		return bytes.Trim(v.Int, `"`)
	case len(v.Double) > 0:
		return v.Double
	case v.Bool != nil:
		return json.RawMessage(strconv.FormatBool(*v.Bool))
	case v.Array != nil:
		parts := make([][]byte, len(v.Array.Values))
		for i := range v.Array.Values {
			parts[i] = v.Array.Values[i].json()
		}
		return slices.Concat([]byte("["), bytes.Join(parts, []byte(",")), []byte("]"))
	case v.KVList != nil:
		m := make(map[string]json.RawMessage, len(v.KVList.Values))
		for i := range v.KVList.Values {
			m[v.KVList.Values[i].Key] = v.KVList.Values[i].Value.json()
		}
		b, _ := json.Marshal(m)
		return b
	}
	return json.RawMessage("null")
}

// nanoTime reads OTLP's nanoseconds since the epoch (a string or a
// number); zero when absent.
func nanoTime(raw json.RawMessage) time.Time {
	n, err := strconv.ParseInt(string(bytes.Trim(raw, `"`)), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// hrTime reads the JavaScript SDK's [seconds, nanoseconds]; zero when
// absent.
func hrTime(raw json.RawMessage) time.Time {
	var p []int64
	if len(raw) == 0 || decode.Unmarshal(raw, &p) != nil || len(p) != 2 || p[0] <= 0 {
		return time.Time{}
	}
	return time.Unix(p[0], p[1]).UTC()
}

// otelRecords reads every span and log record of the line or document
// r, OpenInference's attributes read as the GenAI ones they stand for
// ([fromOpenInference]).
func otelRecords(l *otelSpanLine, line int) []otelRecord {
	out := spanRecords(l, line)
	for i := range out {
		fromOpenInference(&out[i])
	}
	return out
}

// spanRecords reads every span and log record of the line or document r.
func spanRecords(l *otelSpanLine, line int) []otelRecord {
	var out []otelRecord
	if l.ResourceSpans != nil || l.ResourceLogs != nil {
		add := func(s *otlpSpan, span bool) {
			rec := otelRecord{span: span, traceID: s.TraceID, spanID: s.SpanID, parent: s.ParentSpanID, name: s.Name,
				start: nanoTime(s.Start), end: nanoTime(s.End), attrs: make(map[string]json.RawMessage, len(s.Attributes)), line: line}
			if !span {
				rec.start, rec.spanID, rec.parent = nanoTime(s.Time), "", s.SpanID
			}
			for i := range s.Attributes {
				rec.attrs[s.Attributes[i].Key] = s.Attributes[i].Value.json()
			}
			out = append(out, rec)
		}
		for _, rs := range l.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for i := range ss.Spans {
					add(&ss.Spans[i], true)
				}
			}
		}
		for _, rs := range l.ResourceLogs {
			for _, sl := range rs.ScopeLogs {
				for i := range sl.LogRecords {
					add(&sl.LogRecords[i], false)
				}
			}
		}
		return out
	}
	rec := otelRecord{traceID: l.TraceID, spanID: l.SpanID, parent: l.ParentID, name: l.Name,
		start: hrTime(l.StartTime), end: hrTime(l.EndTime), attrs: l.Attributes, line: line}
	if l.SpanContext != nil {
		rec.traceID = cmp.Or(rec.traceID, l.SpanContext.TraceID)
		rec.spanID = cmp.Or(rec.spanID, l.SpanContext.SpanID)
	}
	if l.ParentSpanContext != nil {
		rec.parent = cmp.Or(rec.parent, l.ParentSpanContext.SpanID)
	}
	rec.span = l.Type == "span" || l.Type == "" && l.Name != "" && (rec.spanID != "" || rec.traceID != "" || len(l.StartTime) > 0)
	if !rec.span {
		rec.start, rec.spanID, rec.parent = hrTime(l.HrTime), "", rec.spanID
	}
	return append(out, rec)
}

// Read reads OpenTelemetry traces that follow the GenAI semantic
// conventions, or OpenInference's, read as the GenAI attributes they
// stand for ([fromOpenInference]): OTLP JSON (a document, or JSON Lines of TracesData and
// LogsData objects, as the OpenTelemetry file exporter writes them), or
// JSON Lines of spans as the JavaScript SDK's file exporters write them
// (GitHub Copilot's COPILOT_OTEL_FILE_EXPORTER_PATH).
//
// A call is a chat span (gen_ai.operation.name chat, text_completion or
// generate_content, or a span named "chat …" with no operation), or a
// gen_ai.client.inference.operation.details event whose trace and
// response id no chat span has. Its usage is gen_ai.usage.*, the cache
// reads and writes taken out of input_tokens (which the conventions say
// includes them) and reasoning kept as part of output_tokens; its model
// gen_ai.response.model, else gen_ai.request.model; its time the span's
// end. Other spans (invoke_agent, execute_tool, …) and events are counted
// as skipped.
//
// A transcript is a session: the calls sharing gen_ai.conversation.id (or
// Copilot's session attributes, as ccusage reads them; else another span
// of the trace's, else the trace id). A call under an invoke_agent span
// that is itself under another invoke_agent span is a subagent's: its
// transcript's Parent is the session and Subagent "agent-<span id>".
//
// Messages come from the opt-in content attributes: a call's
// gen_ai.system_instructions and gen_ai.input.messages are the prompt it
// sent, its gen_ai.output.messages the reply (one assistant message,
// the parts of every output message). A prompt that continues the
// history (the last prompt and its reply) adds its new messages; one
// that begins with a message holding a compaction part is a
// [Compaction] whose summary is that message; any other prompt starts
// the history again after a compaction with no summary (the messages
// before it are what the agent stopped sending). Without content a call
// is an assistant message with no blocks, and the bill is still whole.
func Read(s *decode.Source) ([]*model.Transcript, error) {
	holder := &model.Transcript{ID: s.NameID()} // skipped and malformed records
	var recs []otelRecord
	for r := range s.Records() {
		var l otelSpanLine
		ok, err := s.Decode(holder, r, &l)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for _, rec := range otelRecords(&l, r.Line) {
			rec.order = len(recs)
			recs = append(recs, rec)
		}
	}
	return otelTranscripts(s, holder, recs)
}

// otelCall is a call's record and the transcript it belongs to.
type otelCall struct {
	rec      *otelRecord
	session  string
	subagent string
	model    string
	usage    *model.Usage
}

func otelTranscripts(s *decode.Source, holder *model.Transcript, recs []otelRecord) ([]*model.Transcript, error) {
	ix := newOtelIndex(recs)
	calls := ix.calls(s, holder, recs)
	// Calls are taken in the order they started where every one records
	// when (exporters write a span when it ends), else in file order.
	if !slices.ContainsFunc(calls, func(c otelCall) bool { return c.rec.start.IsZero() }) {
		slices.SortStableFunc(calls, func(a, b otelCall) int { return a.rec.start.Compare(b.rec.start) })
	}
	var out []*model.Transcript
	byKey := map[string]*otelHistory{}
	for _, c := range calls {
		key := c.session + "\x00" + c.subagent
		h := byKey[key]
		if h == nil {
			t := &model.Transcript{ID: c.session}
			if c.subagent != "" {
				t.Parent, t.Subagent = c.session, c.subagent
				t.ID = c.session + "/" + c.subagent
			}
			h = &otelHistory{t: t}
			byKey[key] = h
			out = append(out, t)
		}
		if err := h.add(s, c); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(a, b *model.Transcript) int { return cmp.Compare(a.ID, b.ID) })
	return otelWithHolder(holder, out), nil
}

// otelWithHolder returns out with what holder counted of the file (the
// records no call holds, the bad ones) on its first transcript, or
// holder alone when the file holds no call.
func otelWithHolder(holder *model.Transcript, out []*model.Transcript) []*model.Transcript {
	switch {
	case len(out) == 0:
		return append(out, holder)
	case len(holder.Skipped) == 0 && len(holder.Bad) == 0:
		out[0].InvalidUTF8 += holder.InvalidUTF8
		return out
	}
	t := out[0]
	for k, n := range holder.Skipped {
		if t.Skipped == nil {
			t.Skipped = map[string]int{}
		}
		t.Skipped[k] += n
	}
	t.Bad, t.BadRecords, t.InvalidUTF8 = append(holder.Bad, t.Bad...), t.BadRecords+holder.BadRecords, t.InvalidUTF8+holder.InvalidUTF8
	return out
}

// An otelIndex is what a file's records say of their traces: each
// trace's session (from its record of highest priority) and model, each
// span by trace and span id, the traces and response ids of chat spans,
// and each record's own session.
type otelIndex struct {
	traceSession  map[string]string
	tracePriority map[string]int
	spans         map[string]*otelRecord
	traceModel    map[string]string
	chatTraces    map[string]bool
	chatResponses map[string]bool
	sessions      []string
}

func newOtelIndex(recs []otelRecord) *otelIndex {
	ix := &otelIndex{traceSession: map[string]string{}, tracePriority: map[string]int{}, spans: map[string]*otelRecord{},
		traceModel: map[string]string{}, chatTraces: map[string]bool{}, chatResponses: map[string]bool{}, sessions: make([]string, len(recs))}
	for i := range recs {
		r := &recs[i]
		id, p := r.session()
		ix.sessions[i] = id
		if p > ix.tracePriority[r.traceID] {
			ix.traceSession[r.traceID], ix.tracePriority[r.traceID] = id, p
		}
		if r.span && r.spanID != "" {
			ix.spans[r.traceID+"/"+r.spanID] = r
		}
		if _, ok := ix.traceModel[r.traceID]; !ok {
			if m := r.model(); m != "" {
				ix.traceModel[r.traceID] = m
			}
		}
		if ok, log := r.call(); ok && !log {
			ix.chatTraces[r.traceID] = r.traceID != ""
			if id := r.str(ResponseID); id != "" {
				ix.chatResponses[id] = true
			}
		}
	}
	return ix
}

// calls returns the records that are calls, in file order; the others
// are counted on holder. An inference log of a chat span is the span's
// call told twice: counted, not a call.
func (ix *otelIndex) calls(s *decode.Source, holder *model.Transcript, recs []otelRecord) []otelCall {
	var calls []otelCall
	for i := range recs {
		r := &recs[i]
		ok, log := r.call()
		if ok && log && (ix.chatTraces[r.traceID] || ix.chatResponses[r.str(ResponseID)]) {
			model.CountSkipped(holder, "log "+otelInferenceLog+" (of a chat span)")
			continue
		}
		if !ok {
			kind := "log"
			if r.span {
				kind = "span"
			}
			if op := cmp.Or(r.str(Operation), r.str("event.name")); op != "" {
				kind += " " + op
			}
			model.CountSkipped(holder, cmp.Or(r.skipAs, kind))
			continue
		}
		sess := cmp.Or(ix.sessions[i], ix.traceSession[r.traceID], r.traceID, s.NameID())
		use := r.usage()
		model := r.model()
		if model == "" && use != nil {
			// A billed call with no model is the trace's (as ccusage
			// prices it).
			model = ix.traceModel[r.traceID]
		}
		calls = append(calls, otelCall{rec: r, session: sess, subagent: otelSubagent(r, ix.spans), model: model, usage: use})
	}
	return calls
}

// otelSubagent names the subagent whose call r is ("" for a session's
// own): the nearest invoke_agent span above r (its gen_ai.agent.id, else
// "agent-<span id>"), when another invoke_agent span is above that one.
func otelSubagent(r *otelRecord, spans map[string]*otelRecord) string {
	var agents []string
	seen := 0
	for p := spans[r.traceID+"/"+r.parent]; p != nil && seen < 1000; p = spans[p.traceID+"/"+p.parent] {
		seen++
		if p.str(Operation) == "invoke_agent" || strings.HasPrefix(p.name, "invoke_agent") {
			agents = append(agents, cmp.Or(p.str("gen_ai.agent.id"), "agent-"+p.spanID))
		}
	}
	if len(agents) < 2 {
		return ""
	}
	return agents[0]
}

// otelHistory is a transcript being read and what its agent last sent.
type otelHistory struct {
	t *model.Transcript
	// base is where the history the agent sends starts (the last
	// compaction's index), summary that compaction's summary.
	base    int
	summary *model.Message
}

// add reads call c into the history.
func (h *otelHistory) add(s *decode.Source, c otelCall) error {
	t, r := h.t, c.rec
	pos := model.Pos{File: s.File, Line: r.line}
	prompt, err := otelPrompt(r, pos)
	if err != nil {
		if err := s.Bad(t, r.line, "%v", err); err != nil {
			return err
		}
		prompt = nil
	}
	if prompt != nil {
		h.extend(prompt, pos)
	}
	reply := model.Message{Role: model.RoleAssistant, Model: c.model, CallID: r.str(ResponseID), Pos: pos, Usage: c.usage, Time: cmp.Or(r.end, r.start)}
	raw, replied := r.attrs[Output]
	if reply.Usage == nil && !replied {
		// A prompt with no reply and no usage (a call that failed, or
		// ctxbench's writer holding the messages after the last call).
		return nil
	}
	if replied {
		msgs, err := otelMessages(raw, Output)
		if err != nil {
			if err := s.Bad(t, r.line, "%v", err); err != nil {
				return err
			}
		}
		for _, m := range msgs {
			reply.Blocks = append(reply.Blocks, m.Blocks...)
			if !m.Time.IsZero() {
				reply.Time = m.Time
			}
		}
	}
	model.AddModel(t, reply.Model)
	t.Messages = append(t.Messages, reply)
	t.Calls++
	t.ReportedCostUSD += r.cost
	return nil
}

// extend adds what prompt holds beyond what the agent sent before.
func (h *otelHistory) extend(prompt []model.Message, pos model.Pos) {
	t := h.t
	var lead *model.Message // the summary a compaction part marks
	if len(prompt) > 0 && compactionPart(&prompt[0]) {
		sum := prompt[0]
		sum.Blocks = slices.DeleteFunc(slices.Clone(sum.Blocks), func(b model.Block) bool { return b.Type == model.BlockOther && isCompactionPart(b.Raw) })
		lead, prompt = &sum, prompt[1:]
	}
	sent := t.Messages[h.base:]
	same := lead == nil && h.summary == nil || lead != nil && h.summary != nil && sameMessage(lead, h.summary)
	if same && prefixOf(sent, prompt) {
		t.Messages = append(t.Messages, prompt[len(sent):]...)
		return
	}
	t.Compactions = append(t.Compactions, model.Compaction{Index: len(t.Messages), Trigger: "auto", Summary: lead, Pos: pos})
	h.base, h.summary = len(t.Messages), lead
	t.Messages = append(t.Messages, prompt...)
}

// prefixOf reports whether a is a prefix of b, message by message.
func prefixOf(a, b []model.Message) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if !sameMessage(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// sameMessage reports whether a and b say the same: role, name and
// blocks (not where or when they were recorded, nor usage).
func sameMessage(a, b *model.Message) bool {
	if a.Role != b.Role || a.Name != b.Name || len(a.Blocks) != len(b.Blocks) {
		return false
	}
	for i := range a.Blocks {
		if !decode.SameBlock(a.Blocks[i], b.Blocks[i]) {
			return false
		}
	}
	return true
}

// compactionPart reports whether m holds a compaction part.
func compactionPart(m *model.Message) bool {
	for _, b := range m.Blocks {
		if b.Type == model.BlockOther && isCompactionPart(b.Raw) {
			return true
		}
	}
	return false
}

func isCompactionPart(raw json.RawMessage) bool {
	return bytes.HasPrefix(raw, []byte(`{"type":"compaction"`))
}

// otelPrompt returns the prompt call r sent: its system instructions as
// a system message, then its input messages; nil when it records
// neither.
func otelPrompt(r *otelRecord, pos model.Pos) ([]model.Message, error) {
	var out []model.Message
	if raw, ok := r.attrs[otelSystem]; ok {
		raw = attrJSON(raw)
		var parts []json.RawMessage
		var text string
		switch {
		case decode.Unmarshal(raw, &text) == nil:
			out = append(out, model.Message{Role: model.RoleSystem, Blocks: []model.Block{{Type: model.BlockText, Text: text}}, Pos: pos})
		case decode.Unmarshal(raw, &parts) == nil:
			bs, err := otelParts(parts)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", otelSystem, err)
			}
			if len(bs) > 0 { // an empty list sends no system prompt
				out = append(out, model.Message{Role: model.RoleSystem, Blocks: bs, Pos: pos})
			}
		default:
			return nil, fmt.Errorf("%s: expected a list of parts", otelSystem)
		}
	}
	raw, ok := r.attrs[Input]
	if !ok {
		return out, nil
	}
	msgs, err := otelMessages(raw, Input)
	if err != nil {
		return nil, err
	}
	for i := range msgs {
		msgs[i].Pos = pos
	}
	return append(out, msgs...), nil
}

// attrJSON returns the JSON an attribute holds: a string attribute's
// content when it is JSON (the conventions record messages as a JSON
// string where attributes cannot hold structures), else the value.
func attrJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || raw[0] != '"' {
		return raw
	}
	var s string
	if decode.Unmarshal(raw, &s) != nil {
		return raw
	}
	if t := strings.TrimSpace(s); t != "" && (t[0] == '[' || t[0] == '{') && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return raw
}

// otelMessage is a message of gen_ai.input.messages or
// gen_ai.output.messages; Timestamp is ctxbench's own (the writer's).
type otelMessage struct {
	Role      string            `json:"role"`
	Parts     []json.RawMessage `json:"parts"`
	Name      string            `json:"name"`
	Timestamp string            `json:"timestamp"`
	// Content is what some instrumentations write in place of parts.
	Content json.RawMessage `json:"content"`
}

// otelMessages reads a list of messages: the conventions' {role, parts},
// or chat messages as the providers' APIs take them (OpenAI's, with
// tool_calls; Anthropic's, with content blocks), told apart as
// detection tells them.
func otelMessages(raw json.RawMessage, attr string) ([]model.Message, error) {
	raw = attrJSON(raw)
	var elems []json.RawMessage
	if err := decode.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("%s: expected a list of messages {role, parts}", attr)
	}
	var flavour model.Format
	out := make([]model.Message, 0, len(elems))
	for i, e := range elems {
		var m otelMessage
		if err := decode.Unmarshal(e, &m); err != nil {
			return nil, fmt.Errorf("%s: message %d: expected {role, parts}", attr, i)
		}
		if m.Role == "" {
			return nil, fmt.Errorf("%s: message %d has no role", attr, i)
		}
		if !decode.OpenaiRoles[m.Role] {
			return nil, fmt.Errorf("%s: message %d: unknown role %q", attr, i, m.Role)
		}
		msg := model.Message{Role: model.Role(m.Role), Name: m.Name, Time: model.ParseTime(m.Timestamp)}
		var err error
		switch {
		case m.Parts != nil:
			msg.Blocks, err = otelParts(m.Parts)
		default:
			if flavour == "" {
				var all []any
				_ = decode.Unmarshal(raw, &all)
				flavour = decode.ChatFlavour(all)
			}
			msg, err = chatMessage(e, flavour)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: message %d: %v", attr, i, err)
		}
		out = append(out, msg)
	}
	return out, nil
}

// chatMessage reads raw as a chat message of flavour f.
func chatMessage(raw json.RawMessage, f model.Format) (model.Message, error) {
	if f == model.FormatAnthropic {
		var am decode.AnthropicMessage
		if err := decode.Unmarshal(raw, &am); err != nil {
			return model.Message{}, err
		}
		bs, err := decode.AnthropicContent(am.Content)
		return model.Message{Role: model.Role(am.Role), Blocks: bs, Time: model.ParseTime(am.Timestamp)}, err
	}
	var om decode.OpenaiMessage
	if err := decode.Unmarshal(raw, &om); err != nil {
		return model.Message{}, err
	}
	return decode.OpenaiMessageOf(om)
}

// otelPart is a message part of the GenAI conventions: text, reasoning,
// tool_call, tool_call_response (response, or content as Copilot writes
// it); is_error is ctxbench's own.
type otelPart struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ID        *string         `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Response  json.RawMessage `json:"response"`
	IsError   bool            `json:"is_error"`
}

// BlockWrapper holds a block no part of the conventions can say
// (ctxbench's writer): its type and its raw JSON.
const BlockWrapper = "ctxbench.block"

func otelParts(parts []json.RawMessage) ([]model.Block, error) {
	out := make([]model.Block, 0, len(parts))
	for i, p := range parts {
		b, err := PartBlock(p)
		if err != nil {
			return nil, fmt.Errorf("part %d: %v", i, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// text returns a text or reasoning part's content.
func (part *otelPart) text() (string, error) {
	var s string
	if len(part.Content) == 0 || string(part.Content) == "null" {
		return "", nil
	}
	if err := decode.Unmarshal(part.Content, &s); err != nil {
		return "", fmt.Errorf("%s part: content is not a string", part.Type)
	}
	return s, nil
}

// result returns a tool_call_response part as a tool result: its
// response (or content) as the model reads it.
func (part *otelPart) result() model.Block {
	b := model.Block{Type: model.BlockToolResult, IsError: part.IsError}
	if part.ID != nil {
		b.ID = *part.ID
	}
	resp := part.Response
	if len(resp) == 0 {
		resp = part.Content
	}
	switch {
	case len(resp) == 0 || string(resp) == "null":
	case resp[0] == '"' || resp[0] == '[':
		text, rich, err := decode.ResultContent(resp)
		if err != nil {
			b.Text = string(decode.CompactJSON(resp))
			break
		}
		b.Text = text
		if rich {
			b.Raw = decode.CompactJSON(resp)
		}
	default:
		// A structured response (an object, a number) is the text of
		// its JSON, as the model reads it.
		b.Text = string(decode.CompactJSON(resp))
	}
	return b
}

func PartBlock(p json.RawMessage) (model.Block, error) {
	var part otelPart
	if err := decode.Unmarshal(p, &part); err != nil {
		var obj map[string]json.RawMessage
		if decode.Unmarshal(p, &obj) != nil {
			return model.Block{}, fmt.Errorf("expected an object")
		}
		// Fields of another format's part: kept as it is.
		return model.Block{Type: model.BlockOther, Raw: decode.CompactJSON(p)}, nil
	}
	switch part.Type {
	case "text":
		s, err := part.text()
		return model.Block{Type: model.BlockText, Text: s}, err
	case "reasoning":
		s, err := part.text()
		return model.Block{Type: model.BlockThinking, Text: s}, err
	case "tool_call":
		b := model.Block{Type: model.BlockToolUse, Name: part.Name}
		if part.ID != nil {
			b.ID = *part.ID
		}
		if len(part.Arguments) > 0 && string(part.Arguments) != "null" {
			b.Input = decode.CompactJSON(part.Arguments)
		}
		return b, nil
	case "tool_call_response":
		return part.result(), nil
	case BlockWrapper:
		var w struct {
			BlockType model.BlockType `json:"block_type"`
			Text      string          `json:"text"`
			Raw       json.RawMessage `json:"raw"`
		}
		if decode.Unmarshal(p, &w) != nil || w.BlockType == "" {
			return model.Block{}, fmt.Errorf("%s part: expected block_type and raw", BlockWrapper)
		}
		return model.Block{Type: w.BlockType, Text: w.Text, Raw: decode.CompactJSON(w.Raw)}, nil
	case "image_url":
		return model.Block{Type: model.BlockImage, Raw: decode.CompactJSON(p)}, nil
	}
	// Any other part (blob, uri, file, compaction, another format's
	// block): an Anthropic block type where it is one, else other.
	bs, err := decode.AnthropicContent(slices.Concat([]byte("["), p, []byte("]")))
	if err != nil || len(bs) != 1 {
		return model.Block{Type: model.BlockOther, Raw: decode.CompactJSON(p)}, nil
	}
	return bs[0], nil
}
