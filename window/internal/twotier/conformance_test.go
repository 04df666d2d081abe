package twotier

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestTwoTierConformance: at every call of every history, two-tier sends
// what the ralph loop's summarizeMessages (the real code, run by make
// conformance from a checkout of vercel-labs/ralph-gpu) sends: the same
// messages, a summary in the same place made by the same tier, a
// heuristic summary word for word, a cut message of the same length; and
// counts what the code counts before deciding.
func TestTwoTierConformance(t *testing.T) {
	var g struct {
		Ralph   policytest.GoldenSource `json:"ralph"`
		Results []struct {
			Source string          `json:"source"`
			Calls  []twoTierGolden `json:"calls"`
		} `json:"results"`
	}
	policytest.ReadGolden(t, "twotier.json", &g)
	if g.Ralph.Commit != ralphCommit {
		t.Errorf("the golden is of %s@%s; the policy says it follows %s", g.Ralph.Repository, g.Ralph.Commit, ralphCommit)
	}
	calls, same, heuristic, ai := 0, 0, 0, 0
	for _, r := range g.Results {
		tr := policytest.ConformanceSource(t, r.Source)
		log := &promptLog{}
		got := policytest.Run(t, mustPolicy(t, "two-tier"), tr, log)
		if len(got) != len(r.Calls) {
			t.Fatalf("%s: %d calls, the golden has %d", r.Source, len(got), len(r.Calls))
		}
		tokens, next := 0, 0 // what loop.ts counts: every message before the call
		for c, want := range r.Calls {
			calls++
			for end := policytest.CallMessage(tr, c); next < end; next++ {
				tokens += loopCount(tr, next)
			}
			if tokens != want.Tokens {
				t.Errorf("%s, call %d: loop.ts counts %d tokens, ctxbench %d", r.Source, c, want.Tokens, tokens)
			}
			if want.Heuristic != "" {
				heuristic++
			} else if want.AI != nil {
				ai++
			}
			step := got[c].Step
			if want.matches(t, r.Source, c, step, log) {
				same++
			} else if !t.Failed() || calls < 20 {
				t.Errorf("%s, call %d: summarizeMessages sent %v (heuristic %t, ai %t), ctxbench %v (summary %+v)", r.Source, c, want.Sent, want.Heuristic != "", want.AI != nil, policytest.EncodeRuns(loopIDs(step.History)), step.Summary)
			}
		}
	}
	if heuristic == 0 || ai == 0 {
		t.Errorf("the golden has %d heuristic and %d AI summaries: it no longer tests both tiers", heuristic, ai)
	}
	t.Logf("%d of %d calls as summarizeMessages (%d heuristic summaries, %d AI)", same, calls, heuristic, ai)
}

// A twoTierGolden is what summarizeMessages did at a call: the messages
// it sent, the tokens it counted, its heuristic summary or the hashes
// of its AI summary's prompt.
type twoTierGolden struct {
	Sent      []string `json:"sent"`
	Tokens    int      `json:"tokens"`
	Heuristic string   `json:"heuristic"`
	AI        *struct {
		System, User string
		Length       int
		Cached       bool
	} `json:"ai"`
}

// loopCount is what loop.ts counts of message i of tr: the system
// prompt's text, or the message's JSON.
func loopCount(tr *transcript.Transcript, i int) int {
	m := &tr.Messages[i]
	if i == 0 && m.Role == transcript.RoleSystem {
		return loopTokens.Count(m.Text())
	}
	return loopTokens.CountMessage(m)
}

// matches reports whether step sent what the golden did, with a summary
// in the same place made by the same tier; an AI summary's request is
// the next of log's.
func (want twoTierGolden) matches(t *testing.T, src string, c int, step policy.Step, log *promptLog) bool {
	t.Helper()
	ok := slices.Equal(policytest.EncodeRuns(loopIDs(step.History)), want.Sent)
	switch ev := step.Summary; {
	case want.Heuristic != "":
		return ok && ev != nil && ev.Model == "heuristic" && summaryText(step.History) == want.Heuristic
	case want.AI != nil:
		ok = ok && ev != nil && ev.Model != "heuristic" && ev.Cached == want.AI.Cached &&
			strings.HasPrefix(summaryText(step.History), "## Earlier Conversation Summary (AI-Generated)\n\n")
		if !want.AI.Cached && ok {
			// The AI summaries' requests, in the order of the calls.
			req := log.reqs[0]
			log.reqs = log.reqs[1:]
			if policytest.SHA256Hex(req.Template.System) != want.AI.System || policytest.SHA256Hex(req.Prompt) != want.AI.User {
				t.Errorf("%s, call %d: the AI summary's prompt (%d characters) is not createAISummary's (%d)", src, c, jsstring.Len(req.Prompt), want.AI.Length)
				return false
			}
		}
		return ok
	}
	return ok && step.Summary == nil
}

// promptLog is the mock summarizer, keeping the requests it is given.
type promptLog struct {
	mock summarize.Mock
	reqs []summarize.Request
}

func (p *promptLog) Name() string { return "mock" }

func (p *promptLog) Summarize(ctx context.Context, req summarize.Request) (summarize.Result, error) {
	p.reqs = append(p.reqs, req)
	return p.mock.Summarize(ctx, req)
}

// loopIDs writes a cut message as the twotier golden does: its id, "~"
// and its content's length in UTF-16 units.
func loopIDs(items []policy.Item) []string {
	out := policy.ItemIDs(items)
	for i, it := range items {
		if it.Truncated {
			out[i] += "~" + strconv.Itoa(jsstring.Len(it.Msg.Text()))
		}
	}
	return out
}

// headOf is 1 when items start with the system message, else 0.
func headOf(items []policy.Item) int {
	if len(items) > 0 && items[0].Msg.Role == transcript.RoleSystem && !items[0].Synthetic() {
		return 1
	}
	return 0
}

// summaryText is the text of the summary after the head.
func summaryText(items []policy.Item) string {
	if h := headOf(items); h < len(items) && items[h].Summary {
		return items[h].Msg.Text()
	}
	return ""
}
