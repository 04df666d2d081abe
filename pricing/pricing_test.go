package pricing

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/internal/noprice"
	"github.com/ctxbench/ctxbench/transcript"
)

func TestCallCostByHand(t *testing.T) {
	p := Default()
	sonnet, name, err := p.Lookup("claude-sonnet-4-5-20250929")
	if err != nil || name != "claude-sonnet-4-5" {
		t.Fatalf("lookup: %v %q", err, name)
	}
	// 1,000 input × $3 + 10,000 cache read × $0.30 + 2,000 cache write (500
	// of them 1-hour) × $3.75/$6 + 300 output × $15, per million tokens.
	c := callCost(t, sonnet, transcript.Usage{Input: 1000, CacheRead: 10000, CacheWrite: 2000, CacheWrite1h: 500, Output: 300})
	want := Cost{Input: 3000 * 1e6, CacheRead: 3000 * 1e6, CacheWrite: (1500*3.75 + 500*6) * 1e6, Output: 4500 * 1e6}
	if c != want {
		t.Errorf("cost %+v, want %+v", c, want)
	}
	if got := c.Total().String(); got != "$0.0191" {
		t.Errorf("total %s, want $0.0191", got)
	}
	// Above 200,000 prompt tokens every token is at the long-context rates.
	long := callCost(t, sonnet, transcript.Usage{Input: 1000, CacheRead: 200000, Output: 100})
	if want := Money((1000*6 + 200000*0.6 + 100*22.5) * 1e6); long.Total() != want {
		t.Errorf("long-context cost %v, want %v", long.Total(), want)
	}
	// At exactly 200,000 the base rates still apply.
	at := callCost(t, sonnet, transcript.Usage{Input: 0, CacheRead: 200000})
	if want := Money(200000 * 0.3 * 1e6); at.Total() != want {
		t.Errorf("cost at the threshold %v, want %v", at.Total(), want)
	}
	// OpenAI: no cache writes, cached input at its rate.
	gpt, _, _ := p.Lookup("openai/gpt-4o-2024-08-06")
	if c := callCost(t, gpt, transcript.Usage{Input: 1000, CacheRead: 1000, Output: 1000}); c.Total() != Money((2500+1250+10000)*1e6) {
		t.Errorf("gpt-4o cost %v", c.Total())
	}
}

// TestLookup: every form a model's id takes in recorded sessions and
// price files finds the model's own entry; a model the table lacks is not
// priced — never priced as a neighbour of another tier.
func TestLookup(t *testing.T) {
	p := Default()
	for model, want := range map[string]string{
		// exact, any case
		"claude-opus-4-6": "claude-opus-4-6", "GPT-4.1": "gpt-4.1", "deepseek-reasoner": "deepseek-reasoner",
		// dated snapshots
		"claude-sonnet-4-5-20250929": "claude-sonnet-4-5", "claude-haiku-4-5-20251001": "claude-haiku-4-5", "gpt-5-2025-08-07": "gpt-5",
		"gpt-4o-mini-2024-07-18": "gpt-4o-mini", "gpt-4o-2024-08-06": "gpt-4o", "claude-opus-4-6-20260205": "claude-opus-4-6",
		// provider paths
		"anthropic/claude-haiku-4-5-20251001": "claude-haiku-4-5", "openai/gpt-4o-2024-08-06": "gpt-4o", "vertex_ai/gemini-2.5-pro": "gemini-2.5-pro",
		// a proxy's mode suffix: the model's own price
		"claude-opus-4-6-thinking": "claude-opus-4-6", "claude-sonnet-4-5-20250929-thinking": "claude-sonnet-4-5",
		// Vertex AI versions
		"claude-sonnet-4-5@20250929": "claude-sonnet-4-5", "claude-opus-4-1@20250805": "claude-opus-4-1",
		// Bedrock regions, vendors and versions
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0": "claude-sonnet-4-5", "anthropic.claude-haiku-4-5-20251001-v1:0": "claude-haiku-4-5",
		"eu.anthropic.claude-opus-4-6-v1": "claude-opus-4-6", "global.anthropic.claude-sonnet-4-6": "claude-sonnet-4-6",
		"bedrock/us.anthropic.claude-3-7-sonnet-20250219-v1:0": "claude-3-7-sonnet",
		// aliases: another spelling, an older name, a preview priced alike
		"claude-sonnet-4": "claude-sonnet-4", "claude-sonnet-4-0": "claude-sonnet-4", "claude-4-sonnet-20250514": "claude-sonnet-4",
		"claude-sonnet-4.5": "claude-sonnet-4-5", "claude-3-5-haiku-latest": "claude-3-5-haiku", "claude-3-5-haiku-20241022": "claude-3-5-haiku",
		"gemini-2.5-pro-preview-06-05": "gemini-2.5-pro", "gpt-5-codex": "gpt-5", "o3-2025-04-16": "o3",
		// the mini and nano tiers are their own entries
		"gpt-4o-mini": "gpt-4o-mini", "gpt-5-mini": "gpt-5-mini", "gpt-5-nano": "gpt-5-nano", "gpt-4.1-nano": "gpt-4.1-nano", "o4-mini": "o4-mini",
	} {
		if _, got, err := p.Lookup(model); err != nil || got != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", model, got, err, want)
		}
	}
	// Names the table does not have are not priced, whatever they start
	// with: another tier, a variant, a fine-tune, another vendor's model.
	for _, model := range []string{"gpt-4o-mini-audio-preview", "gpt-5-mini-search", "gpt-4o-realtime-preview", "claude-sonnet-4-5-ft-acme",
		"gemini-2.5-pro-tts", "gemini-3-pro-image-preview", "claude-sonnet", "gpt-6", "mistral-medium-3", "llama-3.1-70b", "<synthetic>"} {
		var u *noprice.UnknownModelError
		if _, got, err := p.Lookup(model); !errors.As(err, &u) {
			t.Errorf("Lookup(%q) = %q, %v; want not priced", model, got, err)
		}
	}
	// gpt-4o-mini and gpt-4o are different prices.
	mini, _, _ := p.Lookup("gpt-4o-mini")
	full, _, _ := p.Lookup("gpt-4o")
	if mini.Input*16 > full.Input {
		t.Errorf("gpt-4o-mini input $%g, gpt-4o $%g: want about 1/16", mini.Input, full.Input)
	}
}

