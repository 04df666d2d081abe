package otel

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// langfuseObservation is a row of a Langfuse export: the blob storage
// export's observations (snake_case: trace_id, parent_observation_id,
// provided_model_name, usage_details, cost_details, session_id,
// start_time) or the public API's (camelCase). A GENERATION is a model
// call; its input and output are what the instrumentation recorded (the
// messages sent, the reply), as JSON or as a string holding JSON.
type langfuseObservation struct {
	ID                 string          `json:"id"`
	Type               string          `json:"type"`
	Name               string          `json:"name"`
	TraceID            string          `json:"trace_id"`
	TraceIDAPI         string          `json:"traceId"`
	ParentID           string          `json:"parent_observation_id"`
	ParentIDAPI        string          `json:"parentObservationId"`
	SessionID          string          `json:"session_id"`
	SessionIDAPI       string          `json:"sessionId"`
	StartTime          string          `json:"start_time"`
	StartTimeAPI       string          `json:"startTime"`
	EndTime            string          `json:"end_time"`
	EndTimeAPI         string          `json:"endTime"`
	ProvidedModel      string          `json:"provided_model_name"`
	ProvidedModelAPI   string          `json:"providedModelName"`
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	Output             json.RawMessage `json:"output"`
	UsageDetails       json.RawMessage `json:"usage_details"`
	UsageDetailsAPI    json.RawMessage `json:"usageDetails"`
	CostDetails        json.RawMessage `json:"cost_details"`
	CostDetailsAPI     json.RawMessage `json:"costDetails"`
	LegacyUsageAPI     json.RawMessage `json:"usage"`
	CalculatedCostAPI  *float64        `json:"calculatedTotalCost"`
	TotalCostAPI       *float64        `json:"totalCost"`
	CompletionStartAPI string          `json:"completionStartTime"`
}

// langfuseTypes are the observation types Langfuse records.
var langfuseTypes = map[string]bool{
	"GENERATION": true, "SPAN": true, "EVENT": true, "AGENT": true, "TOOL": true, "CHAIN": true,
	"RETRIEVER": true, "EVALUATOR": true, "EMBEDDING": true, "GUARDRAIL": true,
}

// IsLangfuse reports whether m is a Langfuse observation row.
func IsLangfuse(m map[string]any) bool {
	typ, _ := m["type"].(string)
	return langfuseTypes[typ] && decode.HasAny(m, "trace_id", "traceId") && decode.HasAny(m, "start_time", "startTime")
}

// ReadLangfuse reads Langfuse observations: JSON Lines of rows (the blob
// storage export's JSONL), a JSON array of them (its JSON), or a page of
// the public API ({"data": [...]}). Sessions, subagents and the messages
// are rebuilt as from OpenTelemetry spans (see [Read]: a GENERATION
// is a chat span, an AGENT an invoke_agent span). A call's usage is its
// usage_details, whose keys Langfuse prices one by one and whose total
// is their sum, so none includes another: keys naming cache reads
// (input_cached_tokens, cache_read_input_tokens, …) or writes
// (cache_creation_input_tokens, …) are those, other input_* keys
// uncached input, output_* keys output (output_reasoning_* its
// reasoning); a key of no such kind is counted as skipped. Its cost
// (cost_details.total) is summed in ReportedCostUSD.
func ReadLangfuse(s *decode.Source) ([]*model.Transcript, error) {
	holder := &model.Transcript{ID: s.NameID()}
	var recs []otelRecord
	add := func(r decode.Record) error {
		var o langfuseObservation
		ok, err := s.Decode(holder, r, &o)
		if err != nil || !ok {
			return err
		}
		rec := o.record(holder, r.Line)
		rec.order = len(recs)
		recs = append(recs, rec)
		return nil
	}
	for r := range s.Records() {
		rows := []decode.Record{r}
		var err error
		switch {
		case r.Raw[0] == '[':
			rows, err = decode.Elems(r.Raw, r.Line)
		case langfusePage(r.Raw):
			rows, err = decode.MessageRecords(r, "data")
		}
		if err != nil {
			if err := s.Bad(holder, r.Line, "%v", err); err != nil {
				return nil, err
			}
		}
		for _, row := range rows {
			if err := add(row); err != nil {
				return nil, err
			}
		}
	}
	return otelTranscripts(s, holder, recs)
}

