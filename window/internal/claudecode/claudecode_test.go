package claudecode

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// Claude Code ships as a bundled cli.js (2.1.39, 2.0.21) that cannot run
// on a replayed history: these tests hold the claude-code policy to the
// code, quoted as it reads there (minified: the names are the bundler's).

// TestClaudeCodeThresholds: 2.1.39
//
//	function a51(A){let q=Math.min(jSA(A),EFY);return yG(A,UP())-q}          // EFY=20000
//	function lg1(A){let q=a51(A),K=q-XSA,Y=process.env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE;  // XSA=13000
//	  if(Y){let z=parseFloat(Y);if(!isNaN(z)&&z>0&&z<=100){let w=Math.floor(q*(z/100));return Math.min(w,K)}}return K}
//	function jSA(A){let q=O21(A),K=Nn1.validate(process.env.CLAUDE_CODE_MAX_OUTPUT_TOKENS);…return Math.min(K.effective,q)}
//	w=Y-kFY  // kFY=20000: isAboveWarningThreshold
//
// 2.0.21
//
//	function sQ1(){let A=j3(),B=Cj0(A);return SO(A)-B}
//	function Cj0(A){if(A.includes("3-5"))return 8192;if(A.includes("haiku"))return 8192;…return B.effective}
//	function Gn6(){let A=sQ1(),B=A-zj0,…}   // zj0=13000
func TestClaudeCodeThresholds(t *testing.T) {
	for _, tc := range []struct {
		version, model, params string
		auto, warn             int
	}{
		{"2.1.39", "claude-opus-4-6", "", 167_000, 147_000},
		{"2.1.39", "claude-sonnet-4-5-20250929", "", 167_000, 147_000},
		{"2.1.39", "claude-3-5-haiku-20241022", "", 200_000 - 8192 - 13_000, 200_000 - 8192 - 33_000},
		{"2.1.39", "claude-opus-4-6", "max_output_tokens=10000", 177_000, 157_000},
		{"2.1.39", "claude-opus-4-6", "autocompact_pct=80", 144_000, 124_000}, // 80% of 180,000
		{"2.1.39", "claude-opus-4-6", "autocompact_pct=95", 167_000, 147_000}, // clamped: 171,000 > 167,000
		{"2.1.39", "claude-opus-4-6", "auto_compact=false", 167_000, 160_000}, // warning from the effective window
		{"2.1.39", "claude-sonnet-4-5[1m]", "", 967_000, 947_000},
		{"2.0.21", "claude-sonnet-4-5-20250929", "", 155_000, 135_000},
		{"2.0.21", "claude-haiku-4-5", "", 200_000 - 8192 - 13_000, 200_000 - 8192 - 33_000},
		{"2.0.21", "claude-opus-4-1", "max_output_tokens=64000", 155_000, 135_000}, // capped at 32,000
	} {
		spec := "claude-code:version=" + tc.version
		if tc.params != "" {
			spec += "," + tc.params
		}
		p := mustPolicy(t, spec).(*claudeCodePolicy)
		auto, warn := p.thresholds(tc.version, tc.model)
		if auto != tc.auto || warn != tc.warn {
			t.Errorf("%s on %s: auto-compact at %d, warning at %d; want %d, %d", spec, tc.model, auto, warn, tc.auto, tc.warn)
		}
	}
}

// usageAt is an assistant message of model that recorded a prompt of n
// tokens and no output.
func usageAt(n int64) transcript.Message {
	m := policytest.Asst("ok")
	m.Model = "claude-opus-4-6"
	m.Usage = &transcript.Usage{CacheRead: n}
	return m
}

