package pricing

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesBadPrices: a price file whose price cannot be taken as
// it says is an error naming the file, the line, the model and the
// field, in LiteLLM's format and in ctxbench's, never a model left out
// (a good model beside it kept the file loading, the bad one "not
// priced") nor a price taken in part (a negative one).
func TestLoadRefusesBadPrices(t *testing.T) {
	good := `"gpt-4o-mini": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1.5e-07, "output_cost_per_token": 6e-07}`
	litellm := func(fields string) string {
		return "{\n" + good + ",\n\"gpt-4o\": {\"litellm_provider\": \"openai\", \"mode\": \"chat\",\n" + fields + "\n}\n}\n"
	}
	own := func(fields string) string {
		return "{\"models\": {\n\"gpt-4o-mini\": {\"provider\": \"openai\", \"input\": 0.15, \"output\": 0.6},\n\"gpt-4o\": {\"provider\": \"openai\",\n" + fields + "\n}}}\n"
	}
	dir := t.TempDir()
	check := func(name, text, want string) {
		t.Helper()
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := Load(path)
		if err == nil {
			t.Errorf("%s: loaded %d models, want an error", name, len(p))
			return
		}
		if !strings.HasPrefix(err.Error(), path+":"+want) {
			t.Errorf("%s: %v\nwant it to start %s:%s", name, err, path, want)
		}
	}
	const per = `: want a number from 0 to 1000 USD per token`
	check("negative", litellm(`"input_cost_per_token": -2.5e-06, "output_cost_per_token": 1e-05`), `4: model "gpt-4o": input_cost_per_token -2.5e-06`+per)
	check("string", litellm(`"input_cost_per_token": "2.5e-06", "output_cost_per_token": 1e-05`), `4: model "gpt-4o": input_cost_per_token "2.5e-06"`+per)
	check("1e400", litellm(`"input_cost_per_token": 2.5e-06,`+"\n"+`"output_cost_per_token": 1e400`), `5: model "gpt-4o": output_cost_per_token 1e400`+per)
	check("1e300", litellm(`"input_cost_per_token": 1e300, "output_cost_per_token": 1e-05`), `4: model "gpt-4o": input_cost_per_token 1e300`+per)
	check("past the ceiling", litellm(`"input_cost_per_token": 1000.000001, "output_cost_per_token": 1e-05`), `4: model "gpt-4o": input_cost_per_token 1000.000001`+per)
	check("null", litellm(`"input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": null`), `4: model "gpt-4o": cache_read_input_token_cost null`+per)
	check("long context", litellm(`"input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05,`+"\n"+`"input_cost_per_token_above_200k_tokens": "5e-06"`), `5: model "gpt-4o": input_cost_per_token_above_200k_tokens "5e-06"`+per)
	check("misspelt", litellm(`"input_cost_per_tokens": 2.5e-06, "output_cost_per_token": 1e-05`), `4: model "gpt-4o": unknown price field "input_cost_per_tokens" (did you mean input_cost_per_token?)`)
	check("unreadable variant", litellm(`"input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05,`+"\n"+`"input_cost_per_token_above_200k": 5e-06`), `5: model "gpt-4o": unknown price field "input_cost_per_token_above_200k"`)
	const perM = `: want a number from 0 to 1000000000 USD per million tokens`
	check("own negative", own(`"input": -2.5, "output": 10`), `4: model "gpt-4o": input -2.5`+perM)
	check("own string", own(`"input": 2.5, "output": "10"`), `4: model "gpt-4o": output "10"`+perM)
	check("own 1e400", own(`"input": 1e400, "output": 10`), `4: model "gpt-4o": input 1e400`+perM)
	check("own 1e300", own(`"input": 2.5, "output": 10, "cache_read": 1e300`), `4: model "gpt-4o": cache_read 1e300`+perM)
	check("own unknown", own(`"input": 2.5, "output": 10,`+"\n"+`"cache_reads": 1.25`), `5: model "gpt-4o": unknown field "cache_reads" (did you mean cache_read?)`)
	check("own earlier", own(`"input": 2.5, "output": 10,`+"\n"+`"before": [{"until": "2025-01-01",`+"\n"+`"input": -5, "output": 15}]`), `6: model "gpt-4o": input -5`+perM)
	check("own until", own(`"input": 2.5, "output": 10, "until": "2025-01-01"`), `4: model "gpt-4o": unknown field "until"`)
	check("syntax", "{\"models\": {\n\"gpt-4o\": {\"input\": 2.5,,}}}", `2: invalid character ','`)

	// At the ceiling, and at 0, a price is a price.
	path := filepath.Join(dir, "ceiling.json")
	if err := os.WriteFile(path, []byte(litellm(`"input_cost_per_token": 1000, "output_cost_per_token": 0, "cache_read_input_token_cost": -0`)), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil || p["gpt-4o"].Input != maxPrice || len(p) != 2 {
		t.Errorf("a price at the ceiling: %v, %+v", err, p["gpt-4o"])
	}
}

// TestLoadLiteLLMFields: testdata/litellm-fields.json is LiteLLM's
// model_prices_and_context_window.json of 2026-07-24 cut to entries that
// hold, between them, each of its 145 fields, of every mode: the real
// file's fields ctxbench does not read (tiers, audio, images, seconds,
// DeepSeek's cache hits, the spec, the date) load, and its 25 entries
// priced by the token are priced, the per-second and unpriced chat
// entries not.
func TestLoadLiteLLMFields(t *testing.T) {
	p, err := Load("testdata/litellm-fields.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 25 {
		t.Errorf("%d models priced, want 25", len(p))
	}
	b, err := os.ReadFile("testdata/litellm-fields.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for _, r := range raw {
		var f map[string]json.RawMessage
		if json.Unmarshal(r, &f) == nil {
			for k := range f {
				fields[k] = true
			}
		}
	}
	if len(fields) < 145 {
		t.Errorf("the file holds %d fields, want LiteLLM's 145", len(fields))
	}
	for model, want := range map[string]Price{
		"gpt-4o":                             {Input: 2.5, Output: 10, CacheRead: 1.25},
		"claude-sonnet-4-5":                  {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite5m: 3.75, CacheWrite1h: 6},
		"wandb/deepseek-ai/DeepSeek-R1-0528": {Input: 135000, Output: 540000},
	} {
		got := p[model]
		if got.Input != want.Input || got.Output != want.Output || got.CacheRead != want.CacheRead || got.CacheWrite5m != want.CacheWrite5m || got.CacheWrite1h != want.CacheWrite1h {
			t.Errorf("%s: %+v, want %+v", model, got, want)
		}
	}
	for _, model := range []string{"bedrock/us-east-1/1-month-commitment/anthropic.claude-v1", "azure/container", "sample_spec", "last_updated"} {
		if _, ok := p[model]; ok {
			t.Errorf("%s is priced by the token", model)
		}
	}
}