// langfusePage reports whether raw is a page of the public API: an
// object with data and no type.
func langfusePage(raw []byte) bool {
	var p struct {
		Type *string         `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	return decode.Unmarshal(raw, &p) == nil && p.Type == nil && bytes.HasPrefix(bytes.TrimSpace(p.Data), []byte("["))
}

// record returns o as the span it stands for.
func (o *langfuseObservation) record(holder *model.Transcript, line int) otelRecord {
	op := strings.ToLower(o.Type)
	switch o.Type {
	case "GENERATION":
		op = "chat"
	case "AGENT":
		op = "invoke_agent"
	}
	r := otelRecord{span: true, traceID: cmp.Or(o.TraceID, o.TraceIDAPI), spanID: o.ID, parent: cmp.Or(o.ParentID, o.ParentIDAPI),
		name: o.Name, start: langfuseTime(cmp.Or(o.StartTime, o.StartTimeAPI)), end: langfuseTime(cmp.Or(o.EndTime, o.EndTimeAPI)),
		line: line, attrs: map[string]json.RawMessage{Operation: jsonString(op)}, skipAs: "observation " + o.Type}
	if sess := cmp.Or(o.SessionID, o.SessionIDAPI); sess != "" {
		r.attrs[Conversation] = jsonString(sess)
	}
	if m := cmp.Or(o.ProvidedModel, o.ProvidedModelAPI, o.Model); m != "" {
		r.attrs["gen_ai.response.model"] = jsonString(m)
	}
	if o.Type != "GENERATION" {
		return r
	}
	if in := langfuseMessages(o.Input, model.RoleUser); in != nil {
		r.attrs[Input] = in
	}
	if out := langfuseMessages(o.Output, model.RoleAssistant); out != nil {
		r.attrs[Output] = out
	}
	r.fixed = langfuseUsage(holder, firstRaw(o.UsageDetails, o.UsageDetailsAPI, o.LegacyUsageAPI))
	if c, ok := detailTotal(firstRaw(o.CostDetails, o.CostDetailsAPI)); ok {
		r.cost = c
	} else if c := cmp.Or(o.TotalCostAPI, o.CalculatedCostAPI); c != nil {
		r.cost = *c
	}
	return r
}

func firstRaw(raws ...json.RawMessage) json.RawMessage {
	for _, r := range raws {
		if len(r) > 0 && string(r) != "null" {
			return attrJSON(r)
		}
	}
	return nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// langfuseTime reads the export's "2024-05-29 13:46:19.963000" (UTC) or
// the API's RFC 3339.
func langfuseTime(s string) time.Time {
	if t, err := time.Parse("2006-01-02 15:04:05.999999999", s); err == nil {
		return t.UTC()
	}
	return model.ParseTime(s)
}

// langfuseMessages returns what an observation's input or output holds
// as a list of messages: a list as it is, an object holding "messages"
// (its "system" first), one message, or text as a message of role
// (nil when it holds nothing).
func langfuseMessages(raw json.RawMessage, role model.Role) json.RawMessage {
	raw = attrJSON(bytes.TrimSpace(raw))
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	switch raw[0] {
	case '[':
		return raw
	case '{':
		var obj map[string]json.RawMessage
		if decode.Unmarshal(raw, &obj) != nil {
			return nil
		}
		if msgs, ok := obj["messages"]; ok {
			sys, ok := obj["system"]
			if !ok || string(sys) == "null" {
				return msgs
			}
			var list []json.RawMessage
			if decode.Unmarshal(msgs, &list) != nil {
				return msgs
			}
			first, _ := json.Marshal(map[string]json.RawMessage{"role": jsonString(string(model.RoleSystem)), "content": sys})
			b, _ := json.Marshal(append([]json.RawMessage{first}, list...))
			return b
		}
		if _, ok := obj["role"]; ok {
			return slices.Concat([]byte("["), raw, []byte("]"))
		}
	}
	// Text, or a value of no message shape: its JSON as the text.
	text := string(raw)
	if raw[0] == '"' {
		_ = decode.Unmarshal(raw, &text)
	}
	b, _ := json.Marshal([]map[string]string{{"role": string(role), "content": text}})
	return b
}

// langfuseUsage reads usage_details (nil when absent).
func langfuseUsage(holder *model.Transcript, raw json.RawMessage) *model.Usage {
	if len(raw) == 0 {
		return nil
	}
	var details map[string]json.RawMessage
	if decode.Unmarshal(raw, &details) != nil || len(details) == 0 {
		return nil
	}
	var u model.Usage
	for _, k := range slices.Sorted(maps.Keys(details)) {
		n, err := strconv.ParseInt(string(bytes.Trim(details[k], `"`)), 10, 64)
		if err != nil || n < 0 {
			model.CountSkipped(holder, "usage_details "+k+" (not a count)")
			continue
		}
		key := strings.ToLower(k)
		switch {
		case key == "total" || key == "unit":
		case strings.Contains(key, "cache_read") || strings.Contains(key, "cached") || strings.Contains(key, "cache_hit"):
			u.CacheRead += n
		case strings.Contains(key, "cache_creation") || strings.Contains(key, "cache_write"):
			u.CacheWrite += n
		case strings.HasPrefix(key, "input") || strings.HasPrefix(key, "prompt"):
			u.Input += n
		case strings.HasPrefix(key, "output") || strings.HasPrefix(key, "completion"):
			u.Output += n
			if strings.Contains(key, "reasoning") {
				u.Reasoning += n
			}
		default:
			model.CountSkipped(holder, "usage_details "+k)
		}
	}
	return &u
}

// detailTotal returns cost_details' total, else the sum of its entries.
func detailTotal(raw json.RawMessage) (float64, bool) {
	var d map[string]float64
	if len(raw) == 0 || decode.Unmarshal(raw, &d) != nil || len(d) == 0 {
		return 0, false
	}
	if t, ok := d["total"]; ok {
		return t, true
	}
	sum := 0.0
	for _, k := range slices.Sorted(maps.Keys(d)) {
		sum += d[k]
	}
	return sum, true
}
