package pricing

import (
	_ "embed"
	"errors"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/internal/noprice"
	"github.com/ctxbench/ctxbench/internal/suggest"
)

// A Price is a model's price, in USD per million tokens, and its context
// window.
type Price struct {
	Provider     string  `json:"provider"`
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cache_read"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	CacheWrite1h float64 `json:"cache_write_1h"`
	// The long-context rates apply to every token of a call whose prompt
	// exceeds LongContextAbove tokens (200,000 when not given).
	InputAbove       float64 `json:"input_above,omitempty"`
	OutputAbove      float64 `json:"output_above,omitempty"`
	ReadAbove        float64 `json:"cache_read_above,omitempty"`
	Write5mAbove     float64 `json:"cache_write_5m_above,omitempty"`
	Write1hAbove     float64 `json:"cache_write_1h_above,omitempty"`
	LongContextAbove int     `json:"long_context_above,omitempty"`
	// MaxInput is the context window: the most prompt tokens a call may
	// send.
	MaxInput int    `json:"max_input_tokens,omitempty"`
	Source   string `json:"source,omitempty"`
	Date     string `json:"date,omitempty"`
	// Aliases are other names of the model (snapshots, spellings).
	Aliases []string `json:"aliases,omitempty"`
	// Before are the model's earlier prices, in date order: a call made
	// before an entry's Until is priced by the first such entry.
	Before []earlierPrice `json:"before,omitempty"`
}

// An earlierPrice is a model's price until a date (YYYY-MM-DD, UTC).
type earlierPrice struct {
	Until string `json:"until"`
	Price
}

// At returns the price in effect at t: an earlier price when t is before
// its date, else p. A zero t is now.
func (p Price) At(t time.Time) Price {
	if t.IsZero() || len(p.Before) == 0 {
		return p
	}
	day := dateOnly(t)
	for _, e := range p.Before {
		if string(day[:]) < e.Until {
			return e.Price
		}
	}
	return p
}

// dateOnly is t's UTC date as time.DateOnly formats it, for years 0 to
// 9999, without allocating.
func dateOnly(t time.Time) [10]byte {
	y, m, d := t.UTC().Date()
	y = max(0, min(y, 9999))
	return [10]byte{byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
		byte('0' + int(m)/10), byte('0' + int(m)%10), '-', byte('0' + d/10), byte('0' + d%10)}
}

// Prices is a price table by model name.
type Prices map[string]Price

//go:embed prices.json
var embeddedPrices []byte

// Default returns the embedded table (prices.json, each entry with its
// source and date): a copy of the table parsed once.
func Default() Prices {
	return maps.Clone(defaultPrices())
}

var defaultPrices = sync.OnceValue(func() Prices {
	p, err := parseEmbedded(embeddedPrices, "prices.json")
	if err != nil {
		panic(err) // the embedded table is tested
	}
	return p
})

// NotPriced reports whether err says that a model has no price: it is
// a transcript that records no model, or a model the table has no
// price for (an error naming the closest entries), possibly wrapped. Callers that
// price many transcripts go on without the one that is not priced; any
// other error is a failure.
func NotPriced(err error) bool {
	var u *noprice.UnknownModelError
	return errors.Is(err, noprice.ErrNoModel) || errors.As(err, &u)
}

// Lookup returns the price of model and the table's name for it. The
// model is found by its name or an alias, as given or lowercased, then
// with what varies around the same model removed, one step at a time: a
// provider path (anthropic/, openai/, vertex_ai/…), a Vertex AI version
// (@20250929), a Bedrock region and vendor (us.anthropic.) and version
// (-v1:0), a snapshot date (-20250929, -2024-08-06). Nothing else: a name
// that is not found is an error naming the closest
// entries — never the price of another model, so gpt-4o-mini is never
// priced as gpt-4o. An empty model is an error too; [NotPriced] tells
// both apart from other failures.
func (p Prices) Lookup(model string) (Price, string, error) {
	if model == "" {
		return Price{}, "", noprice.ErrNoModel
	}
	keys := slices.Sorted(maps.Keys(p))
	want := candidates(model)
	for _, c := range want {
		if pr, ok := p[c]; ok {
			return pr, c, nil
		}
		for _, k := range keys {
			if slices.Contains(p[k].Aliases, c) {
				return p[k], k, nil
			}
		}
	}
	// A table of dated or provider-prefixed names (LiteLLM's) is searched
	// by the same steps taken on its names: the entries that are the
	// model, if they agree on its price.
	canon := want[len(want)-1]
	var same []string
	for _, k := range keys {
		if c := candidates(k); c[len(c)-1] == canon {
			same = append(same, k)
		}
	}
	if len(same) > 0 && !slices.ContainsFunc(same[1:], func(k string) bool { return !samePrice(p[k], p[same[0]]) }) {
		return p[same[0]], same[0], nil
	}
	if len(same) == 0 {
		slices.SortStableFunc(keys, func(a, b string) int { return suggest.Distance(canon, a) - suggest.Distance(canon, b) })
		same = keys[:min(3, len(keys))]
	}
	return Price{}, "", &noprice.UnknownModelError{Model: model, Closest: same}
}

// samePrice reports whether a and b price every call alike.
func samePrice(a, b Price) bool {
	a.Source, a.Date, a.Aliases, a.MaxInput = "", "", nil, 0
	b.Source, b.Date, b.Aliases, b.MaxInput = "", "", nil, 0
	return reflect.DeepEqual(a, b)
}

var (
	bedrockRegion  = regexp.MustCompile(`^(us|eu|apac|global|jp|au|us-gov|ca)\.`)
	bedrockVendor  = regexp.MustCompile(`^(anthropic|openai|mistral|deepseek|google)\.`)
	bedrockVersion = regexp.MustCompile(`-v\d+(:\d+)?$`)
	snapshotDate   = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)
	// modeSuffix is a mode a proxy names after the model it calls
	// (claude-opus-4-6-thinking): the model's own price, as ccusage
	// prices it. Only the mode is removed, never part of the model's name.
	modeSuffix = regexp.MustCompile(`-thinking$`)
)

// candidates returns the names model is looked up by, in order: as given,
// then each step of removing what varies around one model.
func candidates(model string) []string {
	out := []string{model}
	add := func(s string) string {
		if s != out[len(out)-1] {
			out = append(out, s)
		}
		return s
	}
	m := add(strings.ToLower(strings.TrimSpace(model)))
	m = add(m[strings.LastIndex(m, "/")+1:])
	if i := strings.IndexByte(m, '@'); i > 0 {
		m = add(m[:i])
	}
	m = add(bedrockVendor.ReplaceAllString(bedrockRegion.ReplaceAllString(m, ""), ""))
	m = add(bedrockVersion.ReplaceAllString(m, ""))
	m = add(modeSuffix.ReplaceAllString(m, ""))
	add(snapshotDate.ReplaceAllString(m, ""))
	return out
}
