package pricing

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
)

// Money is an amount in pico-dollars (10⁻¹² USD): prices per million tokens
// are whole pico-dollars per token to six decimals, so sums are exact.
type Money int64

// USD returns the amount in dollars.
func (m Money) USD() float64 { return float64(m) / 1e12 }

// String formats the amount as [FormatUSD] does.
func (m Money) String() string { return FormatUSD(m.USD()) }

// FormatUSD formats dollars to 4 decimals with thousands separators, the
// sign before the dollar sign: 1234.56789 → "$1,234.5679", -1.5 →
// "-$1.5000", -0.00004 → "$0.0000" (no sign on what rounds to zero).
func FormatUSD(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', 4, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	b.WriteByte('$')
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(whole[i])
	}
	b.WriteString("." + frac)
	return b.String()
}

// perToken converts USD per million tokens to pico-dollars per token.
func perToken(usdPerM float64) Money { return Money(math.Round(usdPerM * 1e6)) }

// A Cost is a call's (or a sum of calls') cost by component.
type Cost struct {
	Input      Money `json:"input_pusd"`
	CacheRead  Money `json:"cache_read_pusd"`
	CacheWrite Money `json:"cache_write_pusd"`
	Output     Money `json:"output_pusd"`
}

// CostJSON is a Cost as JSON writes it: each component in pico-dollars,
// exact, and in dollars beside it (input_pusd, input_usd, …).
type CostJSON struct {
	Input         Money   `json:"input_pusd"`
	CacheRead     Money   `json:"cache_read_pusd"`
	CacheWrite    Money   `json:"cache_write_pusd"`
	Output        Money   `json:"output_pusd"`
	InputUSD      float64 `json:"input_usd"`
	CacheReadUSD  float64 `json:"cache_read_usd"`
	CacheWriteUSD float64 `json:"cache_write_usd"`
	OutputUSD     float64 `json:"output_usd"`
}

// JSON returns c as JSON writes it.
func (c Cost) JSON() CostJSON {
	return CostJSON{c.Input, c.CacheRead, c.CacheWrite, c.Output, c.Input.USD(), c.CacheRead.USD(), c.CacheWrite.USD(), c.Output.USD()}
}

// MarshalJSON writes [Cost.JSON], byte for byte as encoding/json would,
// without reflection; decoding reads the pico-dollars.
func (c Cost) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 192)
	for i, f := range [...]struct {
		key string
		m   Money
	}{{`{"input_pusd":`, c.Input}, {`,"cache_read_pusd":`, c.CacheRead}, {`,"cache_write_pusd":`, c.CacheWrite}, {`,"output_pusd":`, c.Output},
		{`,"input_usd":`, c.Input}, {`,"cache_read_usd":`, c.CacheRead}, {`,"cache_write_usd":`, c.CacheWrite}, {`,"output_usd":`, c.Output}} {
		b = append(b, f.key...)
		if i < 4 {
			b = strconv.AppendInt(b, int64(f.m), 10)
		} else {
			b = appendJSONFloat(b, f.m.USD())
		}
	}
	return append(b, '}'), nil
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal, in exponent form below 1e-6 and from 1e21, with a
// one-digit negative exponent unpadded. f is finite.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
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

// LongContext is the prompt size above which the long-context rates
// apply, where a price does not say.
const LongContext = 200_000

// Rates are per-token prices, in pico-dollars.
type Rates struct {
	Input, CacheRead, CacheWrite5m, CacheWrite1h, Output Money
}

// RatesFor returns the rates a call whose prompt (input + cache read +
// cache write) is prompt tokens is billed at: the long-context rates
// when it exceeds the price's threshold ([LongContext] by default) and
// the model has them, as Anthropic, Google and OpenAI bill; the 1-hour
// write rate is the 5-minute one where the price gives none.
func (p Price) RatesFor(prompt int64) Rates {
	in, out, read, w5, w1 := p.Input, p.Output, p.CacheRead, p.CacheWrite5m, p.CacheWrite1h
	above := int64(p.LongContextAbove)
	if above == 0 {
		above = LongContext
	}
	if prompt > above && p.InputAbove > 0 {
		in, out = p.InputAbove, pick(p.OutputAbove, out)
		read, w5, w1 = pick(p.ReadAbove, read), pick(p.Write5mAbove, w5), pick(p.Write1hAbove, w1)
	}
	if w1 == 0 {
		w1 = w5
	}
	return Rates{Input: perToken(in), CacheRead: perToken(read), CacheWrite5m: perToken(w5), CacheWrite1h: perToken(w1), Output: perToken(out)}
}

// CallCost prices one call's usage at [Price.RatesFor] its prompt: every
// token of a call above the long-context threshold at the long-context
// rates. Cache writes are at the 5-minute rate, the 1-hour share at its
// own. The price is the one in effect when the call was made: see
// [Price.At].
func (p Price) CallCost(u transcript.Usage) Cost {
	r := p.RatesFor(u.Prompt())
	return Cost{
		Input:      Money(u.Input) * r.Input,
		CacheRead:  Money(u.CacheRead) * r.CacheRead,
		CacheWrite: Money(u.CacheWrite-u.CacheWrite1h)*r.CacheWrite5m + Money(u.CacheWrite1h)*r.CacheWrite1h,
		Output:     Money(u.Output) * r.Output,
	}
}

func pick(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}
