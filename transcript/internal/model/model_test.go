package model

import (
	"strconv"
	"testing"
)

// TestMessageID: the shared ids are the ids made whole, at both ends of
// the table and past it.
func TestMessageID(t *testing.T) {
	for _, i := range []int{0, 1, 9, 10, 99, 100, 12345, sharedIDs - 1, sharedIDs, sharedIDs + 1, 1 << 20} {
		if got, want := MessageID(i), "m"+strconv.Itoa(i); got != want {
			t.Errorf("MessageID(%d) = %q, want %q", i, got, want)
		}
	}
	for i := range sharedIDs {
		if got, want := MessageID(i), "m"+strconv.Itoa(i); got != want {
			t.Fatalf("MessageID(%d) = %q, want %q", i, got, want)
		}
	}
}
