package pricing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/suggest"
)

// maxPrice is the dearest price a table may give, in USD per million
// tokens: a thousand dollars a token. The dearest model lists $600 per
// million output tokens, and LiteLLM's dearest entry, a slip of units,
// $0.54 a token; a price past maxPrice is a corrupt file, not a price.
// Under it a rate is a whole number of pico-dollars per token below
// 10¹⁵, which no conversion overflows.
const maxPrice = 1e9

// Load reads a price file: ctxbench's own format ({"models": {…}}, USD
// per million tokens) or LiteLLM's model_prices_and_context_window.json
// as it is (USD per token).
//
// A price that is not a number from 0 to 1e9 USD per million tokens (a string, a
// negative price, 1e400) is an error naming the file, its line, the
// model and the field, never a model left out. So is a field ctxbench's
// format does not have, and in LiteLLM's a field that reads as one of
// the prices ctxbench takes but is not one it can read
// (input_cost_per_tokens, input_cost_per_token_above_200k): LiteLLM's
// other fields (the priority and batch tiers, audio, images, seconds)
// are not read, and an entry priced in them alone is not priced.
func Load(path string) (Prices, error) {
	b, err := limit.ReadFile(path, limit.Prices)
	if err != nil {
		return nil, err
	}
	return parse(b, path)
}

// A member is a member of a JSON object (or an element of an array, with
// no name): its value and the value's offset in the file.
type member struct {
	name string
	raw  json.RawMessage
	off  int
}

// members returns the members of the JSON object raw, which starts at
// offset base of its file, in their order; an error when raw is not an
// object.
func members(raw []byte, base int) ([]member, error) {
	return walk(raw, base, '{')
}

// elements returns the elements of the JSON array raw, as [members].
func elements(raw []byte, base int) ([]member, error) {
	return walk(raw, base, '[')
}

func walk(raw []byte, base int, open json.Delim) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != open {
		return nil, errors.New("not a JSON " + map[json.Delim]string{'{': "object", '[': "array"}[open])
	}
	var out []member
	for dec.More() {
		var m member
		if open == '{' {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			m.name, _ = t.(string)
		}
		if err := dec.Decode(&m.raw); err != nil {
			return nil, err
		}
		m.off = base + int(dec.InputOffset()) - len(m.raw)
		out = append(out, m)
	}
	return out, nil
}

// lineOf is the 1-based line of offset off in b.
func lineOf(b []byte, off int) int {
	return 1 + bytes.Count(b[:min(max(off, 0), len(b))], []byte{'\n'})
}

// A fieldError is what is wrong with a model's entry, at offset off of
// the file.
type fieldError struct {
	off int
	msg string
}

func (e *fieldError) Error() string { return e.msg }

// entryError names the file, the line and the model of what err says is
// wrong with the model's entry, which starts at off.
func entryError(b []byte, file, model string, off int, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		off = fe.off
	}
	return fmt.Errorf("%s:%d: model %q: %w", file, lineOf(b, off), model, err)
}

// parseEmbedded reads the embedded table, ctxbench's own, trusted: its
// entries are not checked as [parse] checks them (TestEmbeddedTable
// does), which takes three times as long.
func parseEmbedded(b []byte, name string) (Prices, error) {
	var own struct {
		Models map[string]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(b, &own); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	models := make([]member, 0, len(own.Models))
	for k, raw := range own.Models {
		models = append(models, member{name: k, raw: raw})
	}
	return parseOwn(b, models, name, false)
}

// parse reads a price table: ctxbench's own, or LiteLLM's.
func parse(b []byte, name string) (Prices, error) {
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d: %w", name, lineOf(b, int(se.Offset)), err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	top, err := members(b, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w of model prices", name, err)
	}
	for _, m := range slices.Backward(top) { // the last, as encoding/json takes it
		if m.name == "models" {
			if ms, err := members(m.raw, m.off); err == nil && len(ms) > 0 {
				return parseOwn(b, ms, name, true)
			}
			break
		}
	}
	out := Prices{}
	for _, m := range top {
		p, ok, err := litellmPrice(m, name)
		if err != nil {
			return nil, entryError(b, name, m.name, m.off, err)
		}
		if ok {
			out[m.name] = p
		} else {
			delete(out, m.name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no model prices (want ctxbench's {\"models\": …} or LiteLLM's model_prices_and_context_window.json)", name)
	}
	return out, nil
}

// ownLegacy are the long-context fields of ctxbench's table before it
// named its threshold: *_above_200k.
type ownLegacy struct {
	InputAbove   float64 `json:"input_above_200k"`
	OutputAbove  float64 `json:"output_above_200k"`
	ReadAbove    float64 `json:"cache_read_above_200k"`
	Write5mAbove float64 `json:"cache_write_5m_above_200k"`
	Write1hAbove float64 `json:"cache_write_1h_above_200k"`
}

// ownFields are the fields of an entry of ctxbench's table, each true
// when it is a price.
var ownFields = func() map[string]bool {
	out := map[string]bool{}
	for _, t := range []reflect.Type{reflect.TypeFor[Price](), reflect.TypeFor[ownLegacy]()} {
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out[name] = f.Type.Kind() == reflect.Float64
		}
	}
	return out
}()

