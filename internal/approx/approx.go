// Package approx holds the characters-over-four token estimate that the
// seeds, Codex, LangChain's countTokensApproximately and loop.ts each
// use on a length of their own counting.
package approx

// Tokens is the characters-over-four estimate of a text n units long:
// n / 4 rounded up. The caller counts n as the modelled system does
// (UTF-16 units, UTF-8 bytes or characters).
func Tokens(n int) int { return (n + 3) / 4 }
