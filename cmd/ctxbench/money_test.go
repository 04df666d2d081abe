package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chatLog writes an OpenAI chat log of calls gpt-4o calls, each of
// prompt tokens, and returns its path: call k's line is 2k.
func chatLog(t *testing.T, path string, calls int, prompt int64) string {
	t.Helper()
	var b strings.Builder
	for range calls {
		fmt.Fprintf(&b, `{"role":"user","content":"q"}`+"\n"+`{"role":"assistant","content":"a","model":"gpt-4o","usage":{"prompt_tokens":%d,"completion_tokens":0}}`+"\n", prompt)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMoneyNeverWraps (issue 64, item 3): no bill wraps to the other
// sign. gpt-4o bills $2.50 a million prompt tokens, so 4×10¹¹ tokens are
// pricing.MaxCall, a million dollars: a call a token below and one at it
// bill what they cost, one a token above and the call of 10¹²
// tokens (five of them billed −$5,946,744.0737) are an error naming the
// call's line, exit 2. Ten calls of $999,997.50, in one session or in
// ten, pass the $9,223,372.0369 an int64 of pico-dollars holds, in the
// bill and in a policy's cost: an error naming the tenth, where nine
// bill $8,999,977.50; so does the merge of two shards that each hold
// fewer, and a sweep's point.
func TestMoneyNeverWraps(t *testing.T) {
	dir := t.TempDir()
	const at = 400_000_000_000
	bill := [][]string{{"cost"}, {"cost", "--json"}, {"cost", "--policy", "recorded"}}
	// The policies' calls are the bill's give or take a few tokens:
	// their cases keep clear of the ceiling by a million.
	policy := [][]string{{"cost", "--policy", "none"}, {"cost", "--policy", "aidf:max_messages=2"}}
	for _, tc := range []struct {
		name     string
		calls    int
		prompt   int64
		commands [][]string
		says     string // "" for exit 0
	}{
		{"a token below the ceiling", 1, at - 1, bill, ""},
		{"at the ceiling", 1, at, bill, ""},
		{"a token above", 1, at + 1, bill, ":2: pricing the call at gpt-4o: it costs more than the $1,000,000.0000 a call can cost"},
		{"the issue's five calls", 5, 1e12, append(bill, policy...), ":2: pricing the call at gpt-4o: it costs $2,500,000.0000, past the $1,000,000.0000 a call can cost"},
		{"nine calls below", 9, at - 1e6, append(bill, policy...), ""},
		{"ten calls below", 10, at - 1e6, bill, ":20: adding the call to the bill: the sum passes $9,223,372.0369, the most ctxbench counts"},
		{"ten calls below, a policy", 10, at - 1e6, policy, ":20: adding the call to the run's cost: the sum passes $9,223,372.0369, the most ctxbench counts"},
	} {
		path := chatLog(t, filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl"), tc.calls, tc.prompt)
		for _, args := range tc.commands {
			stdout, stderr, code := ctxbench("", append(args, path)...)
			switch {
			case tc.says == "" && (code != 0 || strings.Contains(stdout, "-$") || strings.Contains(stdout, "pusd\":-")):
				t.Errorf("%s, %v: exit %d, %s%s", tc.name, args, code, stderr, stdout)
			case tc.says != "" && (code != 2 || stderr != "ctxbench: error: "+path+tc.says+"\n"):
				t.Errorf("%s, %v: exit %d, stderr %q; want exit 2, %q", tc.name, args, code, stderr, path+tc.says)
			}
		}
	}
	// Nine calls bill what they cost, to the pico-dollar.
	stdout, _, _ := ctxbench("", "cost", "--json", filepath.Join(dir, "nine-calls-below.jsonl"))
	if want := fmt.Sprintf(`"input_pusd":%d,`, int64(9*(at-1e6)*2_500_000)); !strings.Contains(stdout, want) {
		t.Errorf("nine calls: want %s in %.300s", want, stdout)
	}

	// Ten sessions of one call each: the bill by model passes the
	// ceiling at the tenth file; two shards of them each bill their part,
	// and their merge is the same error.
	sessions := filepath.Join(dir, "sessions")
	if err := os.Mkdir(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		chatLog(t, filepath.Join(sessions, fmt.Sprintf("s%d.jsonl", i)), 1, at-1e6)
	}
	last := filepath.Join(sessions, "s9.jsonl")
	for _, args := range [][]string{{"cost"}, {"cost", "--policy", "recorded"}, {"cost", "--policy", "none", "--json"}} {
		if _, stderr, code := ctxbench("", append(args, sessions)...); code != 2 || !strings.HasPrefix(stderr, "ctxbench: error: "+last+":2: ") || !strings.Contains(stderr, "the sum passes $9,223,372.0369") {
			t.Errorf("ten sessions, %v: exit %d, %s", args, code, stderr)
		}
	}
	for _, args := range [][]string{{"cost"}, {"cost", "--policy", "none"}} {
		var partials []string
		for k := 1; k <= 2; k++ {
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.partial", args[len(args)-1], k))
			if _, stderr, code := ctxbench("", append(args, "--shard", fmt.Sprintf("%d/2", k), "--partial", p, sessions)...); code != 0 {
				t.Fatalf("shard %d/2, %v: exit %d, %s", k, args, code, stderr)
			}
			partials = append(partials, p)
		}
		if _, stderr, code := ctxbench("", append(append(args, "--merge"), partials...)...); code != 2 || !strings.Contains(stderr, ":2: adding the call to the bill: the sum passes $9,223,372.0369") {
			t.Errorf("the merge of two shards, %v: exit %d, %s", args, code, stderr)
		}
	}
	if _, stderr, code := ctxbench("", "sweep", "--policy", "aidf", "--grid", "max_messages=2,4", sessions); code != 2 || !strings.Contains(stderr, "s9.jsonl: adding its cost to the sweep's point 1 passes $9,223,372.0369") {
		t.Errorf("a sweep of ten sessions: exit %d, %s", code, stderr)
	}
}