// ownNames are the names of ownFields, sorted.
var ownNames = slices.Sorted(maps.Keys(ownFields))

// parseOwn reads ctxbench's table, the members of its models, checked
// when check is set ([checkOwn]); the older long-context fields
// (*_above_200k) stand for the named threshold's.
func parseOwn(b []byte, models []member, name string, check bool) (Prices, error) {
	out := Prices{}
	for _, m := range models {
		if check {
			if err := checkOwn(m, false); err != nil {
				return nil, entryError(b, name, m.name, m.off, err)
			}
		}
		var p Price
		var old ownLegacy
		if err := json.Unmarshal(m.raw, &p); err != nil {
			return nil, entryError(b, name, m.name, m.off, err)
		}
		if json.Unmarshal(m.raw, &old) == nil && old.InputAbove > 0 && p.InputAbove == 0 {
			p.InputAbove, p.OutputAbove, p.ReadAbove, p.Write5mAbove, p.Write1hAbove = old.InputAbove, old.OutputAbove, old.ReadAbove, old.Write5mAbove, old.Write1hAbove
		}
		out[m.name] = p
	}
	return out, nil
}

// checkOwn checks an entry of ctxbench's table, or one of its earlier
// prices: every field is the format's, every price a number from 0 to
// maxPrice.
func checkOwn(m member, earlier bool) error {
	fields, err := members(m.raw, m.off)
	if err != nil {
		return &fieldError{m.off, "want an object of prices"}
	}
	for _, f := range fields {
		price, known := ownFields[f.name]
		switch {
		case price:
			if msg := checkPrice(f.raw, maxPrice, "per million tokens"); msg != "" {
				return &fieldError{f.off, f.name + " " + msg}
			}
		case f.name == "before":
			list, err := elements(f.raw, f.off)
			if err != nil {
				return &fieldError{f.off, "before: want a list of earlier prices"}
			}
			for _, e := range list {
				if err := checkOwn(e, true); err != nil {
					return err
				}
			}
		case known, earlier && f.name == "until":
		default:
			msg := fmt.Sprintf("unknown field %q", f.name)
			if s := suggest.Closest(f.name, ownNames); s != "" {
				msg += " (did you mean " + s + "?)"
			}
			return &fieldError{f.off, msg}
		}
	}
	return nil
}

// checkPrice returns what is wrong with raw as a price of at most max
// USD per unit: "" when it is a number from 0 to max.
func checkPrice(raw []byte, max float64, unit string) string {
	v, err := strconv.ParseFloat(string(raw), 64)
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') || err != nil || v < 0 || v > max {
		s := string(raw)
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return fmt.Sprintf("%s: want a number from 0 to %s USD %s", s, strconv.FormatFloat(max, 'f', -1, 64), unit)
	}
	return ""
}

// litellmAbove matches LiteLLM's long-context fields, such as
// input_cost_per_token_above_200k_tokens: the field and the threshold.
var litellmAbove = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)_above_(\d+)k_tokens$`)

// litellmRead are the prices ctxbench reads of a LiteLLM entry, beside
// the long-context ones (litellmAbove).
var litellmRead = []string{"input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost", "cache_creation_input_token_cost", "cache_creation_input_token_cost_above_1hr"}

// litellmVariants matches LiteLLM's fields of the prices ctxbench reads,
// and their variants it leaves out: another service tier (priority,
// flex, batches), DeepSeek's cache-hit input, the 1-hour write above a
// long-context threshold.
var litellmVariants = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)(_above_1hr)?(_above_\d+k_tokens)?(_priority|_flex|_batches|_cache_hit)?$`)