// TestClaudeCodeTrigger: the count is the last call's usage plus
// length/4 of what came since (vv), compared with the threshold with ≥
// (qc: _=um()&&A>=K): a turn of 4,000 characters (1,000 tokens) after a
// call that recorded 165,999 tokens counts 166,999 — below 167,000 —
// and after one of 166,000 counts 167,000: it compacts. 2.0.21 counts
// the usage alone (SI).
func TestClaudeCodeTrigger(t *testing.T) {
	turn := policytest.User(strings.Repeat("abcd", 1000))
	for _, tc := range []struct {
		spec  string
		usage int64
		fires bool
	}{
		{"claude-code:version=2.1.39", 165_999, false},
		{"claude-code:version=2.1.39", 166_000, true},
		{"claude-code:version=2.1.39,auto_compact=false", 200_000, false},
		{"claude-code:version=2.0.21", 154_999, false},
		{"claude-code:version=2.0.21", 155_000, true},
	} {
		tr := policytest.Msgs(policytest.User("task"), usageAt(tc.usage), turn, usageAt(1000))
		rec := &policytest.Recorder{}
		calls := policytest.Run(t, mustPolicy(t, tc.spec), tr, rec)
		last := calls[1].Step
		if fired := last.Summary != nil; fired != tc.fires {
			t.Errorf("%s after %d tokens: compacted %v, want %v", tc.spec, tc.usage, fired, tc.fires)
			continue
		}
		if !tc.fires {
			continue
		}
		want := int(tc.usage)
		if strings.Contains(tc.spec, "2.1.39") {
			want += 1000
		}
		if f := last.Fired; f == nil || f.What != "auto-compact" || f.Before != want {
			t.Errorf("%s: fired %+v, want auto-compact counting %d", tc.spec, f, want)
		}
		// The whole conversation is summarized, and sent alone.
		if len(rec.Reqs) != 1 || len(rec.Reqs[0].Messages) != 3 || len(last.History) != 1 {
			t.Fatalf("%s: %d summary requests; history %v", tc.spec, len(rec.Reqs), policy.ItemIDs(last.History))
		}
		s := last.History[0].Msg
		if s.Role != transcript.RoleUser || !strings.HasPrefix(s.Text(), ccSummaryHead+"summary 1 of 3 messages") || !strings.HasSuffix(s.Text(), ccSummaryTail) {
			t.Errorf("%s: the summary message is %q", tc.spec, s.Text())
		}
	}
	// A failed summary leaves the history as it was (MW1 throws; Qs4
	// returns {wasCompacted:!1}).
	tr := policytest.Msgs(policytest.User("task"), usageAt(170_000), turn, usageAt(1000))
	calls := policytest.Run(t, mustPolicy(t, "claude-code:version=2.1.39"), tr, &policytest.Recorder{Fail: true})
	if got := calls[1].Step; len(got.History) != 3 || got.Summary == nil || got.Summary.Error == "" || len(got.Warnings) != 1 {
		t.Errorf("after a failed summary: history %v, warnings %v", policy.ItemIDs(got.History), got.Warnings)
	}
}

// readResult is a call of the Read tool and its result of n tokens
// (4n characters).
func readResult(id string, n int) (transcript.Message, transcript.Message) {
	c := policytest.CallNamed(id, "Read")
	c.Model = "claude-opus-4-6"
	return c, policytest.Result(id, strings.Repeat("abcd", n))
}

