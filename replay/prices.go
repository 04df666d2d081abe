package replay

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
)

// A Price is a model's price, in USD per million tokens.
type Price struct {
	Provider     string  `json:"provider"`
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cache_read"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	CacheWrite1h float64 `json:"cache_write_1h"`
	InputAbove   float64 `json:"input_above_200k,omitempty"`
	OutputAbove  float64 `json:"output_above_200k,omitempty"`
	ReadAbove    float64 `json:"cache_read_above_200k,omitempty"`
	Write5mAbove float64 `json:"cache_write_5m_above_200k,omitempty"`
	Write1hAbove float64 `json:"cache_write_1h_above_200k,omitempty"`
	MaxInput     int     `json:"max_input_tokens,omitempty"`
	Source       string  `json:"source,omitempty"`
	Date         string  `json:"date,omitempty"`
}

// Prices is a price table by model name.
type Prices map[string]Price

//go:embed prices.json
var embeddedPrices []byte

// DefaultPrices returns the embedded table (prices.json, each entry with
// its source and date).
func DefaultPrices() Prices {
	p, err := parsePrices(embeddedPrices, "prices.json")
	if err != nil {
		panic(err) // the embedded table is tested
	}
	return p
}

// LoadPrices reads a price file: ctxbench's own format ({"models": {…}},
// USD per million tokens) or LiteLLM's model_prices_and_context_window.json
// as it is (USD per token).
func LoadPrices(path string) (Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parsePrices(b, path)
}

type litellmEntry struct {
	Provider     string   `json:"litellm_provider"`
	Mode         string   `json:"mode"`
	Input        *float64 `json:"input_cost_per_token"`
	Output       *float64 `json:"output_cost_per_token"`
	CacheRead    *float64 `json:"cache_read_input_token_cost"`
	CacheWrite   *float64 `json:"cache_creation_input_token_cost"`
	CacheWrite1h *float64 `json:"cache_creation_input_token_cost_above_1hr"`
	InputAbove   *float64 `json:"input_cost_per_token_above_200k_tokens"`
	OutputAbove  *float64 `json:"output_cost_per_token_above_200k_tokens"`
	ReadAbove    *float64 `json:"cache_read_input_token_cost_above_200k_tokens"`
	WriteAbove   *float64 `json:"cache_creation_input_token_cost_above_200k_tokens"`
	MaxInput     any      `json:"max_input_tokens"`
}

func parsePrices(b []byte, name string) (Prices, error) {
	var own struct {
		Models map[string]Price `json:"models"`
	}
	if err := json.Unmarshal(b, &own); err == nil && len(own.Models) > 0 {
		return Prices(own.Models), nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := Prices{}
	perM := func(f *float64) float64 {
		if f == nil {
			return 0
		}
		return math.Round(*f*1e6*1e9) / 1e9
	}
	for model, r := range raw {
		var e litellmEntry
		if model == "sample_spec" || json.Unmarshal(r, &e) != nil || e.Input == nil || e.Output == nil ||
			(e.Mode != "" && e.Mode != "chat" && e.Mode != "completion" && e.Mode != "responses") {
			continue // the spec, image, audio and embedding models
		}
		p := Price{Provider: e.Provider, Input: perM(e.Input), Output: perM(e.Output), CacheRead: perM(e.CacheRead),
			CacheWrite5m: perM(e.CacheWrite), CacheWrite1h: perM(e.CacheWrite1h), InputAbove: perM(e.InputAbove),
			OutputAbove: perM(e.OutputAbove), ReadAbove: perM(e.ReadAbove), Write5mAbove: perM(e.WriteAbove), Source: name}
		if f, ok := e.MaxInput.(float64); ok {
			p.MaxInput = int(f)
		}
		out[model] = p
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no model prices (want ctxbench's {\"models\": …} or LiteLLM's model_prices_and_context_window.json)", name)
	}
	return out, nil
}

var dateSuffix = regexp.MustCompile(`(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|@.*)$`)

// normalize strips what varies in a model's name: case, a provider prefix
// (anthropic/, openai/, bedrock/…), a date or version suffix.
func normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m = m[strings.LastIndex(m, "/")+1:]
	return dateSuffix.ReplaceAllString(m, "")
}