// TestPriceAt: a price that changed is the one in effect at the call:
// Opus 4.6's long-context rates applied until 2026-03-13, o3 cost $10/$40
// until 2025-06-10.
func TestPriceAt(t *testing.T) {
	p := Default()
	opus, _, _ := p.Lookup("claude-opus-4-6")
	long := transcript.Usage{Input: 250_000, Output: 1000}
	before := callCost(t, opus.At(time.Date(2026, 2, 11, 21, 0, 0, 0, time.UTC)), long).Total()
	after := callCost(t, opus.At(time.Date(2026, 3, 13, 0, 0, 0, 0, time.UTC)), long).Total()
	if want := Money((250_000*10 + 1000*37.5) * 1e6); before != want {
		t.Errorf("a 250k-token Opus 4.6 call on 2026-02-11 costs %v, want %v", before, want)
	}
	if want := Money((250_000*5 + 1000*25) * 1e6); after != want || callCost(t, opus.At(time.Time{}), long).Total() != want {
		t.Errorf("on 2026-03-13 and now it costs %v, want %v", after, want)
	}
	o3, _, _ := p.Lookup("o3")
	if in := o3.At(time.Date(2025, 6, 9, 23, 59, 0, 0, time.UTC)).Input; in != 10 {
		t.Errorf("o3 input on 2025-06-09: $%g, want $10", in)
	}
	if in := o3.At(time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)).Input; in != 2 {
		t.Errorf("o3 input on 2025-06-10: $%g, want $2", in)
	}
	// GPT-5.5's long context starts above 271,999 tokens.
	g, _, _ := p.Lookup("gpt-5.5")
	if c := callCost(t, g, transcript.Usage{Input: 271_999}).Total(); c != Money(271_999*5*1e6) {
		t.Errorf("gpt-5.5 at 271,999 tokens: %v", c)
	}
	if c := callCost(t, g, transcript.Usage{Input: 272_000}).Total(); c != Money(272_000*10*1e6) {
		t.Errorf("gpt-5.5 at 272,000 tokens: %v", c)
	}
}

// TestNotPriced: an unknown model and a missing one are errors of their
// own kinds, which NotPriced tells from any other, wrapped or not; the
// message names the closest entries and no command-line flag.
func TestNotPriced(t *testing.T) {
	p := Default()
	_, _, err := p.Lookup("gemini-3-pro-image-preview")
	var u *noprice.UnknownModelError
	if !errors.As(err, &u) || u.Model != "gemini-3-pro-image-preview" || len(u.Closest) != 3 || !strings.HasPrefix(u.Closest[0], "gemini") {
		t.Fatalf("unknown model: %#v", err)
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("a library error names a flag: %v", err)
	}
	if _, _, err := p.Lookup(""); !errors.Is(err, noprice.ErrNoModel) {
		t.Errorf("no model: %v", err)
	}
	for _, err := range []error{err, fmt.Errorf("pricing x: %w", noprice.ErrNoModel), fmt.Errorf("pricing x: %w", u)} {
		if !NotPriced(err) {
			t.Errorf("NotPriced(%v) = false", err)
		}
	}
	if NotPriced(errors.New("no price for model")) || NotPriced(nil) {
		t.Error("NotPriced is true of an error of another kind")
	}
}

