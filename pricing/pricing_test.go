package pricing

import (
	"errors"
	"fmt"
	"strings"
	"testing"

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
	c := sonnet.CallCost(transcript.Usage{Input: 1000, CacheRead: 10000, CacheWrite: 2000, CacheWrite1h: 500, Output: 300})
	want := Cost{Input: 3000 * 1e6, CacheRead: 3000 * 1e6, CacheWrite: (1500*3.75 + 500*6) * 1e6, Output: 4500 * 1e6}
	if c != want {
		t.Errorf("cost %+v, want %+v", c, want)
	}
	if got := c.Total().String(); got != "$0.0191" {
		t.Errorf("total %s, want $0.0191", got)
	}
	// Above 200,000 prompt tokens every token is at the long-context rates.
	long := sonnet.CallCost(transcript.Usage{Input: 1000, CacheRead: 200000, Output: 100})
	if want := Money((1000*6 + 200000*0.6 + 100*22.5) * 1e6); long.Total() != want {
		t.Errorf("long-context cost %v, want %v", long.Total(), want)
	}
	// At exactly 200,000 the base rates still apply.
	at := sonnet.CallCost(transcript.Usage{Input: 0, CacheRead: 200000})
	if want := Money(200000 * 0.3 * 1e6); at.Total() != want {
		t.Errorf("cost at the threshold %v, want %v", at.Total(), want)
	}
	// OpenAI: no cache writes, cached input at its rate.
	gpt, _, _ := p.Lookup("openai/gpt-4o-2024-08-06")
	if c := gpt.CallCost(transcript.Usage{Input: 1000, CacheRead: 1000, Output: 1000}); c.Total() != Money((2500+1250+10000)*1e6) {
		t.Errorf("gpt-4o cost %v", c.Total())
	}
}

func TestLookup(t *testing.T) {
	p := Default()
	for model, want := range map[string]string{
		"claude-opus-4-6": "claude-opus-4-6", "anthropic/claude-haiku-4-5-20251001": "claude-haiku-4-5",
		"claude-sonnet-4-5@20250929": "claude-sonnet-4-5", "gpt-5-2025-08-07": "gpt-5", "deepseek-reasoner": "deepseek-reasoner",
		"GPT-4.1": "gpt-4.1", "gemini-2.5-pro-preview-06-05": "gemini-2.5-pro",
	} {
		if _, got, err := p.Lookup(model); err != nil || got != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", model, got, err, want)
		}
	}
}

// TestNotPriced: an unknown model and a missing one are errors of their
// own kinds, which NotPriced tells from any other, wrapped or not; the
// message names the closest entries and no command-line flag.
func TestNotPriced(t *testing.T) {
	p := Default()
	_, _, err := p.Lookup("gemini-3-pro-image-preview")
	var u *UnknownModelError
	if !errors.As(err, &u) || u.Model != "gemini-3-pro-image-preview" || len(u.Closest) != 3 || !strings.HasPrefix(u.Closest[0], "gemini") {
		t.Fatalf("unknown model: %#v", err)
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("a library error names a flag: %v", err)
	}
	if _, _, err := p.Lookup(""); !errors.Is(err, ErrNoModel) {
		t.Errorf("no model: %v", err)
	}
	for _, err := range []error{err, fmt.Errorf("pricing x: %w", ErrNoModel), fmt.Errorf("pricing x: %w", u)} {
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
		OutputAbove: 22.5, ReadAbove: 0.6, Write5mAbove: 7.5, MaxInput: 200000, Source: "testdata/litellm-sample.json"}
	if s != want {
		t.Errorf("price %+v\nwant  %+v", s, want)
	}
	d := Default()["claude-sonnet-4-5"]
	u := transcript.Usage{Input: 123, CacheRead: 45678, CacheWrite: 9012, Output: 345}
	if s.CallCost(u) != d.CallCost(u) {
		t.Error("LiteLLM's and the embedded Sonnet 4.5 prices cost the same call differently")
	}
}

// TestEmbeddedTable: every entry has a provider, a source and a date.
func TestEmbeddedTable(t *testing.T) {
	for name, p := range Default() {
		if p.Provider == "" || p.Source == "" || p.Date == "" || p.Input <= 0 || p.Output <= 0 {
			t.Errorf("%s: %+v lacks a provider, source, date or price", name, p)
		}
	}
}