// litellmUnreadable reports whether field, which ctxbench does not read,
// reads as one of the prices it takes all the same: a field named as
// one of them with something else after it (not one of LiteLLM's
// variants), or one or two letters from one of them.
func litellmUnreadable(field string) (bool, string) {
	if !strings.Contains(field, "cost") && !strings.Contains(field, "token") {
		return false, "" // two edits leave one of them whole
	}
	for _, r := range litellmRead {
		if d := len(field) - len(r); d >= -2 && d <= 2 && suggest.Distance(field, r) <= 2 {
			return true, r
		}
	}
	for _, r := range litellmRead[:4] {
		if strings.HasPrefix(field, r) && !litellmVariants.MatchString(field) {
			return true, ""
		}
	}
	return false, ""
}

// litellmEntry is what ctxbench reads of a LiteLLM entry beside its
// prices.
type litellmEntry struct {
	Provider string `json:"litellm_provider"`
	Mode     string `json:"mode"`
	MaxInput any    `json:"max_input_tokens"`
}

// perM is a LiteLLM price per token as a price per million tokens.
func perM(f float64) float64 {
	return math.Round(f*1e6*1e9) / 1e9
}

// litellmPrice reads a LiteLLM entry; false for the spec and the
// models that are not priced by the token for text (image, audio,
// embedding). A price it cannot read is an error.
func litellmPrice(m member, name string) (Price, bool, error) {
	var e litellmEntry
	if m.name == "sample_spec" || json.Unmarshal(m.raw, &e) != nil ||
		(e.Mode != "" && e.Mode != "chat" && e.Mode != "completion" && e.Mode != "responses") {
		return Price{}, false, nil
	}
	fields, err := members(m.raw, m.off)
	if err != nil {
		return Price{}, false, nil // null
	}
	p := Price{Provider: e.Provider, Source: name}
	var in, out bool
	var above []member
	for _, f := range fields {
		var dst *float64
		switch f.name {
		case "input_cost_per_token":
			dst, in = &p.Input, true
		case "output_cost_per_token":
			dst, out = &p.Output, true
		case "cache_read_input_token_cost":
			dst = &p.CacheRead
		case "cache_creation_input_token_cost":
			dst = &p.CacheWrite5m
		case "cache_creation_input_token_cost_above_1hr":
			dst = &p.CacheWrite1h
		default:
			if litellmAbove.MatchString(f.name) {
				above = append(above, f)
				break
			}
			if bad, near := litellmUnreadable(f.name); bad {
				msg := fmt.Sprintf("unknown price field %q", f.name)
				if near != "" {
					msg += " (did you mean " + near + "?)"
				}
				return Price{}, false, &fieldError{f.off, msg}
			}
			continue
		}
		if msg := checkPrice(f.raw, maxPrice/1e6, "per token"); msg != "" {
			return Price{}, false, &fieldError{f.off, f.name + " " + msg}
		}
		if dst != nil {
			v, _ := strconv.ParseFloat(string(f.raw), 64)
			*dst = perM(v)
		}
	}
	if !in || !out {
		return Price{}, false, nil
	}
	if f, ok := e.MaxInput.(float64); ok {
		p.MaxInput = int(f)
	}
	litellmLongContext(&p, above)
	return p, true, nil
}

// litellmLongContext sets p's long-context prices from the entry's
// *_above_<n>k_tokens fields, checked: one threshold, the first in name
// order.
func litellmLongContext(p *Price, above []member) {
	slices.SortStableFunc(above, func(a, b member) int { return strings.Compare(a.name, b.name) })
	for _, f := range above {
		m := litellmAbove.FindStringSubmatch(f.name)
		v, _ := strconv.ParseFloat(string(f.raw), 64)
		n, _ := strconv.Atoi(m[2])
		if p.LongContextAbove != 0 && p.LongContextAbove != n*1000 {
			continue
		}
		p.LongContextAbove = n * 1000
		switch m[1] {
		case "input_cost_per_token":
			p.InputAbove = perM(v)
		case "output_cost_per_token":
			p.OutputAbove = perM(v)
		case "cache_read_input_token_cost":
			p.ReadAbove = perM(v)
		case "cache_creation_input_token_cost":
			p.Write5mAbove = perM(v)
		}
	}
}
