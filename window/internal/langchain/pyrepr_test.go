package langchain

import "testing"

// TestPyRepr: Python 3's repr of strings and of the JSON values tool
// arguments hold, as CPython prints them (but for whole numbers).
func TestPyRepr(t *testing.T) {
	for in, want := range map[string]string{
		"it's":            "\"it's\"",
		`say "hi"`:        `'say "hi"'`,
		`both ' and "`:    `'both \' and "'`,
		"a\nb\tc\\\r":     `'a\nb\tc\\\r'`,
		"\x00\x1f\x7f":    `'\x00\x1f\x7f'`,
		"zero\u200bwidth": `'zero\u200bwidth'`,
		"nb\u00a0sp":      `'nb\xa0sp'`,
		"é日本😀":            `'é日本😀'`,
		"tag\U000e0001":   `'tag\U000e0001'`,
		"line\u2028sep":   `'line\u2028sep'`,
		"":                `''`,
	} {
		if got := pyReprString(in); got != want {
			t.Errorf("repr(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{
		`{"command": "ls -la", "timeout": 120}`:   `{'command': 'ls -la', 'timeout': 120}`,
		`{"b": [1, 2.5, true, false, null, "x"]}`: `{'b': [1, 2.5, True, False, None, 'x']}`,
		`{"z": 1, "a": {}}`:                       `{'z': 1, 'a': {}}`,
		// A whole number is an integer, as JavaScript parses it (Python's
		// json.loads would make 1e16 the float 1e+16).
		`[0.1, 1e16, 1.5e-5, 0.0001, 123456789012345.6, 1e22, -2.5]`: `[0.1, 10000000000000000, 1.5e-05, 0.0001, 123456789012345.6, 1e+22, -2.5]`,
		`"plain"`:  `'plain'`,
		`{"bad": `: `'{"bad": '`,
	} {
		if got := pyReprJSON([]byte(in)); got != want {
			t.Errorf("repr(json.loads(%s)) = %s, want %s", in, got, want)
		}
	}
}
