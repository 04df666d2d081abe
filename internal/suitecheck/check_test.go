package suitecheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/window"
)

// TestCompareDirections: each metric improves one way — retention up,
// the rest down — and a change beyond tolerance in that way is Better; a
// violation the baseline records is known, more of it Worse.
func TestCompareDirections(t *testing.T) {
	base := Metrics{PeakTokens: 1000, InputTokens: 5000, CostUSD: 1, Retention: 0.8, Violations: map[string]int{"tool_pairing": 3}}
	now := Metrics{PeakTokens: 900, InputTokens: 5050, CostUSD: 1.5, Retention: 0.9, Violations: map[string]int{"tool_pairing": 3, "cap": 1}}
	got := map[string]Verdict{}
	for _, d := range Compare(base, now, Tolerances{"default": {Relative: 0.02}}) {
		got[d.Metric] = d.Verdict
	}
	want := map[string]Verdict{"peak_tokens": Better, "input_tokens": Within, "cost_usd": Worse, "retention": Better, "violations.cap": Worse}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	fewer := Metrics{Violations: map[string]int{"tool_pairing": 1}}
	if d := Compare(Metrics{Violations: map[string]int{"tool_pairing": 3}}, fewer, nil); len(d) != 1 || d[0].Verdict != Better {
		t.Errorf("fewer violations: %+v", d)
	}
}

