// Package jsstr holds what the policies that model JavaScript and
// TypeScript systems need of JavaScript's strings, whose length and
// slices count UTF-16 code units.
package jsstr

import "unicode/utf16"

// Cut returns the first n UTF-16 units of s, never half a surrogate
// pair (JavaScript's slice would keep the half; Go strings cannot).
func Cut(s string, n int) string {
	units := 0
	for i, r := range s {
		u := utf16.RuneLen(r)
		if units+u > n {
			return s[:i]
		}
		units += u
	}
	return s
}
