package window

import (
	"strings"
	"testing"
)

// TestIntParamBounds: an integer parameter past 2³¹−1 is refused (no
// policy needs it, and sums of parameters must not overflow); a long
// value is not echoed whole.
func TestIntParamBounds(t *testing.T) {
	if _, err := Parse("aidf:max_messages=2147483647"); err != nil {
		t.Errorf("2³¹−1: %v", err)
	}
	for _, v := range []string{"2147483648", "9223372036854775807", strings.Repeat("9", 10_000)} {
		_, err := Parse("aidf:max_messages=" + v)
		if err == nil || len(err.Error()) > 200 {
			t.Errorf("max_messages=%.20s…: %.300v", v, err)
		}
	}
}
