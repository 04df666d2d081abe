// Package retention holds how long providers' prompt caches keep an
// entry, as each documents it for a model.
package retention

import (
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/pricing"
)

// A Retention is how long a provider's prompt cache keeps an entry that
// is not used, as the provider documents it for a model.
type Retention struct {
	// Typical is how long an unused entry usually lives; Max how long it
	// may live at most, after which it is surely gone (an entry between
	// the two may be gone or not). Under Anthropic's breakpoints the two
	// are one lifetime, refreshed on use.
	Typical, Max time.Duration
	// Extended is the lifetime of the longer retention the API offers
	// for the model (0: none): Anthropic's 1-hour cache writes, OpenAI's
	// prompt_cache_retention "24h".
	Extended time.Duration
	// Source names the page the figures come from.
	Source string
}

// The providers' pages the retentions are read from.
const (
	// "The cache has a 5-minute lifetime by default, refreshed each time
	// the cached content is used"; a 1-hour lifetime at a higher write
	// price.
	anthropicRetentionSource = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-storage-duration"
	// In-memory retention: "caches typically cleared within 5 to 10
	// minutes of inactivity" and "always removed within one hour";
	// extended retention, prompt_cache_retention "24h", keeps a prefix
	// up to 24 hours, for the gpt-5 and gpt-4.1 families.
	openAIRetentionSource = "https://developers.openai.com/docs/guides/prompt-caching#prompt-cache-retention"
	// Implicit caching documents no lifetime; an explicit cache lives
	// for its ttl, an hour by default.
	geminiRetentionSource = "https://ai.google.dev/gemini-api/docs/caching"
)

// Of returns the prompt-cache retention of the model the table
// names name, priced p. A provider that documents no lifetime for the
// cache its agents use is taken to keep an entry 5 minutes, as
// Anthropic's default does.
func Of(name string, p pricing.Price) Retention {
	switch p.Provider {
	case "anthropic":
		return Retention{Typical: 5 * time.Minute, Max: 5 * time.Minute, Extended: time.Hour, Source: anthropicRetentionSource}
	case "openai", "azure":
		r := Retention{Typical: 5 * time.Minute, Max: time.Hour, Source: openAIRetentionSource}
		if strings.HasPrefix(name, "gpt-5") || strings.HasPrefix(name, "gpt-4.1") {
			r.Extended = 24 * time.Hour
		}
		return r
	case "gemini", "vertex_ai":
		return Retention{Typical: 5 * time.Minute, Max: 5 * time.Minute, Source: geminiRetentionSource}
	}
	return Retention{Typical: 5 * time.Minute, Max: 5 * time.Minute}
}
