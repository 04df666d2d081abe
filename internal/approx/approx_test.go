package approx

import "testing"

// TestTokens: Tokens rounds up every length that is not a multiple of 4.
func TestTokens(t *testing.T) {
	for n, want := range []int{0, 1, 1, 1, 1, 2, 2, 2, 2, 3} {
		if got := Tokens(n); got != want {
			t.Errorf("Tokens(%d) = %d, want %d", n, got, want)
		}
	}
}
