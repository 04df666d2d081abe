package pricing

import "testing"

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
