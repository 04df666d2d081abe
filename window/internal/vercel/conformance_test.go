package vercel

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestVercelPruneConformance: at every call of every history, under every
// setting, vercel-prune sends what the AI SDK's pruneMessages keeps of the
// whole history: the same messages, each with the same blocks (the golden
// holds each call's entries by their SHA-256).
func TestVercelPruneConformance(t *testing.T) {
	var g struct {
		AI       string `json:"ai"`
		Settings []struct {
			Reasoning     string          `json:"reasoning"`
			ToolCalls     json.RawMessage `json:"toolCalls"`
			EmptyMessages string          `json:"emptyMessages"`
		} `json:"settings"`
		Results [][]policytest.HashedRun `json:"results"`
	}
	policytest.ReadGolden(t, "vercelprune.json", &g)
	if g.AI != vercelAIVersion {
		t.Errorf("the golden is of ai@%s; the policy says it follows %s", g.AI, vercelAIVersion)
	}
	for k, s := range g.Settings {
		spec := "vercel-prune:reasoning=" + s.Reasoning + ",empty_messages=" + s.EmptyMessages
		var rule string
		var rules []struct {
			Type  string   `json:"type"`
			Tools []string `json:"tools"`
		}
		switch {
		case json.Unmarshal(s.ToolCalls, &rule) == nil:
			spec += ",tool_calls=" + rule
		case json.Unmarshal(s.ToolCalls, &rules) == nil && len(rules) == 1:
			spec += ",tool_calls=" + rules[0].Type + ",tools=" + strings.Join(rules[0].Tools, "|")
		default:
			t.Fatalf("setting %d: toolCalls %s", k, s.ToolCalls)
		}
		policytest.CheckHashed(t, mustPolicy(t, spec), spec, "pruneMessages", g.Results[k], pruneEntries)
	}
}

// pruneEntries writes what sent holds of each transcript message as the
// vercelprune golden does: "m<i>" whole, "m<i>:<blocks>" the blocks kept,
// in runs.
func pruneEntries(tr *transcript.Transcript, sent []policy.Item) []string {
	var out []string
	for _, it := range sent {
		if !it.Truncated {
			out = append(out, it.ID)
			continue
		}
		// The blocks kept, by their place in the original.
		var kept []string
		orig := tr.Messages[it.Index()].Blocks
		j := 0
		for _, b := range it.Msg.Blocks {
			for j < len(orig) && !sameBlock(orig[j], b) {
				j++
			}
			kept = append(kept, strconv.Itoa(j))
			j++
		}
		out = append(out, it.ID+":"+strings.Join(kept, "."))
	}
	return policytest.EncodeRuns(out)
}

func sameBlock(a, b transcript.Block) bool {
	return a.Type == b.Type && a.Text == b.Text && a.ID == b.ID && a.Name == b.Name && string(a.Input) == string(b.Input)
}
