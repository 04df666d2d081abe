package pricing

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFormatUSD: thousands separators, four decimals, and the sign before
// the dollar sign; nothing rounds to a signed zero.
func TestFormatUSD(t *testing.T) {
	for v, want := range map[float64]string{
		0: "$0.0000", 1234.56789: "$1,234.5679", 0.99999: "$1.0000", 1e6: "$1,000,000.0000",
		-1.5: "-$1.5000", -0.000075: "-$0.0001", -0.00004: "$0.0000", -1234567.5: "-$1,234,567.5000",
	} {
		if got := FormatUSD(v); got != want {
			t.Errorf("FormatUSD(%v) = %q, want %q", v, got, want)
		}
	}
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
