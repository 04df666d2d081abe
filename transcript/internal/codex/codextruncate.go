package codex

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/approx"
	"github.com/ctxbench/ctxbench/internal/codexcut"
	"github.com/ctxbench/ctxbench/transcript/internal/decode"
)

// codexTruncation is a turn's truncation_policy as a Codex rollout's
// turn_context records it (codex-rs protocol TruncationPolicy, serialized
// {"mode": "bytes" | "tokens", "limit": N}): the budget Codex cuts each
// tool output to before it enters the history it sends.
type codexTruncation struct {
	Mode  string `json:"mode"`
	Limit int64  `json:"limit"`
}

// valid reports whether p is a policy Codex could have applied.
func (p *codexTruncation) valid() bool {
	return p != nil && (p.Mode == "bytes" || p.Mode == "tokens") && p.Limit >= 0
}

// serialized is p × 1.2, the allowance ContextManager::process_item adds
// for serialization (codex-rs core/src/context_manager/history.rs at
// 023fad26: policy_with_serialization_budget = policy * 1.2; the
// multiplication rounds up).
func (p codexTruncation) serialized() codexTruncation {
	return codexTruncation{Mode: p.Mode, Limit: int64(math.Ceil(float64(p.Limit) * 1.2))}
}

// truncate is truncate_text(s, p) (codex-rs utils/output-truncation).
func (p codexTruncation) truncate(s string) string {
	if p.Mode == "tokens" {
		return codexcut.Tokens(s, int(p.Limit))
	}
	return codexcut.Bytes(s, int(p.Limit))
}

// codexOutputItem is an item of a tool output made of content items
// (FunctionCallOutputContentItem: input_text, input_image, input_audio,
// encrypted_content).
type codexOutputItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// truncateItems is truncate_function_output_items_with_policy for an
// output of content items (raw, a JSON array): the text items, in order,
// within one budget (bytes, or approx_token_count tokens), the first that
// does not fit cut to what is left and those after it omitted and
// counted in a last "[omitted N text items ...]" item; empty text items
// dropped; other items kept as they are. Audio items are kept whole:
// Codex charges them an estimate the rollout does not record. ok is false
// when raw is not an array of items.
func (p codexTruncation) truncateItems(raw json.RawMessage) (out json.RawMessage, changed, ok bool) {
	var items []json.RawMessage
	if decode.Unmarshal(raw, &items) != nil {
		return raw, false, false
	}
	remaining := p.Limit // byte_budget for bytes, token_budget for tokens: the limit
	var kept []json.RawMessage
	omitted := 0
	for _, it := range items {
		var item codexOutputItem
		if decode.Unmarshal(it, &item) != nil {
			return raw, false, false
		}
		if item.Type != "input_text" {
			kept = append(kept, it)
			continue
		}
		if item.Text == "" {
			changed = true
			continue
		}
		if remaining == 0 {
			omitted++
			continue
		}
		cost := int64(len(item.Text))
		if p.Mode == "tokens" {
			cost = int64(approx.Tokens(len(item.Text)))
		}
		if cost <= remaining {
			kept = append(kept, it)
			remaining -= cost
			continue
		}
		snippet := codexTruncation{Mode: p.Mode, Limit: remaining}.truncate(item.Text)
		remaining = 0
		changed = true
		if snippet == "" {
			omitted++
			continue
		}
		kept = append(kept, codexTextItem(snippet))
	}
	if omitted > 0 {
		changed = true
		kept = append(kept, codexTextItem("[omitted "+strconv.Itoa(omitted)+" text items ...]"))
	}
	if !changed {
		return raw, false, true
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range kept {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(decode.CompactJSON(it))
	}
	b.WriteByte(']')
	return b.Bytes(), true, true
}

// codexTextItem is an input_text content item holding text, its JSON as
// Codex writes it (serde: no HTML escapes).
func codexTextItem(text string) json.RawMessage {
	return []byte(`{"type":"input_text","text":` + string(noEscape(text)) + `}`)
}

// codexSent returns a tool output as Codex sent it under the turn's
// truncation policy p (nil: none recorded), and whether p cut it: the
// output's text, or its content items, truncated to p × 1.2. The
// rollout keeps the output whole (Session::record_conversation_items
// persists the items it records into the history, where
// ContextManager::record_items truncates them).
func codexSent(raw json.RawMessage, p *codexTruncation) (json.RawMessage, bool) {
	if !p.valid() {
		return raw, false
	}
	sp := p.serialized()
	var s string
	if decode.Unmarshal(raw, &s) == nil {
		t := sp.truncate(s)
		if t == s {
			return raw, false
		}
		return noEscape(t), true
	}
	if strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		if out, changed, ok := sp.truncateItems(raw); ok {
			return out, changed
		}
		return raw, false
	}
	// The older object form, {"content": ..., "success": ...}.
	var o struct {
		Content string `json:"content"`
		Success *bool  `json:"success,omitempty"`
	}
	if decode.Unmarshal(raw, &o) == nil {
		t := sp.truncate(o.Content)
		if t == o.Content {
			return raw, false
		}
		o.Content = t
		return noEscape(o), true
	}
	return raw, false
}

// noEscape is v's JSON as Codex (serde_json) writes it: without HTML
// escapes. v is a string or a struct of strings and a bool, which always
// encode.
func noEscape(v any) []byte {
	b, _ := decode.MarshalNoEscape(v)
	return b
}
