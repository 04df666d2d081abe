package pricing

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
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

// Default returns the embedded table (prices.json, each entry with its
// source and date).
func Default() Prices {
	p, err := parse(embeddedPrices, "prices.json")
	if err != nil {
		panic(err) // the embedded table is tested
	}
	return p
}

// Load reads a price file: ctxbench's own format ({"models": {…}}, USD
// per million tokens) or LiteLLM's model_prices_and_context_window.json
// as it is (USD per token).
func Load(path string) (Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(b, path)
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

func parse(b []byte, name string) (Prices, error) {
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

// ErrNoModel is the error of a price asked for with no model name: a
// transcript that records no model, priced without one given.
var ErrNoModel = errors.New("the transcript records no model")

// An UnknownModelError is a model the table has no price for; Closest
// are the table's nearest names, for a hint.
type UnknownModelError struct {
	Model   string
	Closest []string
}

func (e *UnknownModelError) Error() string {
	return fmt.Sprintf("no price for model %q (closest: %s)", e.Model, strings.Join(e.Closest, ", "))
}

// NotPriced reports whether err says that a model has no price: it is
// [ErrNoModel] or an [*UnknownModelError], possibly wrapped. Callers that
// price many transcripts go on without the one that is not priced; any
// other error is a failure.
func NotPriced(err error) bool {
	var u *UnknownModelError
	return errors.Is(err, ErrNoModel) || errors.As(err, &u)
}

var dateSuffix = regexp.MustCompile(`(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|@.*)$`)

// normalize strips what varies in a model's name: case, a provider prefix
// (anthropic/, openai/, bedrock/…), a date or version suffix.
func normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m = m[strings.LastIndex(m, "/")+1:]
	return dateSuffix.ReplaceAllString(m, "")
}

// Lookup returns the price of model and the table's name for it: an exact
// entry, else the entry that matches once provider prefixes and date
// suffixes are stripped, else the longest entry the model's name extends.
// An empty model is [ErrNoModel]; an unknown one an [*UnknownModelError]
// that names the closest entries.
func (p Prices) Lookup(model string) (Price, string, error) {
	if model == "" {
		return Price{}, "", ErrNoModel
	}
	if pr, ok := p[model]; ok {
		return pr, model, nil
	}
	want := normalize(model)
	keys := slices.Sorted(maps.Keys(p))
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
	return Price{}, "", &UnknownModelError{Model: model, Closest: keys[:min(3, len(keys))]}
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
