package dollars

import "testing"

// TestFormat: thousands separators, four decimals, and the sign before
// the dollar sign; nothing rounds to a signed zero.
func TestFormat(t *testing.T) {
	for v, want := range map[float64]string{
		0: "$0.0000", 1234.56789: "$1,234.5679", 0.99999: "$1.0000", 1e6: "$1,000,000.0000",
		-1.5: "-$1.5000", -0.000075: "-$0.0001", -0.00004: "$0.0000", -1234567.5: "-$1,234,567.5000",
	} {
		if got := Format(v); got != want {
			t.Errorf("Format(%v) = %q, want %q", v, got, want)
		}
	}
}
