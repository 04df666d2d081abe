// Package dollars formats amounts of dollars as ctxbench prints them.
package dollars

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Format formats dollars to 4 decimals with thousands separators, the
// sign before the dollar sign: 1234.56789 → "$1,234.5679", -1.5 →
// "-$1.5000", -0.00004 → "$0.0000" (no sign on what rounds to zero).
func Format(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', 4, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	b.WriteByte('$')
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(whole[i])
	}
	b.WriteString("." + frac)
	return b.String()
}
