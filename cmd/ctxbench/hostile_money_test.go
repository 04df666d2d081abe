//go:build hostile

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHostileMoney runs the built command on the money shapes of issue
// 64, item 3, and prints each one's exit status and first line: five
// gpt-4o calls of 10¹² prompt tokens (billed −$5,946,744.0737, exit 0,
// before), a price of 1e300 dollars a token (−$9,223,372.0369), the
// dearest price a table may hold on those calls, and ten calls of
// $999,997.50 whose sum passes what an int64 of pico-dollars holds, in
// one run, in the merge of two shards and in a sweep. None may print an
// amount of the other sign: each bills what it costs (exit 0) or is an
// error naming the record, file:line (exit 2).
func TestHostileMoney(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	calls := func(n int, prompt int64) string {
		var b strings.Builder
		for range n {
			fmt.Fprintf(&b, `{"role":"user","content":"q"}`+"\n"+`{"role":"assistant","content":"a","model":"gpt-4o","usage":{"prompt_tokens":%d,"completion_tokens":1}}`+"\n", prompt)
		}
		return b.String()
	}
	five := write("five.jsonl", calls(5, 1e12))
	small := write("small.jsonl", calls(1, 10))
	ten := write("ten.jsonl", calls(10, 399_999_000_000))
	huge := write("huge.json", `{"gpt-4o": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1e300, "output_cost_per_token": 1e-05}}`)
	hugeOwn := write("huge-own.json", `{"models": {"gpt-4o": {"provider": "openai", "input": 1e300, "output": 10}}}`)
	dearest := write("dearest.json", `{"gpt-4o": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1000, "output_cost_per_token": 1000}}`)
	sessions := filepath.Join(dir, "sessions")
	if err := os.Mkdir(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		write(filepath.Join("sessions", fmt.Sprintf("s%d.jsonl", i)), calls(1, 399_999_000_000))
	}
	var partials []string
	for k := 1; k <= 2; k++ {
		p := filepath.Join(dir, fmt.Sprintf("shard%d.partial", k))
		if out, err := exec.Command(bin, "cost", "--shard", fmt.Sprintf("%d/2", k), "--partial", p, sessions).CombinedOutput(); err != nil {
			t.Fatalf("shard %d/2: %v\n%s", k, err, out)
		}
		partials = append(partials, p)
	}
	// The record: a call's file:line, a price's, or for a sweep's point
	// the transcript whose cost passed it.
	record := regexp.MustCompile(`^ctxbench: error: [^\n]*\.(json:\d+|jsonl:\d+|jsonl): `)
	wrapped := regexp.MustCompile(`-\$[0-9]|_pusd":-|cost_usd":-`)
	for _, tc := range []struct {
		name string
		args []string
		exit int
		says string // in the output
	}{
		{"five calls of 10^12: the bill", []string{"cost", five}, 2, "five.jsonl:2: pricing the call at gpt-4o: it costs $2,500,000.0000"},
		{"five calls of 10^12: --json", []string{"cost", "--json", five}, 2, "five.jsonl:2: "},
		{"five calls of 10^12: recorded", []string{"cost", "--policy", "recorded", five}, 2, "five.jsonl:2: "},
		{"five calls of 10^12: none", []string{"cost", "--policy", "none", five}, 2, "five.jsonl:2: "},
		{"five calls of 10^12: --trace", []string{"replay", "--policy", "none", "--trace", filepath.Join(dir, "trace.jsonl"), five}, 2, "five.jsonl:2: "},
		{"five calls of 10^12: sweep", []string{"sweep", "--policy", "aidf", "--grid", "max_messages=2,4", five}, 2, "five.jsonl:2: "},
		{"five calls of 10^12: inspect", []string{"inspect", five}, 0, "5,000,000,000,000"},
		{"a price of 1e300: LiteLLM's", []string{"cost", "--prices", huge, small}, 2, `huge.json:1: model "gpt-4o": input_cost_per_token 1e300`},
		{"a price of 1e300: ctxbench's", []string{"cost", "--prices", hugeOwn, small}, 2, `huge-own.json:1: model "gpt-4o": input 1e300`},
		{"a price of 1e300: replay", []string{"replay", "--policy", "none", "--prices", huge, small}, 2, "input_cost_per_token 1e300"},
		{"$1,000 a token, 11 tokens", []string{"cost", "--prices", dearest, small}, 0, "$11,000.0000"},
		{"$1,000 a token, 10^12 tokens", []string{"cost", "--prices", dearest, five}, 2, "five.jsonl:2: pricing the call at gpt-4o: it costs $1,000,000,000,001,000.0000"},
		{"ten calls past int64: the bill", []string{"cost", ten}, 2, "ten.jsonl:20: adding the call to the bill: the sum passes $9,223,372.0369"},
		{"ten calls past int64: none", []string{"cost", "--policy", "none", ten}, 2, "ten.jsonl:20: adding the call to the run's cost"},
		{"ten sessions past int64", []string{"cost", sessions}, 2, "s9.jsonl:2: adding the call to the bill"},
		{"ten sessions in two shards", append([]string{"cost", "--merge"}, partials...), 2, ".jsonl:2: adding the call to the bill: the sum passes"},
		{"ten sessions: a sweep", []string{"sweep", "--policy", "aidf", "--grid", "max_messages=2,4", sessions}, 2, "adding its cost to the sweep's point 1 passes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command(bin, tc.args...).CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
			fmt.Printf("%-34s exit %d  %.150s\n", tc.name, code, first)
			if code != tc.exit || !strings.Contains(string(out), tc.says) {
				t.Errorf("exit %d (want %d), output %.400q (want %q)", code, tc.exit, out, tc.says)
			}
			if code == 2 && !record.MatchString(string(out)) {
				t.Errorf("the error names no record: %.300q", out)
			}
			if m := wrapped.Find(out); m != nil {
				t.Errorf("an amount of the other sign, %q: %.300q", m, out)
			}
		})
	}
}
