package msgid

import (
	"strconv"
	"testing"
)

// TestOf: the shared ids are the ids made whole, at both ends of
// the table and past it.
func TestOf(t *testing.T) {
	for _, i := range []int{0, 1, 9, 10, 99, 100, 12345, sharedIDs - 1, sharedIDs, sharedIDs + 1, 1 << 20} {
		if got, want := Of(i), "m"+strconv.Itoa(i); got != want {
			t.Errorf("Of(%d) = %q, want %q", i, got, want)
		}
	}
	for i := range sharedIDs {
		if got, want := Of(i), "m"+strconv.Itoa(i); got != want {
			t.Fatalf("Of(%d) = %q, want %q", i, got, want)
		}
	}
}