// TestClaudeCodeMicrocompact: pm —
//
//	let $=w.slice(-MFY),O=…sum of the results' tokens…,_=0,J=new Set;            // MFY=3
//	for(let G of w){if($.includes(G))continue;if(O-_>z)J.add(G),_+=H.get(G)||0}  // z=jFY=40000
//	if(!Y){let G=PZ(A),…;if(!qc(G,f).isAboveWarningThreshold||_<DFY)J.clear(),_=0} // DFY=20000
//
// Results of 15,000 tokens each, six of them: 90,000 in all. The oldest
// are cleared while what is left weighs more than 40,000: the oldest
// three (45,000), the newest three never, though what is left weighs
// 45,000; the last call recorded 150,000 tokens, above the warning
// threshold (147,000). At 146,999 nothing is cleared; a tool not in the
// list (Task) never is. 2.1.39 sends where it saved the result, 2.0.21
// that it was cleared.
func TestClaudeCodeMicrocompact(t *testing.T) {
	build := func(last int64, tool string) *transcript.Transcript {
		tr := policytest.Msgs(policytest.User("task"))
		for i := range 6 {
			c, r := readResult(string(rune('a'+i)), 15_000)
			c.Blocks[0].Name = tool
			c.Usage = &transcript.Usage{CacheRead: 1000}
			tr.Messages = append(tr.Messages, c, r)
		}
		tr.Messages = append(tr.Messages, usageAt(last), policytest.User("next"), usageAt(1000))
		return tr
	}
	cleared := func(h []policy.Item, placeholder func(string) bool) []string {
		var out []string
		for _, it := range h {
			for _, b := range it.Msg.Blocks {
				if b.Type == transcript.BlockToolResult && placeholder(b.Text) {
					out = append(out, b.ID)
				}
			}
		}
		return out
	}
	saved := func(s string) bool {
		return strings.HasPrefix(s, ccPersistedOpen+"Tool result saved to: ") && strings.HasSuffix(s, ".txt\n\nUse Read to view"+ccPersistedClose)
	}
	old := func(s string) bool { return s == ccCleared }
	for _, tc := range []struct {
		version     string
		last        int64
		tool        string
		placeholder func(string) bool
		want        []string
	}{
		{"2.1.39", 150_000, "Read", saved, []string{"a", "b", "c"}},
		{"2.1.39", 146_999, "Read", saved, nil},
		{"2.1.39", 150_000, "Task", saved, nil},
		{"2.0.21", 135_000, "Bash", old, []string{"a", "b", "c"}},
	} {
		tr := build(tc.last, tc.tool)
		calls := policytest.Run(t, mustPolicy(t, "claude-code:version="+tc.version), tr, &policytest.Recorder{})
		last := calls[len(calls)-1].Step
		if diff := cmp.Diff(tc.want, cleared(last.History, tc.placeholder)); diff != "" {
			t.Errorf("%s, last call %d tokens, tool %s: cleared (-want +got):\n%s", tc.version, tc.last, tc.tool, diff)
		}
		if tc.want != nil && (last.Fired == nil || last.Fired.What != "microcompact" || last.Fired.After != int(tc.last)-45_000) {
			t.Errorf("%s: fired %+v, want microcompact saving 45,000", tc.version, last.Fired)
		}
	}
}

// TestMicrocompactWideTurnLinear: microcompact clearing a turn of
// thousands of results takes time about linear in them (10,000 took
// 7.5 s: each result cleared copied its whole message, and each result
// looked for its call from the newest): eight times the tools, at most
// 24 times the time (best of three; linear is 8, quadratic 64).
func TestMicrocompactWideTurnLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing: make long")
	}
	p := mustPolicy(t, "claude-code:context_window=20000")
	timeOf := func(n int) time.Duration {
		tr := policytest.WideTurn("Read", n)
		for i := range tr.Messages {
			m := &tr.Messages[i]
			if m.Role == transcript.RoleAssistant {
				m.Usage = &transcript.Usage{Input: 100, Output: 1}
			}
			for j := range m.Blocks {
				if m.Blocks[j].Type == transcript.BlockToolResult {
					m.Blocks[j].Text = strings.Repeat("x", 400) // past 40,000 tokens together
				}
			}
		}
		best := time.Duration(math.MaxInt64)
		for range 3 {
			fired := 0
			start := time.Now()
			policytest.Drive(t, p, tr, &policy.Env{Transcript: tr}, func(_, _ int, s policy.Step, _ *policy.State) {
				fired += len(s.Truncated) // microcompact's clears

			})
			best = min(best, time.Since(start))
			if fired == 0 {
				t.Fatalf("%d tools: microcompact cleared nothing", n)
			}
		}
		return best
	}
	small, large := timeOf(1000), timeOf(8000)
	t.Logf("1,000 tools %v, 8,000 tools %v (%.1fx)", small, large, float64(large)/float64(small))
	if large > 24*small {
		t.Errorf("8,000 tools took %v, %.1f times 1,000's %v: want at most 24", large, float64(large)/float64(small), small)
	}
}

