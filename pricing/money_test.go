package pricing

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestMoneyString: an amount prints in dollars, the sign first.
func TestMoneyString(t *testing.T) {
	if got := Money(-1_500_000_000_000).String(); got != "-$1.5000" {
		t.Errorf("Money(-1.5 USD) = %q", got)
	}
}

// TestCostMarshalJSON: a Cost writes what encoding/json writes of its
// CostJSON, for amounts from nothing to the largest, negative ones, and
// dollars that take the exponent form (below a millionth of a dollar).
func TestCostMarshalJSON(t *testing.T) {
	amounts := []Money{0, 1, 9, 10, 999_999, 1_000_000, 1_234_567, 1e12, -1, -5_000_000, math.MaxInt64, math.MinInt64}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		amounts = append(amounts, Money(r.Int64N(1<<uint(r.IntN(62)+1))-r.Int64N(1000)))
	}
	for i := 0; i+3 < len(amounts); i++ {
		c := Cost{amounts[i], amounts[i+1], amounts[i+2], amounts[i+3]}
		got, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(c.JSON())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("%+v:\n got %s\nwant %s", c, got, want)
		}
	}
}

// callCost is p.CallCost(u), which must price.
func callCost(t *testing.T, p Price, u transcript.Usage) Cost {
	t.Helper()
	c, err := p.CallCost(u)
	if err != nil {
		t.Fatalf("%+v: %v", u, err)
	}
	return c
}

// TestCallCostCeiling: a call costs at most MaxCall, exactly at it and
// a token below it, and is an *AmountError a token above it, or when
// its components pass it together; no usage a transcript can record
// (MaxUsage a field) at any price a table can hold (maxPrice) wraps; a
// price out of range is an error, whatever the call. Issue 64, item 3:
// a gpt-4o call of 10¹² prompt tokens is $2,500,000, past MaxCall.
func TestCallCostCeiling(t *testing.T) {
	gpt := Price{Input: 2.5, Output: 10} // 2,500,000 pico-dollars an input token
	at := int64(MaxCall / 2_500_000)     // 4×10¹¹ tokens cost MaxCall
	for _, n := range []int64{at - 1, at} {
		if c := callCost(t, gpt, transcript.Usage{Input: n}); c.Total() != Money(n)*2_500_000 {
			t.Errorf("%d tokens: %v", n, c.Total())
		}
	}
	tooMuch := func(p Price, u transcript.Usage, says string) {
		t.Helper()
		c, err := p.CallCost(u)
		var a *AmountError
		if err == nil || c != (Cost{}) || says != "" && err.Error() != says || says == "" && !errors.As(err, &a) {
			t.Errorf("%+v at %+v: %+v, %v; want an error %q", u, p, c, err, says)
		}
	}
	tooMuch(gpt, transcript.Usage{Input: at + 1}, "")
	tooMuch(gpt, transcript.Usage{Input: at / 2, Output: 6e10}, "") // $500,000 and $600,000
	tooMuch(gpt, transcript.Usage{Input: 1e12, Output: 1}, "it costs $2,500,000.0000, past the $1,000,000.0000 a call can cost")
	dearest := Price{Input: maxPrice, Output: maxPrice, CacheRead: maxPrice, CacheWrite5m: maxPrice, CacheWrite1h: maxPrice}
	tooMuch(dearest, transcript.Usage{Input: 1 << 40, CacheRead: 1 << 40, CacheWrite: 1 << 40, CacheWrite1h: 1 << 39, Output: 1 << 40}, "")
	tooMuch(dearest, transcript.Usage{Input: -1 << 40}, "")
	if c := callCost(t, dearest, transcript.Usage{Input: 999, Output: 1}); c.Total() != MaxCall {
		t.Errorf("1,000 tokens at maxPrice: %v", c.Total())
	}
	tooMuch(dearest, transcript.Usage{Input: 1000, Output: 1}, "it costs $1,001,000.0000, past the $1,000,000.0000 a call can cost")
	for _, p := range []Price{{Input: 1e300, Output: 10}, {Input: 2.5, Output: -10}, {Input: 2.5, Output: 10, CacheRead: math.NaN()}, {Input: 2.5, Output: 10, InputAbove: math.Inf(1), LongContextAbove: 10}} {
		tooMuch(p, transcript.Usage{Input: 100, Output: 1}, "a price outside 0 to 1000000000 USD per million tokens")
	}
}

// TestCostAddCeiling: a sum stops at MaxTotal with an *AmountError and
// the sum as it was, never the other sign: ten calls at MaxCall, the
// tenth past it; a total past it whose components are not; the same
// below 0; Plus and Times at their boundaries.
func TestCostAddCeiling(t *testing.T) {
	var sum Cost
	for i := range 10 {
		err := sum.Add(Cost{Input: MaxCall / 2, Output: MaxCall / 2})
		if (err != nil) != (i == 9) {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if sum.Total() != 9*MaxCall {
		t.Errorf("nine calls at MaxCall sum to %v", sum.Total())
	}
	check := func(c, d Cost, ok bool) {
		t.Helper()
		was := c
		err := c.Add(d)
		var a *AmountError
		if ok && (err != nil || c.Total() != was.Total()+d.Total()) || !ok && (!errors.As(err, &a) || !a.Sum || c != was) {
			t.Errorf("%+v + %+v = %+v, %v", was, d, c, err)
		}
	}
	half := MaxTotal / 2
	check(Cost{Input: half}, Cost{CacheRead: half + 1}, true) // MaxTotal
	check(Cost{Input: half}, Cost{CacheRead: half + 2}, false)
	check(Cost{Output: MaxTotal}, Cost{Output: 1}, false)
	check(Cost{CacheWrite: -MaxTotal}, Cost{CacheWrite: -2}, false)
	check(Cost{CacheWrite: -MaxTotal}, Cost{CacheWrite: -1}, true)
	for _, c := range []struct {
		m, n Money
		ok   bool
	}{{MaxTotal - 1, 1, true}, {MaxTotal, 1, false}, {-MaxTotal, -1, true}, {-MaxTotal - 1, -1, false}, {MaxTotal, -MaxTotal, true}} {
		if s, err := c.m.Plus(c.n); (err == nil) != c.ok || c.ok && s != c.m+c.n {
			t.Errorf("%d + %d = %d, %v", c.m, c.n, s, err)
		}
	}
	for _, c := range []struct {
		m  Money
		n  int64
		ok bool
	}{{MaxTotal, 1, true}, {MaxTotal/2 + 1, 2, false}, {MaxTotal / 2, 2, true}, {-MaxTotal, 1, true}, {1 << 32, 1 << 30, true}, {1 << 32, 1 << 31, false}, {-1, math.MinInt64, false}} {
		if p, err := c.m.Times(c.n); (err == nil) != c.ok || c.ok && p != c.m*Money(c.n) {
			t.Errorf("%d × %d = %d, %v", c.m, c.n, p, err)
		}
	}
}
