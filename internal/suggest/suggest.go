// Package suggest finds the name a mistyped one most likely meant.
package suggest

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns the name of names nearest to name, when it is within
// two edits and half of name's length (the first of equals), else "".
func Closest(name string, names []string) string {
	best, bestD := "", 0
	for _, n := range names {
		if d := Distance(name, n); best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD == 0 || bestD > 2 || 2*bestD > len(name) {
		return ""
	}
	return best
}
