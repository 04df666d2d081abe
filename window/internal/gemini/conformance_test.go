package gemini

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// snapshotSummarizer answers every call with the same text, as the
// conformance harness's scripted model does.
type snapshotSummarizer struct{ text string }

func (s snapshotSummarizer) Name() string { return "scripted" }
func (s snapshotSummarizer) Summarize(context.Context, summarize.Request) (summarize.Result, error) {
	return summarize.Result{Text: s.text}, nil
}

// TestGeminiConformance: at every call of every history, gemini-cli does
// what @google/gemini-cli-core's ChatCompressionService does on the
// history Gemini CLI holds — the same status (compressed, inflated and
// discarded, truncated only, nothing), the same history after it, part
// for part and truncated output for truncated output, and the same
// estimate of the prompt sent.
func TestGeminiConformance(t *testing.T) {
	var g struct {
		Version  string `json:"@google/gemini-cli-core"`
		TempDir  string `json:"tempDir"`
		Settings []struct {
			Threshold    float64 `json:"threshold"`
			SummaryChars int     `json:"summaryChars"`
		} `json:"settings"`
		Summaries []string `json:"summaries"`
		Results   [][]struct {
			Source string `json:"source"`
			Calls  []struct {
				Status  int      `json:"status"`
				History []string `json:"history"`
				Prompt  int      `json:"prompt"`
			} `json:"calls"`
		} `json:"results"`
	}
	policytest.ReadGolden(t, "gemini.json", &g)
	if spec := Specs[0]; spec.Models != "@google/gemini-cli-core@"+g.Version {
		t.Errorf("the policy says it models %v; the golden is of @google/gemini-cli-core@%s", spec.Models, g.Version)
	}
	if g.TempDir != geminiTempDir {
		t.Errorf("the golden saved outputs to %s, the policy says %s", g.TempDir, geminiTempDir)
	}
	for k, s := range g.Settings {
		params := map[string]string{"token_limit": strconv.Itoa(geminiDefaultLimit), "threshold": strconv.FormatFloat(s.Threshold, 'g', -1, 64)}
		spec := fmt.Sprintf("gemini-cli:token_limit=%d,threshold=%g", geminiDefaultLimit, s.Threshold)
		summary := g.Summaries[k]
		calls, same, compressions := 0, 0, 0
		for _, r := range g.Results[k] {
			tr := policytest.ConformanceSource(t, r.Source)
			env := &policy.Env{Transcript: tr, Summarizer: snapshotSummarizer{summary}, Count: policytest.CacheCount()}
			c := 0
			policytest.Drive(t, policytest.New(t, Specs[0], params), tr, env, func(i, turn int, step policy.Step, st *policy.State) {
				want := r.Calls[c]
				gs := st.Data.(*geminiState)
				status := int(gs.status)
				var held []string
				if want.Status == 1 || want.Status == 6 {
					compressions++
					held = gemDescribe(tr, step.History[:len(step.History)-turn], summary)
				}
				calls++
				if status == want.Status && gs.lastPrompt == want.Prompt && slices.Equal(held, want.History) {
					same++
				} else if !t.Failed() || calls < 20 {
					t.Errorf("%s, %s, call %d (message %d): gemini-cli-core: status %d, prompt %d, history %q; ctxbench: status %d, prompt %d, history %q",
						spec, r.Source, c, i, want.Status, want.Prompt, want.History, status, gs.lastPrompt, held)
				}
				c++
			})
		}
		t.Logf("%s (summary of %d characters): %d of %d calls as gemini-cli-core, %d compressions", spec, utf8.RuneCountInString(summary), same, calls, compressions)
	}
}

// gemDescribe writes the history sent as the golden does: per content
// (system messages left out, consecutive messages of one role
// coalesced), its parts as "i" (message i), "i~n" (a function response of
// message i truncated to n UTF-16 units), "S" (the summary), "A" (the
// acknowledgement).
func gemDescribe(tr *transcript.Transcript, items []policy.Item, summary string) []string {
	var rest []policy.Item
	for _, it := range items {
		if it.Msg.Role != transcript.RoleSystem {
			rest = append(rest, it)
		}
	}
	names := policy.ToolNames(tr)
	var out []string
	for _, c := range gemContents(rest, names) {
		var toks []string
		for _, p := range c.parts {
			it := c.items[p.item]
			var tok string
			switch {
			case it.Summary:
				tok = "S"
			case it.Msg.Text() == geminiAck && it.Index() < 0:
				tok = "A"
			case p.kind == 'r' && p.output != tr.Messages[it.Index()].Blocks[p.block].Text:
				tok = fmt.Sprintf("%d~%d", it.Index(), jsstring.Len(p.output))
			default:
				tok = strconv.Itoa(it.Index())
			}
			if n := len(toks); n > 0 && toks[n-1] == tok && !strings.Contains(tok, "~") {
				continue
			}
			toks = append(toks, tok)
		}
		out = append(out, strings.Join(toks, " "))
	}
	return out
}

// TestGeminiMeasures: content by content, over every history whole, the
// JSON length findCompressSplitPoint weighs and estimateTokenCountSync's
// tokens equal gemini-cli-core's.
func TestGeminiMeasures(t *testing.T) {
	var g struct {
		Measures []struct {
			Source string `json:"source"`
			JSON   []int  `json:"json"`
			Tokens []int  `json:"tokens"`
			Total  int    `json:"total"`
		} `json:"measures"`
	}
	policytest.ReadGolden(t, "gemini.json", &g)
	contents := 0
	for _, m := range g.Measures {
		tr := policytest.ConformanceSource(t, m.Source)
		var rest []policy.Item
		for i := range tr.Messages {
			if tr.Messages[i].Role != transcript.RoleSystem {
				rest = append(rest, policy.Original(tr, i))
			}
		}
		cs := gemContents(rest, policy.ToolNames(tr))
		if len(cs) != len(m.JSON) {
			t.Errorf("%s: %d contents, gemini-cli-core holds %d", m.Source, len(cs), len(m.JSON))
			continue
		}
		for k, c := range cs {
			contents++
			if j, q := gemJSON(c), gemQuarters(cs[k:k+1])/4; j != m.JSON[k] || q != m.Tokens[k] {
				t.Errorf("%s, content %d (messages %v): JSON %d, tokens %d; gemini-cli-core %d and %d", m.Source, k, policy.ItemIDs(c.items), j, q, m.JSON[k], m.Tokens[k])
			}
		}
		if got := gemTokensOf(cs); got != m.Total {
			t.Errorf("%s: %d tokens in all, gemini-cli-core %d", m.Source, got, m.Total)
		}
	}
	t.Logf("%d contents of %d histories measured", contents, len(g.Measures))
}