// Lookup returns the price of model: an exact entry, else the entry that
// matches once provider prefixes and date suffixes are stripped, else the
// longest entry the model's name extends. An unknown model is an error
// that names the closest entries.
func (p Prices) Lookup(model string) (Price, string, error) {
	if pr, ok := p[model]; ok {
		return pr, model, nil
	}
	want := normalize(model)
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best := ""
	for _, k := range keys {
		n := normalize(k)
		if n == want {
			return p[k], k, nil
		}
		if strings.HasPrefix(want, n+"-") && len(n) > len(normalize(best)) {
			best = k
		}
	}
	if best != "" {
		return p[best], best, nil
	}
	slices.SortStableFunc(keys, func(a, b string) int { return distance(want, normalize(a)) - distance(want, normalize(b)) })
	return Price{}, "", fmt.Errorf("no price for model %q (closest: %s); pass --prices FILE", model, strings.Join(keys[:min(3, len(keys))], ", "))
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Money is an amount in pico-dollars (10⁻¹² USD): prices per million tokens
// are whole pico-dollars per token to six decimals, so sums are exact.
type Money int64

// USD returns the amount in dollars.
func (m Money) USD() float64 { return float64(m) / 1e12 }

// String formats the amount in dollars to 4 decimals.
func (m Money) String() string { return fmt.Sprintf("$%.4f", m.USD()) }

// perToken converts USD per million tokens to pico-dollars per token.
func perToken(usdPerM float64) Money { return Money(math.Round(usdPerM * 1e6)) }

// A Cost is a call's (or a sum of calls') cost by component.
type Cost struct {
	Input      Money `json:"input_pusd"`
	CacheRead  Money `json:"cache_read_pusd"`
	CacheWrite Money `json:"cache_write_pusd"`
	Output     Money `json:"output_pusd"`
}

// Total returns the sum of the components.
func (c Cost) Total() Money { return c.Input + c.CacheRead + c.CacheWrite + c.Output }

// Add adds d to c.
func (c *Cost) Add(d Cost) {
	c.Input += d.Input
	c.CacheRead += d.CacheRead
	c.CacheWrite += d.CacheWrite
	c.Output += d.Output
}

// longContext is the prompt size above which the above-200k rates apply.
const longContext = 200_000

// CallCost prices one call's usage. When the prompt (input + cache read +
// cache write) exceeds 200,000 tokens and the model has long-context
// rates, every token of the call is priced at them, as Anthropic and
// Google bill. Cache writes are at the 5-minute rate, the 1-hour share at
// its own.
func (p Price) CallCost(u transcript.Usage) Cost {
	in, out, read, w5, w1 := p.Input, p.Output, p.CacheRead, p.CacheWrite5m, p.CacheWrite1h
	if u.Prompt() > longContext && p.InputAbove > 0 {
		in, out = p.InputAbove, pick(p.OutputAbove, out)
		read, w5, w1 = pick(p.ReadAbove, read), pick(p.Write5mAbove, w5), pick(p.Write1hAbove, w1)
	}
	if w1 == 0 {
		w1 = w5
	}
	return Cost{
		Input:      Money(u.Input) * perToken(in),
		CacheRead:  Money(u.CacheRead) * perToken(read),
		CacheWrite: Money(u.CacheWrite-u.CacheWrite1h)*perToken(w5) + Money(u.CacheWrite1h)*perToken(w1),
		Output:     Money(u.Output) * perToken(out),
	}
}

func pick(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}

// RecordedCost prices the usage a transcript recorded, call by call, as
// ccusage does (input, cache reads, cache writes and output at the model's
// prices), each call with its own model where recorded, else model.
func RecordedCost(t *transcript.Transcript, prices Prices, model string) (Cost, error) {
	var c Cost
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Usage == nil {
			continue
		}
		name := m.Model
		if name == "" || name == "<synthetic>" {
			name = model
		}
		p, _, err := prices.Lookup(name)
		if err != nil {
			return Cost{}, err
		}
		c.Add(p.CallCost(*m.Usage))
	}
	return c, nil
}
