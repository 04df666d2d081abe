package langchain

import (
	"encoding/json"
	"fmt"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"testing"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestLangchainConformance: at every call of every history, under every
// setting, langchain-trim keeps what @langchain/core's trimMessages keeps
// — the same LangChain messages, the same one cut to the same length —
// except where LangChain JS returns [undefined] (a system message over
// the budget, or start_on leaving no human message with include_system):
// there ctxbench keeps the system message alone, as Python does.
func TestLangchainConformance(t *testing.T) {
	var g struct {
		Version  string `json:"@langchain/core"`
		Settings []struct {
			MaxTokens     int    `json:"maxTokens"`
			IncludeSystem bool   `json:"includeSystem"`
			StartOn       string `json:"startOn"`
			AllowPartial  bool   `json:"allowPartial"`
		} `json:"settings"`
		Results [][]struct {
			Source string              `json:"source"`
			Calls  [][]json.RawMessage `json:"calls"`
		} `json:"results"`
	}
	policytest.ReadGolden(t, "langchain.json", &g)
	if spec, _ := policytest.Lookup(Specs, "langchain-trim"); spec == nil || spec.Models != "@langchain/core@"+g.Version {
		t.Errorf("the policy says it models %v; the golden is of @langchain/core@%s", spec, g.Version)
	}
	views := map[string]*lcViews{}
	for k, s := range g.Settings {
		spec := fmt.Sprintf("langchain-trim:max_tokens=%d,include_system=%t,allow_partial=%t", s.MaxTokens, s.IncludeSystem, s.AllowPartial)
		if s.StartOn != "" {
			spec += ",start_on=" + s.StartOn
		}
		calls, same, python := 0, 0, 0
		for _, r := range g.Results[k] {
			tr := policytest.ConformanceSource(t, r.Source)
			lv := views[r.Source]
			if lv == nil {
				lv = newLCViews(tr)
				views[r.Source] = lv
			}
			got := policytest.Run(t, mustPolicy(t, spec), tr, nil)
			if len(got) != len(r.Calls) {
				t.Fatalf("%s: %d calls, the golden has %d", r.Source, len(got), len(r.Calls))
			}
			for c, want := range r.Calls {
				calls++
				enc := lcEncode(lv, got[c].Step.History, policytest.CallMessage(tr, c))
				w := string(joinRaw(want))
				switch {
				case w == "[-1]" || w == "[-2]":
					// LangChain JS returns [undefined], or the system
					// message cut; Python keeps the system message whole.
					python++
					if len(got[c].Step.History) != 1 || got[c].Step.History[0].Msg.Role != transcript.RoleSystem {
						t.Errorf("%s, %s, call %d: LangChain JS returns %s; ctxbench should keep the system message alone, as Python does, and sent %v",
							spec, r.Source, c, w, policy.ItemIDs(got[c].Step.History))
					}
				case w == enc:
					same++
				default:
					if t.Failed() && calls > 20 {
						continue // enough said
					}
					t.Errorf("%s, %s, call %d (message %d): trimMessages kept %s, ctxbench %s (sent %v)", spec, r.Source, c, policytest.CallMessage(tr, c), w, enc, policy.ItemIDs(got[c].Step.History))
				}
			}
		}
		t.Logf("%s: %d of %d calls as trimMessages, %d with Python's rule for the system message", spec, same, calls, python)
	}
}

func joinRaw(rs []json.RawMessage) []byte {
	out := []byte{'['}
	for i, r := range rs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, r...)
	}
	return append(out, ']')
}

// lcViews holds the LangChain view of a transcript's messages and, for
// each message, how many units come before it.
type lcViews struct {
	views  [][]lcUnit
	offset []int
}

func newLCViews(tr *transcript.Transcript) *lcViews {
	v := &lcViews{offset: make([]int, len(tr.Messages)+1)}
	for i := range tr.Messages {
		v.views = append(v.views, lcView(&tr.Messages[i]))
		v.offset[i+1] = v.offset[i] + len(v.views[i])
	}
	return v
}

// lcEncode writes what sent keeps of the LangChain view of the messages
// before message end as the golden does: [system, from, cut], from the
// index in the view's flat list of the first message kept whole, and cut
// the code points of the message before it when it is kept cut (-1:
// none); or the list of ids when that does not describe it.
func lcEncode(lv *lcViews, sent []policy.Item, end int) string {
	sys := 0
	rest := sent
	if len(sent) > 0 && sent[0].Index() == 0 && sent[0].Msg.Role == transcript.RoleSystem && !sent[0].Truncated {
		sys, rest = 1, sent[1:]
	}
	var kept []int // flat indices
	cut := -1
	for n, it := range rest {
		i := it.Index()
		orig := lv.views[i]
		v := orig
		if it.Truncated {
			v = lcView(it.Msg)
		}
		if len(v) > len(orig) {
			return fmt.Sprint(policy.ItemIDs(sent))
		}
		for k, u := range v {
			o := len(orig) - len(v) + k
			if u.content != orig[o].content {
				if n != 0 || k != 0 {
					return fmt.Sprint(policy.ItemIDs(sent))
				}
				cut = utf8.RuneCountInString(u.content)
			}
			kept = append(kept, lv.offset[i]+o)
		}
	}
	from := lv.offset[end] - len(kept)
	for k, f := range kept {
		if f != from+k {
			return fmt.Sprint(policy.ItemIDs(sent))
		}
	}
	if cut >= 0 {
		from++
	}
	return fmt.Sprintf("[%d,%d,%d]", sys, from, cut)
}
