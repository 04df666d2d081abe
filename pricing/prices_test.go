package pricing

import (
	"testing"
	"time"
)

// TestDateOnly: dateOnly writes what time.DateOnly formats.
func TestDateOnly(t *testing.T) {
	for _, at := range []time.Time{time.Date(2026, 1, 2, 23, 59, 59, 0, time.UTC), time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(2025, 10, 9, 23, 0, 0, 0, time.FixedZone("x", -3*3600)), time.Date(7, 3, 4, 0, 0, 0, 0, time.UTC)} {
		if got, want := dateOnly(at), at.UTC().Format(time.DateOnly); string(got[:]) != want {
			t.Errorf("dateOnly(%v) = %q, want %q", at, got[:], want)
		}
	}
}
