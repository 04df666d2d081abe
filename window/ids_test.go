package window

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIDs: runs of consecutive ids are written as one string and read
// back whole; lists of single ids (older traces) read as they are.
func TestIDs(t *testing.T) {
	for _, tc := range []struct {
		ids  IDs
		json string
	}{
		{IDs{}, `[]`},
		{nil, `null`},
		{IDs{"m0"}, `["m0"]`},
		{IDs{"m0", "m1", "m2", "s1", "m5", "m7", "m8"}, `["m0-m2","s1","m5","m7-m8"]`},
		{IDs{"s1", "s2", "m9", "m10", "m11"}, `["s1-s2","m9-m11"]`},
		{IDs{"m3", "m2"}, `["m3","m2"]`},
		{IDs{"m01", "m02", "x"}, `["m01","m02","x"]`},
	} {
		b, err := json.Marshal(tc.ids)
		if err != nil || string(b) != tc.json {
			t.Errorf("%v: %s, %v; want %s", tc.ids, b, err, tc.json)
		}
		var back IDs
		if err := json.Unmarshal(b, &back); err != nil || !cmp.Equal(back, tc.ids) {
			t.Errorf("%s read back as %v, %v", b, back, err)
		}
	}
	var single IDs
	if err := json.Unmarshal([]byte(`["m0","m1","m2"]`), &single); err != nil || !cmp.Equal(single, IDs{"m0", "m1", "m2"}) {
		t.Errorf("single ids: %v %v", single, err)
	}
	for _, bad := range []string{`["m5-m3"]`, `["m1-s3"]`, `["q1-q3"]`, `["m0-m999999999"]`} {
		var ids IDs
		if err := json.Unmarshal([]byte(bad), &ids); err == nil {
			t.Errorf("%s read as %d ids", bad, len(ids))
		}
	}
	// A whole history is one string, whatever its length.
	long := make(IDs, 100_000)
	for i := range long {
		long[i] = "m" + itoa(i)
	}
	if b, _ := json.Marshal(long); string(b) != `["m0-m99999"]` {
		t.Errorf("100,000 ids: %.60s", b)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
