// Package msgid names messages in traces: message i is "m<i>".
package msgid

import (
	"strconv"
	"strings"
	"sync"
)

// Of returns the trace id of message i: "m<i>". The ids of the
// first messages are slices of one string made once, not made at every
// call: a replay makes an item, with its id, for every message of every
// run, and a sweep runs a transcript a thousand times.
func Of(i int) string {
	if uint(i) < sharedIDs {
		ids, at := messageIDs()
		return ids[at[i]:at[i+1]]
	}
	return "m" + strconv.Itoa(i)
}

// sharedIDs is how many message ids Of shares: about 150 KB.
const sharedIDs = 1 << 14

// messageIDs returns "m0m1m2…" up to sharedIDs ids, and where each
// starts (the last entry: where the last ends).
var messageIDs = sync.OnceValues(func() (string, []uint32) {
	var b strings.Builder
	at := make([]uint32, 0, sharedIDs+1)
	for i := range sharedIDs {
		at = append(at, uint32(b.Len()))
		b.WriteByte('m')
		b.WriteString(strconv.Itoa(i))
	}
	return b.String(), append(at, uint32(b.Len()))
})