// TestClaudeCodeVersionFallback: a recorded version that is not modelled
// replays as the modelled version whose rules it runs (2.0.76 runs
// 2.0.21's auto-compact threshold, 155,000, where it was replayed as
// 2.1.39's, 167,000: one call late). The line between them, read from the
// packages' cli.js: 2.1.20 reserves the model's max output, 2.1.21
// Math.min(maxOutput, 20000).
func TestClaudeCodeVersionFallback(t *testing.T) {
	for _, tc := range []struct{ recorded, want string }{
		{"2.1.39", "2.1.39"}, {"2.0.21", "2.0.21"},
		{"2.0.76", "2.0.21"}, {"2.0.77", "2.0.21"}, {"2.1.0", "2.0.21"}, {"2.1.20", "2.0.21"},
		{"2.1.21", "2.1.39"}, {"2.1.38", "2.1.39"}, {"2.1.50", "2.1.39"}, {"3.0.0", "2.1.39"},
		{"2.1.39-beta.1", "2.1.39"}, {"1.0.128", "2.0.21"}, {"2.0.20", "2.0.21"},
		{"", "2.1.39"}, {"unknown", "2.1.39"}, {"2.1", "2.1.39"},
	} {
		if got := ccModelledFor(tc.recorded); got != tc.want {
			t.Errorf("recorded %q: replayed as %s, want %s", tc.recorded, got, tc.want)
		}
	}
	// A session recorded by 2.0.76 replays as version=2.0.21 does, and
	// apart from 2.1.39 (the generated session crosses both thresholds).
	tr := policytest.Generated(t, 400, 7)
	tr.AgentVersion = "2.0.76"
	// Each call's decision: the ids sent, the clears and what fired.
	steps := func(spec string) []string {
		var out []string
		policytest.Drive(t, mustPolicy(t, spec), tr, &policy.Env{Transcript: tr}, func(_, _ int, s policy.Step, _ *policy.State) {
			var ids []string
			for _, it := range s.History {
				ids = append(ids, it.ID)
			}
			fired := ""
			if s.Fired != nil {
				fired = fmt.Sprintf("%s at %d", s.Fired.What, s.Fired.Before)
			}
			out = append(out, fmt.Sprintf("%s | cut %v | %s", strings.Join(ids, " "), s.Truncated, fired))
		})
		return out
	}
	recorded, old, cur := steps("claude-code"), steps("claude-code:version=2.0.21"), steps("claude-code:version=2.1.39")
	if diff := cmp.Diff(old, recorded); diff != "" {
		t.Errorf("2.0.76 replayed unlike 2.0.21 (-2.0.21 +recorded):\n%.2000s", diff)
	}
	if slices.Equal(old, cur) {
		t.Fatal("the session does not tell 2.0.21 from 2.1.39")
	}
}

