package pricing

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/ctxbench/ctxbench/internal/dollars"
	"github.com/ctxbench/ctxbench/transcript"
)

// Money is an amount in pico-dollars (10⁻¹² USD): prices per million tokens
// are whole pico-dollars per token to six decimals, so sums are exact.
//
// Money never wraps: one call costs at most [MaxCall] ([Price.CallCost]),
// and a sum that would pass [MaxTotal] is an error ([Money.Plus],
// [Cost.Add]), never an amount of the other sign.
type Money int64

// The limits of an amount.
const (
	// MaxCall is the most one call may cost: a million dollars, 10¹⁸
	// pico-dollars. A full context window of two million tokens at
	// LiteLLM's dearest price, a slip of units at $0.135 an input token,
	// costs $270,000; a call past MaxCall is a corrupt record, refused
	// by name, not a bill.
	MaxCall Money = 1_000_000 * 1e12
	// MaxTotal is the most a sum of Money may reach, the most an int64
	// holds: $9,223,372.0369. Nine calls at MaxCall fit under it; what a
	// whole corpus of real sessions is billed is a small part of it.
	MaxTotal Money = math.MaxInt64
)

// An AmountError is an amount past what a bill can be: one call past
// [MaxCall] (Sum false; USD is its cost, near enough to say it), or a
// sum past [MaxTotal] (Sum true).
type AmountError struct {
	Sum bool
	USD float64
}

func (e *AmountError) Error() string {
	if e.Sum {
		return fmt.Sprintf("the sum passes %s, the most ctxbench counts", MaxTotal)
	}
	if dollars.Format(e.USD) == MaxCall.String() { // past it by less than the rounding
		return fmt.Sprintf("it costs more than the %s a call can cost", MaxCall)
	}
	return fmt.Sprintf("it costs %s, past the %s a call can cost", dollars.Format(e.USD), MaxCall)
}

// errSum is the error of a sum past MaxTotal.
var errSum error = &AmountError{Sum: true}

// Times returns m × n, or an [*AmountError] when the product is past
// what Money holds.
func (m Money) Times(n int64) (Money, error) {
	hi, lo := bits.Mul64(magnitude(int64(m)), magnitude(n))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, errSum
	}
	return m * Money(n), nil
}

// magnitude is |n| (2⁶³ for the least int64).
func magnitude(n int64) uint64 {
	if n < 0 {
		return -uint64(n)
	}
	return uint64(n)
}

// Plus returns m + n, or an [*AmountError] when the sum is past what
// Money holds, either side of 0.
func (m Money) Plus(n Money) (Money, error) {
	s := m + n
	if (m^s)&(n^s) < 0 { // the operands agree in sign, and the sum does not
		return 0, errSum
	}
	return s, nil
}

// USD returns the amount in dollars.
func (m Money) USD() float64 { return float64(m) / 1e12 }

// String formats the amount in dollars to 4 decimals with thousands
// separators, the sign before the dollar sign: "$1,234.5679", "-$1.5000".
func (m Money) String() string { return dollars.Format(m.USD()) }

// perToken converts USD per million tokens to pico-dollars per token;
// -1 for a price outside 0 to maxPrice, which no call may be priced at.
func perToken(usdPerM float64) Money {
	if !(usdPerM >= 0 && usdPerM <= maxPrice) {
		return -1
	}
	return Money(math.Round(usdPerM * 1e6))
}

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

// Total returns the sum of the components. A Cost that [Price.CallCost]
// and [Cost.Add] made has one: they refuse any whose total passes
// [MaxTotal].
func (c Cost) Total() Money { return c.Input + c.CacheRead + c.CacheWrite + c.Output }

// Add adds d to c, or, when a component or the total of the sum would
// pass [MaxTotal], returns an [*AmountError] and leaves c as it was.
func (c *Cost) Add(d Cost) error {
	s := Cost{c.Input + d.Input, c.CacheRead + d.CacheRead, c.CacheWrite + d.CacheWrite, c.Output + d.Output}
	if (c.Input^s.Input)&(d.Input^s.Input)|(c.CacheRead^s.CacheRead)&(d.CacheRead^s.CacheRead)|
		(c.CacheWrite^s.CacheWrite)&(d.CacheWrite^s.CacheWrite)|(c.Output^s.Output)&(d.Output^s.Output) < 0 {
		return errSum // a component wrapped
	}
	if err := s.check(); err != nil {
		return err
	}
	*c = s
	return nil
}

