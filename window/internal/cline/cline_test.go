package cline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestClineConformance: at every call of every history, under every
// setting, cline sends what @cline/core's prepare-turn callback (strategy
// basic, in the session's compaction state) returns: the same messages,
// each block the transcript's or the same new text
// (scripts/conformance/cline.mjs says how a call is written).
func TestClineConformance(t *testing.T) {
	var g struct {
		Version  string `json:"@cline/core"`
		Settings []struct {
			ContextWindow  int `json:"contextWindow"`
			MaxInputTokens int `json:"maxInputTokens"`
			MaxTokens      int `json:"maxTokens"`
		} `json:"settings"`
		Results [][]policytest.HashedRun `json:"results"`
	}
	policytest.ReadGolden(t, "cline.json", &g)
	if g.Version != clineCoreVersion {
		t.Errorf("the golden is of @cline/core@%s; the policy says it follows %s", g.Version, clineCoreVersion)
	}
	for k, s := range g.Settings {
		spec := fmt.Sprintf("cline:context_window=%d,max_input_tokens=%d,max_tokens=%d", s.ContextWindow, s.MaxInputTokens, s.MaxTokens)
		p := mustPolicy(t, spec)
		calls, same := 0, 0
		for _, r := range g.Results[k] {
			tr := policytest.ConformanceSource(t, r.Source)
			enc := newClineEncoder(tr)
			var got []string
			// An item checked once is not checked again: its check reads
			// only values that do not change (a jsValue, a message's
			// blocks), named by the key.
			type itemKey struct {
				v         *jsValue
				msg       *transcript.Message
				id        string
				truncated bool
				src       int
			}
			checked := map[itemKey]bool{}
			policytest.Drive(t, p, tr, &policy.Env{Transcript: tr, Count: policytest.CacheCount()}, func(_, _ int, step policy.Step, st *policy.State) {
				cs := st.Data.(*clineState)
				sent := cs.sent
				if sent == nil { // the history given, sent as it was
					sent = cs.projection()
				}
				// What the step sends is that projection: the same
				// messages, whole where the encoding says so.
				items := step.History[cs.lead:]
				if len(items) != len(sent) {
					t.Fatalf("%s, %s: the step sends %d messages, the projection holds %d", spec, r.Source, len(items), len(sent))
				}
				for k, it := range items {
					key := itemKey{sent[k].v, it.Msg, it.ID, it.Truncated, sent[k].src}
					if checked[key] {
						continue
					}
					checked[key] = true
					whole := string(jsJSON(sent[k].v.field("content"))) == string(jsJSON(clineMessage(tr, sent[k].src).v.field("content")))
					if it.ID != sent[k].v.str("id") || it.Truncated == whole {
						t.Fatalf("%s, %s: item %d is %s (truncated %v), the projection's %s (whole %v)", spec, r.Source, k, it.ID, it.Truncated, sent[k].v.str("id"), whole)
					}
					if c, err := parseJS(transcript.ContentJSON(it.Msg.Blocks)); err != nil || !c.equal(sent[k].v.field("content")) {
						t.Fatalf("%s, %s: item %s holds %s, Cline sends %s", spec, r.Source, it.ID, transcript.ContentJSON(it.Msg.Blocks), jsJSON(sent[k].v.field("content")))
					}
				}
				got = append(got, strings.Join(enc.encode(sent), ","))
			})
			if len(got) != len(r.Calls) {
				t.Fatalf("%s: %d calls, the golden has %d", r.Source, len(got), len(r.Calls))
			}
			for c, want := range r.Calls {
				calls++
				if policytest.SHA256Hex(got[c])[:16] == want.SHA256 {
					same++
				} else if !t.Failed() || calls < 20 {
					entries := strings.Split(got[c], ",")
					t.Errorf("%s, %s, call %d: Cline sent %d entries ending %v, ctxbench %d ending %v",
						spec, r.Source, c, want.Entries, want.Tail, len(entries), entries[max(0, len(entries)-3):])
				}
			}
		}
		t.Logf("%s: %d of %d calls as @cline/core", spec, same, calls)
	}
}

// clineEncoder writes a call as cline.mjs does.
type clineEncoder struct {
	whole  map[string]int    // JSON of role and content → the first message holding them
	blocks map[string]string // JSON of a block → "m<j>.<k>", its first place
}

func newClineEncoder(tr *transcript.Transcript) *clineEncoder {
	e := &clineEncoder{whole: map[string]int{}, blocks: map[string]string{}}
	lead := 0
	for lead < len(tr.Messages) && tr.Messages[lead].Role == transcript.RoleSystem {
		lead++
	}
	for i := lead; i < len(tr.Messages); i++ {
		m := clineMessage(tr, i)
		key := m.role() + "\x00" + string(jsJSON(m.v.field("content")))
		if _, ok := e.whole[key]; !ok {
			e.whole[key] = i
		}
		for k, b := range m.content() {
			if bk := string(jsJSON(b)); e.blocks[bk] == "" {
				e.blocks[bk] = fmt.Sprintf("m%d.%d", i, k)
			}
		}
	}
	return e
}

func (e *clineEncoder) encode(sent []clineMsg) []string {
	var ids []string
	for _, m := range sent {
		id := m.v.str("id")
		if i, ok := e.whole[m.role()+"\x00"+string(jsJSON(m.v.field("content")))]; ok && id == msgid.Of(i) {
			ids = append(ids, id)
			continue
		}
		var parts []string
		for _, b := range m.content() {
			switch orig := e.blocks[string(jsJSON(b))]; {
			case orig != "":
				parts = append(parts, orig)
			case b.str("type") == "text":
				parts = append(parts, "t:"+sha8(b.str("text")))
			case b.str("type") == "tool_result":
				c := b.field("content")
				text := string(jsJSON(c))
				if c != nil && c.kind == 's' {
					text = c.s
				}
				parts = append(parts, "r:"+sha8(text))
			default:
				parts = append(parts, "x:"+b.str("type"))
			}
		}
		ids = append(ids, id+"{"+strings.Join(parts, ",")+"}")
	}
	return policytest.EncodeRuns(ids)
}

func sha8(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}