// TestClaudeCodeMicrocompactRecorded: from 2.1.19, microcompact returns at
// once while the server-side flag tengu_cache_plum_violet is on
//
//	async function pm(A,q,K){if(xs4(),X6(process.env.DISABLE_MICROCOMPACT)||b8("tengu_cache_plum_violet",!1))return{messages:A};…
//
// and each clearing it makes writes a microcompact_boundary line (ms4).
// By default the policy replays it as the session shows: on a 2.1.39
// session whose billed prompt rises steadily and which holds no such
// line, microcompact is off (the results TestClaudeCodeMicrocompact
// clears stay), and the policy says so; a clearing line, a billed prompt
// 20,000 tokens below the one before, or a version before the flag turns
// it on; microcompact=true and =false are the settings.
func TestClaudeCodeMicrocompactRecorded(t *testing.T) {
	build := func(version string, drop bool, clearings int) *transcript.Transcript {
		tr := policytest.Msgs(policytest.User("task"))
		tr.Format, tr.AgentVersion = transcript.FormatClaudeCode, version
		for i := range 6 {
			c, r := readResult(string(rune('a'+i)), 15_000)
			c.Usage = &transcript.Usage{CacheRead: 100_000 + int64(i)*5_000}
			if drop && i == 3 {
				c.Usage.CacheRead = 90_000 // 20,000 below the call before
			}
			tr.Messages = append(tr.Messages, c, r)
		}
		for range clearings {
			tr.Clearings = append(tr.Clearings, transcript.Clearing{Index: 3, Trigger: "auto"})
		}
		tr.Messages = append(tr.Messages, usageAt(150_000), policytest.User("next"), usageAt(151_000))
		return tr
	}
	for _, tc := range []struct {
		spec, version string
		drop          bool
		clearings     int
		clears, warns bool
	}{
		{"claude-code", "2.1.39", false, 0, false, true},
		{"claude-code", "2.1.19", false, 0, false, true},
		{"claude-code", "2.1.39", false, 1, true, false},
		{"claude-code", "2.1.39", true, 0, true, false},
		{"claude-code", "2.1.18", false, 0, true, false},
		{"claude-code", "", false, 0, true, false},
		{"claude-code:microcompact=true", "2.1.39", false, 0, true, false},
		{"claude-code:microcompact=false", "2.1.39", true, 1, false, false},
	} {
		tr := build(tc.version, tc.drop, tc.clearings)
		calls := policytest.Run(t, mustPolicy(t, tc.spec), tr, &policytest.Recorder{})
		cleared, warned := false, false
		for _, c := range calls {
			if c.Step.Fired != nil && c.Step.Fired.What == "microcompact" {
				cleared = true
			}
			for _, w := range c.Step.Warnings {
				if strings.Contains(w, "microcompact is replayed off") && strings.Contains(w, "tengu_cache_plum_violet") {
					warned = true
				}
			}
		}
		if cleared != tc.clears || warned != tc.warns {
			t.Errorf("%s on %q (billed drop %v, %d clearing lines): cleared %v, warned %v; want %v, %v", tc.spec, tc.version, tc.drop, tc.clearings, cleared, warned, tc.clears, tc.warns)
		}
	}
}

// TestClaudeCodeNewerThanModelled: a session recorded by a Claude Code
// newer than 2.1.39, the newest version read line by line, replays with
// 2.1.39's rules, and the replay says what 2.1.332's package adds that
// the policy leaves out (its constants, read in the binary:
// $Ue=13000, kfo=20000, and "Compacted while idle, before the prompt
// cache expired").
func TestClaudeCodeNewerThanModelled(t *testing.T) {
	for _, tc := range []struct {
		version string
		newer   bool
	}{
		{"2.1.39", false}, {"2.1.38", false}, {"2.0.76", false}, {"", false}, {"unknown", false},
		{"2.1.40", true}, {"2.1.332", true}, {"2.1.332-beta.1", true}, {"3.0.0", true},
	} {
		why := ClaudeCodeNotModelled(tc.version)
		if (why != "") != tc.newer {
			t.Errorf("%q: %q, want newer %v", tc.version, why, tc.newer)
		}
		tr := policytest.Msgs(policytest.User("task"), usageAt(1_000), policytest.User("next"), usageAt(2_000))
		tr.Format, tr.AgentVersion = transcript.FormatClaudeCode, tc.version
		said := false
		for _, c := range policytest.Run(t, mustPolicy(t, "claude-code"), tr, &policytest.Recorder{}) {
			for _, w := range c.Step.Warnings {
				said = said || strings.Contains(w, "idle compaction before a 1-hour cache expires")
			}
		}
		if said != tc.newer {
			t.Errorf("%q: the replay says what is not modelled %v, want %v", tc.version, said, tc.newer)
		}
	}
}