// TestCacheBreakMetrics: the cache breaks are compared where both the
// baseline and the run measured them (a baseline recorded before ctxbench
// measured them compares nothing), and max_cache_break_usd budgets what
// re-billing after them cost.
func TestCacheBreakMetrics(t *testing.T) {
	n := func(v int) *int { return &v }
	usd := func(v float64) *float64 { return &v }
	old := Metrics{CostUSD: 1}
	now := Metrics{CostUSD: 1, CacheBreaks: n(12), CacheBreakUSD: usd(0.5)}
	if d := Compare(old, now, nil); len(d) != 0 {
		t.Errorf("a baseline without cache breaks compared them: %+v", d)
	}
	base := Metrics{CostUSD: 1, CacheBreaks: n(10), CacheBreakUSD: usd(0.25)}
	got := map[string]Verdict{}
	for _, d := range Compare(base, now, nil) {
		got[d.Metric] = d.Verdict
	}
	if diff := cmp.Diff(map[string]Verdict{"cache_breaks": Worse, "cache_break_usd": Worse}, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	fails, err := CheckBudgets(now, map[string]float64{"max_cache_break_usd": 0.4, "max_cost_usd": 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]BudgetFailure{{Budget: "max_cache_break_usd", Limit: 0.4, Got: 0.5}}, fails); diff != "" {
		t.Errorf("budgets (-want +got):\n%s", diff)
	}
}

// TestCacheMissMetric: what the provider's cache misses cost is compared
// where both runs measured it, and max_cache_miss_usd budgets it.
func TestCacheMissMetric(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	base, now := Metrics{CacheMissUSD: usd(0.1)}, Metrics{CacheMissUSD: usd(0.3)}
	got := map[string]Verdict{}
	for _, d := range Compare(base, now, nil) {
		got[d.Metric] = d.Verdict
	}
	if diff := cmp.Diff(map[string]Verdict{"cache_miss_usd": Worse}, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if d := Compare(Metrics{}, now, nil); len(d) != 0 {
		t.Errorf("a baseline without misses compared them: %+v", d)
	}
	fails, err := CheckBudgets(now, map[string]float64{"max_cache_miss_usd": 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]BudgetFailure{{Budget: "max_cache_miss_usd", Limit: 0.2, Got: 0.3}}, fails); diff != "" {
		t.Errorf("budgets (-want +got):\n%s", diff)
	}
}

// TestProbeMetrics: the probe scores improve upward; they are compared
// where the baseline has them (a baseline recorded before ctxbench asked
// probes compares none, and a kind the session no longer has is not
// compared), and min_probe_score budgets the overall score.
func TestProbeMetrics(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	base := Metrics{ProbeScore: v(0.8), ProbeArtifact: v(0.9), ProbeRecall: v(0.5), ProbeDecision: v(1)}
	now := Metrics{ProbeScore: v(0.7), ProbeArtifact: v(0.95), ProbeRecall: v(0.5), ProbeContinuation: v(0.2)}
	got := map[string]Verdict{}
	for _, d := range Compare(base, now, nil) {
		got[d.Metric] = d.Verdict
	}
	if diff := cmp.Diff(map[string]Verdict{"probe_score": Worse, "probe_artifact": Better}, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if d := Compare(Metrics{}, now, nil); len(d) != 0 {
		t.Errorf("a baseline without probes compared them: %+v", d)
	}
	fails, err := CheckBudgets(now, map[string]float64{"min_probe_score": 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]BudgetFailure{{Budget: "min_probe_score", Limit: 0.75, Got: 0.7}}, fails); diff != "" {
		t.Errorf("budgets (-want +got):\n%s", diff)
	}
	if s := fails[0].String(); s != "probe score 0.7 is under the minimum 0.75 (min_probe_score)" {
		t.Errorf("the failure reads %q", s)
	}
	// A case with no probe score (a baseline or session recorded before
	// ctxbench asked probes, or none to ask) meets the budget: nothing
	// was measured to fall under it.
	if fails, err := CheckBudgets(Metrics{PeakTokens: 10}, map[string]float64{"min_probe_score": 0.75}); err != nil || len(fails) != 0 {
		t.Errorf("no probe score: budget failures %+v, error %v; want none", fails, err)
	}
}

// TestChanges: a baseline read back has nil maps where a run has empty
// ones; that is no change. A metric that differs is one.
func TestChanges(t *testing.T) {
	now := &Baseline{Entries: map[string]Entry{
		"a | none": {Policy: "none", Params: map[string]string{}, Metrics: Metrics{PeakTokens: 10}},
		"a | aidf": {Policy: "aidf", Params: map[string]string{"max_messages": "30"}, Metrics: Metrics{PeakTokens: 5}},
	}}
	old, err := ParseBaseline("old", now.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if ch := Changes(old, now); len(ch) != 0 {
		t.Errorf("a baseline read back changed: %+v", ch)
	}
	e := now.Entries["a | aidf"]
	e.PeakTokens = 6
	now.Entries["a | aidf"] = e
	if ch := Changes(old, now); len(ch) != 1 || ch[0].Key != "a | aidf" || ch[0].Old == nil {
		t.Errorf("one metric changed: %+v", ch)
	}
}

// TestCorruptBaseline: a baseline that is not one is an error naming the
// file and what is wrong — trailing text (a merge's conflict markers), a
// key repeated, a metric below 0, a retention over 1, no entries, an
// entry whose policy is not its key's or does not exist, an invariant
// that does not exist (these with the entry and its line) — and a UTF-8
// byte order mark is read past; a label of the config's own, and a
// chain, are accepted.
func TestCorruptBaseline(t *testing.T) {
	good := `{"estimator":"cl100k_base","entries":{"a.jsonl | none":{"policy":"none","peak_tokens":5,"peak_messages":2,"input_tokens":9,"cost_usd":0,"evictions":0,"summaries":0,"retention":1,"violations":{}}}}`
	if _, err := ParseBaseline("b.json", []byte("\xEF\xBB\xBF"+good+"\n")); err != nil {
		t.Errorf("a BOM: %v", err)
	}
	for _, e := range []struct{ key, policy string }{{"a.jsonl | aidf-summarizing", "aidf"}, {"a.jsonl | tight", "prune"},
		{"a.jsonl | anthropic-clear-thinking+anthropic-clear-tool-uses", "anthropic-clear-thinking+anthropic-clear-tool-uses"}, {"a.jsonl | none", ""}} {
		b := (&Baseline{Estimator: "cl100k_base", Entries: map[string]Entry{e.key: {Policy: e.policy}}}).Encode()
		if _, err := ParseBaseline("b.json", b); err != nil {
			t.Errorf("%s, policy %q: %v", e.key, e.policy, err)
		}
	}
	for _, c := range []struct{ in, err string }{
		{good + "\n<<<<<<< HEAD\n", "after the baseline's object"},
		{strings.Replace(good, `"entries":{`, `"entries":{"a.jsonl | none":{"policy":"none","retention":1},`, 1), `key "a.jsonl | none" twice`},
		{strings.Replace(good, `"peak_tokens":5`, `"peak_tokens":5,"peak_tokens":6`, 1), `key "peak_tokens" twice`},
		{strings.Replace(good, `"peak_tokens":5`, `"peak_tokens":5, "peak\u005ftokens" :6`, 1), `key "peak_tokens" twice`},
		{strings.Replace(good, `"input_tokens":9`, `"input_tokens":-9`, 1), "input_tokens is -9, below 0"},
		{strings.Replace(good, `"retention":1`, `"retention":1.5`, 1), "retention is 1.5, over 1"},
		{strings.Replace(good, `"violations":{}`, `"violations":{"cap":-1}`, 1), "violations cap is -1"},
		{`{"estimator":"cl100k_base"}`, "no entries"},
		// An entry at odds with its key, or naming what does not exist:
		// the entry and the line, in a file as Encode writes it.
		{string((&Baseline{Estimator: "cl100k_base", Entries: map[string]Entry{"a.jsonl | none": {Policy: "prune"}}}).Encode()),
			`b.json:5: entry "a.jsonl | none": policy "prune" is not the policy its key names, "none"`},
		{string((&Baseline{Estimator: "cl100k_base", Entries: map[string]Entry{"a.jsonl | mine": {Policy: "prun"}}}).Encode()),
			`b.json:5: entry "a.jsonl | mine": unknown policy "prun", did you mean "prune"?`},
		{string((&Baseline{Estimator: "cl100k_base", Entries: map[string]Entry{"a.jsonl | x": {Policy: "anthropic-clear-thinking+nonesuch"}}}).Encode()),
			`b.json:5: entry "a.jsonl | x": unknown policy "nonesuch"`},
		{string((&Baseline{Estimator: "cl100k_base", Entries: map[string]Entry{"a.jsonl none": {Policy: "none"}}}).Encode()),
			`b.json:4: entry "a.jsonl none": the key is not "FILE | LABEL"`},
		{string((&Baseline{Estimator: "cl100k_base", Entries: map[string]Entry{"a.jsonl | none": {Policy: "none", Metrics: Metrics{Violations: map[string]int{"cap": 1, "tool_paring": 2}}}}}).Encode()),
			`b.json:15: entry "a.jsonl | none": violations: unknown invariant "tool_paring" (known: cap,`},
		{strings.Replace(good, `"violations":{}`, `"violations":{"nonesuch":1}`, 1), `b.json:1: entry "a.jsonl | none": violations: unknown invariant "nonesuch"`},
	} {
		if _, err := ParseBaseline("b.json", []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "b.json:") {
			t.Errorf("%.60q: %v, want %q", c.in, err, c.err)
		}
	}
}

// TestMissingRowHint: a case the baseline lacks says how to add it:
// --update, or --update --accept when it fails (a budget, a violation),
// which --update alone refuses to record.
func TestMissingRowHint(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Case
		want string
	}{
		{"passing", Case{File: "a.jsonl", Policy: "none", Missing: true}, "run 'ctxbench check --update' to add it"},
		{"over a budget", Case{File: "a.jsonl", Policy: "none", Missing: true, Budgets: []BudgetFailure{{Budget: "max_messages", Limit: 1, Got: 9}}}, "'ctxbench check --update --accept' to add it"},
		{"a violation", Case{File: "a.jsonl", Policy: "none", Missing: true, Violations: []ViolationGroup{{Invariant: "cap", Count: 1}}}, "'ctxbench check --update --accept' to add it"},
	} {
		var note string
		for _, r := range (&Report{Cases: []Case{tc.c}}).Rows() {
			if r.Kind == KindMissing {
				note = r.Note
			}
		}
		if !strings.Contains(note, tc.want) {
			t.Errorf("%s: note %q, want %q", tc.name, note, tc.want)
		}
	}
}

// TestRowsCauseFirst: a parameter changed is the cause of the metrics
// that moved after it, so its row comes first, before any regression;
// every row names the policy with its parameters (aidf:max_messages=30,
// not aidf), while the label alone keys the case.
func TestRowsCauseFirst(t *testing.T) {
	p, err := window.Parse("aidf:max_messages=30")
	if err != nil {
		t.Fatal(err)
	}
	c := Case{File: "a.jsonl", Policy: "aidf", Name: "aidf", Params: map[string]string(p.Params()),
		ParamChanges: []ParamChange{{"max_messages", "50", "30"}}}
	for i := range 40 {
		c.Deltas = append(c.Deltas, Delta{Metric: fmt.Sprintf("m%02d", i), Base: 1, Now: 2, Verdict: Worse})
	}
	rows := (&Report{Cases: []Case{c}}).Rows()
	if len(rows) != 41 || rows[0].Kind != KindParam || rows[0].Note != "50 → 30" {
		t.Fatalf("%d rows, the first %+v", len(rows), rows[0])
	}
	for _, r := range rows {
		if r.Shown != "aidf:max_messages=30" || r.Policy != "aidf" {
			t.Fatalf("row shows %q keyed %q", r.Shown, r.Policy)
		}
	}
	labelled := Case{File: "a.jsonl", Policy: "short", Name: "aidf", Params: map[string]string(p.Params())}
	if got := labelled.Shown(); got != "short" {
		t.Errorf("a labelled policy shows %q", got)
	}
}