// Check returns an [*AmountError] when c's components, or their total,
// are past what Money holds: a Cost read from elsewhere (a shard's
// partial) that Total could not sum.
func (c Cost) Check() error { return c.check() }

func (c Cost) check() error {
	t, err := c.Input.Plus(c.CacheRead)
	if err == nil {
		t, err = t.Plus(c.CacheWrite)
	}
	if err == nil {
		_, err = t.Plus(c.Output)
	}
	return err
}

// longContext is the prompt size above which the long-context rates
// apply, where a price does not say.
const longContext = 200_000

// LongContextThreshold returns the prompt size above which the
// long-context rates apply: LongContextAbove, or 200,000 tokens where the
// price does not say.
func (p Price) LongContextThreshold() int {
	if p.LongContextAbove == 0 {
		return longContext
	}
	return p.LongContextAbove
}

// Rates are per-token prices, in pico-dollars.
type Rates struct {
	Input, CacheRead, CacheWrite5m, CacheWrite1h, Output Money
}

// RatesFor returns the rates a call whose prompt (input + cache read +
// cache write) is prompt tokens is billed at: the long-context rates
// when it exceeds the price's threshold ([Price.LongContextThreshold]) and
// the model has them, as Anthropic, Google and OpenAI bill; the 1-hour
// write rate is the 5-minute one where the price gives none.
func (p Price) RatesFor(prompt int64) Rates {
	in, out, read, w5, w1 := p.Input, p.Output, p.CacheRead, p.CacheWrite5m, p.CacheWrite1h
	above := int64(p.LongContextThreshold())
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
//
// A call that would cost more than [MaxCall] (its components' sizes
// summed) is an [*AmountError], and a price outside 0 to 1e9 USD per million tokens an
// error: the cost is then zero, never an amount that wrapped.
func (p Price) CallCost(u transcript.Usage) (Cost, error) {
	r := p.RatesFor(u.Prompt())
	var size uint64
	c := Cost{
		Input:      charge(u.Input, r.Input, &size),
		CacheRead:  charge(u.CacheRead, r.CacheRead, &size),
		CacheWrite: charge(u.CacheWrite-u.CacheWrite1h, r.CacheWrite5m, &size) + charge(u.CacheWrite1h, r.CacheWrite1h, &size),
		Output:     charge(u.Output, r.Output, &size),
	}
	if size > uint64(MaxCall) {
		return Cost{}, callError(u, r)
	}
	return c, nil
}

// charge returns n tokens at rate and adds the amount's size to *size,
// or, when that alone is past MaxCall or the rate is no price, makes
// *size past MaxCall (and past it still after four more charges) and
// returns 0.
func charge(n int64, rate Money, size *uint64) Money {
	hi, lo := bits.Mul64(magnitude(n), uint64(rate))
	if hi != 0 || lo > uint64(MaxCall) || rate < 0 {
		*size = 1 << 63
		return 0
	}
	*size += lo
	return Money(n) * rate
}

// callError is the error of pricing usage u at rates r past MaxCall.
func callError(u transcript.Usage, r Rates) error {
	if min(r.Input, r.CacheRead, r.CacheWrite5m, r.CacheWrite1h, r.Output) < 0 {
		return fmt.Errorf("a price outside 0 to %s USD per million tokens", strconv.FormatFloat(maxPrice, 'f', -1, 64))
	}
	usd := 0.0
	for _, c := range [...]struct {
		n    int64
		rate Money
	}{{u.Input, r.Input}, {u.CacheRead, r.CacheRead}, {u.CacheWrite - u.CacheWrite1h, r.CacheWrite5m}, {u.CacheWrite1h, r.CacheWrite1h}, {u.Output, r.Output}} {
		usd += float64(magnitude(c.n)) * float64(c.rate) / 1e12
	}
	return &AmountError{USD: usd}
}

func pick(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}
