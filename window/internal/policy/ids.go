package policy

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// IDs is a list of item ids ("m<i>", "s<k>") whose JSON form writes each
// run of consecutive ids of one kind as one string, "m0-m41": a step of
// a session of n messages that sends them all is one string, not n, so
// a trace grows linearly with the calls. Reading the JSON expands the
// runs back (see [ExpandIDs]).
type IDs []string

// MarshalJSON writes the runs: ["m0-m41","s1","m57-m80"].
func (ids IDs) MarshalJSON() ([]byte, error) {
	if ids == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 16+8*min(len(ids), 8))
	b = append(b, '[')
	first := true
	for i := 0; i < len(ids); {
		kind, n, ok := splitID(ids[i])
		j := i + 1
		for ok && j < len(ids) {
			k2, n2, ok2 := splitID(ids[j])
			if !ok2 || k2 != kind || n2 != n+(j-i) {
				break
			}
			j++
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		if j-i >= 2 {
			b = strconv.AppendQuote(b, ids[i]+"-"+ids[j-1])
		} else {
			b = strconv.AppendQuote(b, ids[i])
		}
		i = j
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads a list written by MarshalJSON, or one of single
// ids (the trace before runs were written).
func (ids *IDs) UnmarshalJSON(b []byte) error {
	var raw []string
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		*ids = nil
		return nil
	}
	out, err := ExpandIDs(raw)
	if err != nil {
		return err
	}
	*ids = out
	return nil
}

// ExpandIDs expands the runs of a list of ids: "m3-m6" is m3, m4, m5, m6.
func ExpandIDs(runs []string) (IDs, error) {
	out := IDs{}
	for _, r := range runs {
		lo, hi, isRun := strings.Cut(r, "-")
		if !isRun {
			out = append(out, r)
			continue
		}
		k1, a, ok1 := splitID(lo)
		k2, z, ok2 := splitID(hi)
		if !ok1 || !ok2 || k1 != k2 || z < a {
			return nil, fmt.Errorf("ids: %.40q is not a run like m3-m6", r)
		}
		if z-a > 1<<26 {
			return nil, fmt.Errorf("ids: %.40q: a run of more than %d ids", r, 1<<26)
		}
		for n := a; n <= z; n++ {
			out = append(out, k1+strconv.Itoa(n))
		}
	}
	return out, nil
}

// splitID splits "m12" into "m" and 12.
func splitID(id string) (kind string, n int, ok bool) {
	if len(id) < 2 || (id[0] != 'm' && id[0] != 's') {
		return "", 0, false
	}
	n, err := strconv.Atoi(id[1:])
	if err != nil || n < 0 || id[1] == '+' || (len(id) > 2 && id[1] == '0') {
		return "", 0, false
	}
	return id[:1], n, true
}
