package swar

import "testing"

func special(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }

// TestTests: every byte value at every position of a word, between bytes
// of every kind (plain, above 0x7f, special), flagged as the byte-by-byte
// test says; the lowest flag is the first special byte.
func TestTests(t *testing.T) {
	for _, fill := range []byte{'a', 0xff, 0x00, '"', 0x7f, 0x20} {
		for c := range 256 {
			for p := range 8 {
				b := make([]byte, 8)
				for i := range b {
					b[i] = fill
				}
				b[p] = byte(c)
				w := Word(b, 0)
				if w != Word(string(b), 0) {
					t.Fatalf("Word of %q differs as a string", b)
				}
				first, plain, ascii := -1, true, true
				for i, x := range b {
					if special(x) && first < 0 {
						first = i
					}
					plain = plain && !special(x) && x < 0x80
					ascii = ascii && x < 0x80
				}
				m := Special(w)
				if (m != 0) != (first >= 0) || first >= 0 && First(m) != first {
					t.Fatalf("%q: Special %#x (first %d), want first %d", b, m, First(m), first)
				}
				if Plain(w) != plain || ASCII(w) != ascii {
					t.Fatalf("%q: Plain %v ASCII %v, want %v %v", b, Plain(w), ASCII(w), plain, ascii)
				}
			}
		}
	}
}
