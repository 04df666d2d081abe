package resolve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/pricing"
)

// TestResolverOf: one Resolver per table, shared by whoever prices at
// it; another table, even an equal one, has its own; nil is the
// embedded table's.
func TestOf(t *testing.T) {
	a, b := pricing.Default(), pricing.Default()
	if first, again := Of(a), Of(a); first != again {
		t.Error("the same table gave two Resolvers")
	}
	if Of(a) == Of(b) {
		t.Error("two tables gave one Resolver")
	}
	if Of(nil) != defaultResolver() || Of(defaultResolver().Prices()) != defaultResolver() {
		t.Error("nil, or the embedded table, did not give the embedded table's Resolver")
	}
	if Of(a).Prices() == nil {
		t.Error("the Resolver holds no table")
	}
}

// TestLookupDefault: the shared default lookup answers as a lookup in a
// fresh copy of the table does, for every entry, alias, variant and
// unknown name, asked twice; and a copy changed by its caller changes
// neither the next copy nor the shared lookup.
func TestLookupDefault(t *testing.T) {
	p := pricing.Default()
	models := []string{"", "claude-sonnet-4-5-20250929", "us.anthropic.claude-opus-4-6-v1", "GPT-4.1", "gpt-4o-mini-audio-preview", "<synthetic>", "gpt-6"}
	for k, pr := range p {
		models = append(models, k, strings.ToUpper(k), "openai/"+k+"-20250101")
		models = append(models, pr.Aliases...)
	}
	for range 2 {
		for _, m := range models {
			wp, wn, werr := p.Lookup(m)
			gp, gn, gerr := LookupDefault(m)
			if gn != wn || fmt.Sprint(gerr) != fmt.Sprint(werr) || !cmp.Equal(gp, wp) {
				t.Errorf("LookupDefault(%q) = %q, %v; Default().Lookup: %q, %v", m, gn, gerr, wn, werr)
			}
		}
	}
	changed := pricing.Default()
	sonnet := changed["claude-sonnet-4-5"]
	sonnet.Input *= 2
	changed["claude-sonnet-4-5"] = sonnet
	delete(changed, "gpt-4o")
	if _, _, err := LookupDefault("gpt-4o"); err != nil {
		t.Errorf("LookupDefault(gpt-4o) after a copy lost it: %v", err)
	}
	if got, want := pricing.Default()["claude-sonnet-4-5"].Input, p["claude-sonnet-4-5"].Input; got != want {
		t.Errorf("Default() after a copy was changed: input $%g, want $%g", got, want)
	}
}

// BenchmarkDefaultLookup is what a replay asks of the table at every
// run: a copy of the table and the model looked up in it (CopyEach),
// against the shared lookup (Shared). A 1,000-point sweep over the
// corpus asks it some 30,000 times.
func BenchmarkDefaultLookup(b *testing.B) {
	b.Run("CopyEach", func(b *testing.B) {
		for b.Loop() {
			p := pricing.Default()
			if _, _, err := p.Lookup("claude-sonnet-4-5-20250929"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Shared", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := LookupDefault("claude-sonnet-4-5-20250929"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
