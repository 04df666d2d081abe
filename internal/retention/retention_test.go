package retention

import (
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/pricing"
)

// TestOf holds the retentions to the providers' pages: OpenAI's
// in-memory cache is "typically" cleared after 5 to 10 idle minutes and
// always within an hour, and prompt_cache_retention "24h" keeps a prefix
// up to 24 hours for the gpt-5 and gpt-4.1 families
// (developers.openai.com/docs/guides/prompt-caching#prompt-cache-retention);
// Anthropic's entry lives 5 minutes, or an hour when written so.
func TestOf(t *testing.T) {
	p := pricing.Default()
	for _, c := range []struct {
		model                   string
		typical, most, extended time.Duration
	}{
		{"gpt-5.5", 5 * time.Minute, time.Hour, 24 * time.Hour},
		{"gpt-4.1", 5 * time.Minute, time.Hour, 24 * time.Hour},
		{"gpt-4o", 5 * time.Minute, time.Hour, 0},
		{"claude-opus-4-7", 5 * time.Minute, 5 * time.Minute, time.Hour},
		{"gemini-2.5-flash", 5 * time.Minute, 5 * time.Minute, 0},
	} {
		price, name, err := p.Lookup(c.model)
		if err != nil {
			t.Fatal(err)
		}
		r := Of(name, price)
		if r.Typical != c.typical || r.Max != c.most || r.Extended != c.extended || r.Source == "" {
			t.Errorf("%s: %+v, want typically %s, at most %s, extended %s, with its source", c.model, r, c.typical, c.most, c.extended)
		}
	}
}