func TestLiteLLMPrices(t *testing.T) {
	p, err := Load("testdata/litellm-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 2 {
		t.Errorf("%d models, want 2 (the spec and the image model left out)", len(p))
	}
	s, name, err := p.Lookup("claude-sonnet-4-5")
	if err != nil || name != "claude-sonnet-4-5-20250929" {
		t.Fatalf("lookup: %v %q", err, name)
	}
	want := Price{Provider: "anthropic", Input: 3, Output: 15, CacheRead: 0.3, CacheWrite5m: 3.75, CacheWrite1h: 6, InputAbove: 6,
		OutputAbove: 22.5, ReadAbove: 0.6, Write5mAbove: 7.5, LongContextAbove: 200000, MaxInput: 200000, Source: "testdata/litellm-sample.json"}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("price (-want +got):\n%s", diff)
	}
	d := Default()["claude-sonnet-4-5"]
	for _, u := range []transcript.Usage{{Input: 123, CacheRead: 45678, CacheWrite: 9012, Output: 345}, {Input: 1000, CacheRead: 230_000, Output: 500}} {
		if callCost(t, s, u) != callCost(t, d, u) {
			t.Errorf("LiteLLM's and the embedded Sonnet 4.5 prices cost %+v differently", u)
		}
	}
}

// TestEmbeddedTable: every entry has a provider, a source, a date, a
// price and a context window; no alias names two models or shadows one;
// earlier prices are in date order; the table passes the checks of a
// file read by Load, which its parse leaves out, and reads the same.
func TestEmbeddedTable(t *testing.T) {
	table := Default()
	if checked, err := parse(embeddedPrices, "prices.json"); err != nil || !cmp.Equal(checked, table) {
		t.Errorf("the embedded table checked: %v, or it reads otherwise:\n%s", err, cmp.Diff(table, checked))
	}
	owner := map[string]string{}
	for name, p := range table {
		if p.Provider == "" || p.Source == "" || p.Date == "" || p.Input <= 0 || p.Output <= 0 || p.MaxInput <= 0 {
			t.Errorf("%s: %+v lacks a provider, source, date, price or window", name, p)
		}
		for _, a := range p.Aliases {
			if o, ok := owner[a]; ok || table[a].Input > 0 {
				t.Errorf("alias %s of %s is also %s", a, name, o)
			}
			owner[a] = name
		}
		for i, e := range p.Before {
			if _, err := time.Parse(time.DateOnly, e.Until); err != nil || i > 0 && e.Until <= p.Before[i-1].Until {
				t.Errorf("%s: earlier prices out of order: %+v", name, p.Before)
			}
		}
	}
	if len(table) < 50 {
		t.Errorf("%d models", len(table))
	}
}

// TestLookupDatedTable: in a table of dated names (LiteLLM's), an undated
// name finds its snapshots when they agree on the price, and is not
// priced when they do not.
func TestLookupDatedTable(t *testing.T) {
	p := Prices{
		"gpt-4o-2024-05-13": {Provider: "openai", Input: 5, Output: 15}, "gpt-4o-2024-08-06": {Provider: "openai", Input: 2.5, Output: 10},
		"claude-x-20250101": {Provider: "anthropic", Input: 3, Output: 15, Source: "a"}, "claude-x-20250301": {Provider: "anthropic", Input: 3, Output: 15, Source: "b"},
	}
	var u *noprice.UnknownModelError
	if _, got, err := p.Lookup("gpt-4o"); !errors.As(err, &u) || len(u.Closest) != 2 {
		t.Errorf("gpt-4o among two prices: %q, %v", got, err)
	}
	if _, got, err := p.Lookup("gpt-4o-2024-08-06"); err != nil || got != "gpt-4o-2024-08-06" {
		t.Errorf("an exact snapshot: %q, %v", got, err)
	}
	if pr, got, err := p.Lookup("anthropic/claude-x"); err != nil || got != "claude-x-20250101" || pr.Input != 3 {
		t.Errorf("snapshots that agree: %q, %v", got, err)
	}
}
