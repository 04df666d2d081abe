// Package claudecode models Claude Code's context management (its
// cli.js, 2.1.39 and 2.0.21): the claude-code policy's auto-compact and
// microcompact of old tool results.
package claudecode

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/linefit"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// ClaudeCode names the claude-code policy.
//
// Claude Code's own context management, as the published package runs it
// before every API call (@anthropic-ai/claude-code cli.js; the versions
// modelled are 2.1.39, which recorded the corpus's spotter sessions, and
// 2.0.21, which recorded its Agent SDK logs). Each call, in this order:
//
// Microcompact (function pm in 2.1.39, gg in 2.0.21). The results of the
// tools Read, Bash, Grep, Glob, WebSearch, WebFetch, Edit and Write not
// yet cleared are weighed (length/4 rounded, 2,000 per image); all but
// the newest 3 are cleared, oldest first, while the results not cleared
// weigh more than 40,000 tokens — only when the last call's usage
// (input + cache + output) is at or above the warning threshold (the
// auto-compact threshold − 20,000) and the clearing saves at least
// 20,000 tokens. A cleared result stays cleared. 2.1.39 saves the result
// to a file and sends "<persisted-output>Tool result saved to: PATH\n\n
// Use Read to view</persisted-output>" (the file's path is made up here),
// and replaces the images of user messages already answered by
// "[image]"; 2.0.21 sends "[Old tool result content cleared]". From
// 2.1.19 microcompact does nothing while the server-side flag
// tengu_cache_plum_violet is on, which no session records: by default
// (microcompact=recorded) it is replayed on where the session shows a
// clearing (ccMicrocompactRecorded), off where it shows none.
//
// Auto-compact (Qs4/RFY/lg1 in 2.1.39, bXB/Yn6/Gn6 in 2.0.21). The
// threshold is the effective window − 13,000, or, with
// CLAUDE_AUTOCOMPACT_PCT_OVERRIDE (autocompact_pct), that percentage of
// the effective window when lower. The effective window is the context
// window (200,000; 1,000,000 for a "[1m]" model) less the output
// reserve: in 2.1.39 min(max output, 20,000), the max output being
// CLAUDE_CODE_MAX_OUTPUT_TOKENS (default 32,000, at most 64,000) capped
// by the model's (O21: 64,000 for Opus 4.5, Sonnet 4 and Haiku 4, 32,000
// for other Opus 4, 8,192 for 3.5); in 2.0.21 the max output itself
// (8,192 for 3.5 and Haiku models, else CLAUDE_CODE_MAX_OUTPUT_TOKENS,
// default and at most 32,000). The count compared with it is, in 2.1.39
// (vv), the last call's usage plus length/4 of the text, tool results
// and images (2,000) of the messages since; in 2.0.21 (SI), the last
// call's usage alone. At or above it, the whole conversation is
// summarized (MW1) and the next request sends the summary alone, as a
// user message: "This session is being continued from a previous
// conversation that ran out of context. …", the summary, the transcript's
// path, and the request to continue. A failed summary leaves the history
// as it was.
//
// The last call's usage is what the transcript recorded for it while
// the policy and the recorded agent had both sent the whole history so
// far; after that (the policy cleared or compacted, or the recording
// compacted), it is what the policy sent, counted with chars4 and scaled
// by a line fitted on the calls where both were the same (the system
// prompt and tools, and the tokenizer's ratio), plus the call's recorded
// output. When the policy compacts before the call the recording
// compacted before, both send a summary and the same messages from then
// on: the recorded usage counts again, plus the summaries' difference
// (chars4), and the line is fitted anew.
const ClaudeCode = "claude-code"

// claudeCodePolicy is the [ClaudeCode] policy.
type claudeCodePolicy struct {
	policy.Base
	version           string
	window, maxOutput int
	pct               float64
	autoCompact       bool
	microcompact      string
}

// The Claude Code versions modelled, newest first.
var claudeCodeVersions = []string{"2.1.39", "2.0.21"}

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: ClaudeCode, Source: "@anthropic-ai/claude-code cli.js (2.1.39: pm, vv, lg1, Qs4, MW1, ox1; 2.0.21: gg, SI, Gn6, bXB)",
		Models: "@anthropic-ai/claude-code@2.1.39, @2.0.21", Held: "table tests quoting its cli.js, and the compactions the corpus recorded (estimate's self-check)",
		NotModelled: ClaudeCodeNotModelled,
		Summary:     "Claude Code's auto-compact at the effective window − 13,000 (the whole conversation summarized), and its microcompact of old tool results",
		Params: []policy.Param{
			policy.EnumParam("version", "recorded", append([]string{"recorded"}, claudeCodeVersions...), "the Claude Code version modelled; recorded: the rules of the version that recorded it (2.1.21 on: 2.1.39; before: 2.0.21; none: 2.1.39)"),
			policy.IntParam("context_window", 200_000, 1, policy.NoBound, "the model's context window as Claude Code sets it (200,000; 1,000,000 for a [1m] model)"),
			policy.IntParam("max_output_tokens", 32_000, 1, policy.NoBound, "CLAUDE_CODE_MAX_OUTPUT_TOKENS"),
			policy.FloatParam("autocompact_pct", 0, 0, 100, false, "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE (0: unset)"),
			policy.BoolParam("auto_compact", true, "autoCompactEnabled (false: DISABLE_AUTO_COMPACT)"),
			policy.EnumParam("microcompact", "recorded", []string{"recorded", "true", "false"}, "clear old tool results (false: DISABLE_MICROCOMPACT); recorded: on, but off on a 2.1.19+ session that records no clearing (tengu_cache_plum_violet)"),
		},
		Differs: []string{
			"Claude Code cannot be run on a replayed history: the policy is held to table tests quoting the code (window/internal/claudecode/claudecode_test.go) and, on the corpus, to the calls at which the recorded sessions compacted",
			"after the first clearing or compaction, the last call's usage is estimated (chars4 of what was sent, on a line fitted to the recorded usage), not billed; after a compaction before the call the recorded agent compacted before too, it is the billed usage again, plus the summaries' difference (chars4)",
			"the files, todo list and plan Claude Code attaches after a compaction are not replayed (their content is not in the transcript); the summary prompt is summarize.Generic, not Claude Code's",
			"Claude Code counts the attachments it holds in memory (hook results, reminders) with the messages since the last call; a session file keeps the messages, not every attachment, so where Claude Code held more the policy counts less by that much: on the public 2.1.39 sessions outside the corpus, 3,145 tokens (1.8%) under on one and 120 on another, which compacts one call late (replay's TestClaudeCodeSelfCheckUnseen)",
			"session-memory compaction (behind feature flags) is not modelled",
			"Claude Code after 2.1.39 is replayed with 2.1.39's rules. Read in 2.1.332 (its npm package is a native binary; the JavaScript is inside it), the trigger is 2.1.39's — the window less min(max output, 20,000), less 13,000 — but the window is resolved from settings (autoCompactWindow), CLAUDE_CODE_AUTO_COMPACT_WINDOW, client data and server experiments; the messages since the last call are counted at a bytes-per-token of the model; a compaction is put off to the threshold of the model's whole window when \"no prompt since the last summary was under\" what the summary left; the conversation is compacted while idle before a 1-hour prompt cache expires, from max(100,000, CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS or 200,000) tokens (never before the trigger on a 200,000 window); summaries are precomputed from a server-set fraction of the window (0.2 by default); and old tool results are cleared through the API's clear_tool_uses_20250919 after an idle return. None of these is modelled: the settings and experiments in force are not in a session file. The replay warns of it, and so does the self-check",
			"from 2.1.19 microcompact does nothing while the server-side flag tengu_cache_plum_violet is on, which a session does not record: microcompact=recorded replays it on when the session records a clearing (a microcompact_boundary line, or a billed prompt 20,000 tokens below the call's before with no compaction between), off when it records none",
		},
		Build: func(v policy.Values) policy.Policy {
			return &claudeCodePolicy{Base: policy.NewBase(ClaudeCode, v), version: v.String("version"), window: v.Int("context_window"),
				maxOutput: v.Int("max_output_tokens"), pct: v.Float("autocompact_pct"), autoCompact: v.Bool("auto_compact"), microcompact: v.String("microcompact")}
		},
	},
}

const (
	ccCleared        = "[Old tool result content cleared]"
	ccPersistedOpen  = "<persisted-output>"
	ccPersistedClose = "</persisted-output>"
	ccSummaryHead    = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n"
	ccSummaryPath    = "\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: "
	ccSummaryTail    = "\nPlease continue the conversation from where we left off without asking the user any further questions. Continue with the last task that you were asked to work on."
	ccImageTokens    = 2000
	ccKeepRecent     = 3      // MFY / In6
	ccKeepTokens     = 40_000 // jFY / Jn6
	ccMinSaved       = 20_000 // DFY / Wn6
	ccWarningMargin  = 20_000 // kFY / Qn6
	ccAutoMargin     = 13_000 // XSA / zj0
	ccOutputReserve  = 20_000 // EFY (2.1.39)
)

// ccTools are the tools whose results microcompact clears (PFY / Fn6).
var ccTools = map[string]bool{"Read": true, "Bash": true, "Grep": true, "Glob": true, "WebSearch": true, "WebFetch": true, "Edit": true, "Write": true}

// ccState is one replay's state.
type ccState struct {
	version string
	// pending are the ids of the tool uses microcompact may clear, in
	// order, with their results' weight and the history position of the
	// message holding each result (-1: no result yet); weight is their sum.
	pending []ccPending
	weight  int
	// waiting are the tool uses of pending with no result yet, by id:
	// their places in pending counting from the first ever (dropped is
	// how many were taken off its front), newest last.
	waiting map[string][]int
	dropped int
	// scanned is how many items of the history were looked at, and
	// answered how many are answered user messages whose images are
	// cleared.
	scanned, answered int
	// diverged says the policy cleared or compacted: it no longer sends
	// the whole history.
	diverged bool
	// microcompact says microcompact runs.
	microcompact bool
	// last is the last call that recorded usage, as the policy replayed
	// it; sent is the previous call, whose reply (its usage) is known
	// from this call on.
	last *ccCall
	sent *ccCall
	fits linefit.Fits
	// aligned is how many of the recorded compactions the policy made
	// too, before the same call: from the last on, the agent and the
	// policy sent the same history but for the summary, which the
	// policy's counts summaryDelta tokens (chars4) more.
	aligned      int
	summaryDelta int
}

type ccPending struct {
	id          string
	tokens, pos int
}

// ccCall is a call as the policy replayed it: its assistant message,
// what the policy sent (chars4), whether that was what the recorded
// agent sent, and the summary's excess then (see ccState.aligned).
type ccCall struct {
	msg, sentEst, summaryDelta int
	faithful                   bool
}

// ccNewestRead is the newest version whose rules the policy was held
// to, line by line.
var ccNewestRead = [3]int{2, 1, 39}

// ClaudeCodeNotModelled says what the claude-code policy leaves out of
// the rules of the Claude Code version given, when that version is newer
// than the versions it models ("" otherwise). 2.1.332, read from its
// package (a native binary, the JavaScript inside it), keeps 2.1.39's
// trigger (the window less min(max output, 20,000), less 13,000; $Ue,
// kfo, QG, gse) and adds rules that turn on settings, server
// experiments and time the session file does not record.
func ClaudeCodeNotModelled(version string) string {
	v, ok := semver(version)
	if !ok || slices.Compare(v[:], ccNewestRead[:]) <= 0 {
		return ""
	}
	return "Claude Code after 2.1.39 is replayed with 2.1.39's rules; read in 2.1.332, the versions since add the window from settings and server experiments, idle compaction before a 1-hour cache expires, precomputed summaries and tool-result clearing after an idle return, none modelled"
}

// ccModelledFor returns the modelled version that replays a transcript
// Claude Code version recorded: the one whose rules that version runs
// (ccVersionLines); with no version, or one that does not read as
// major.minor.patch, the newest.
func ccModelledFor(recorded string) string {
	v, ok := semver(recorded)
	if !ok {
		return claudeCodeVersions[0]
	}
	for _, l := range ccVersionLines {
		if slices.Compare(v[:], l.from[:]) >= 0 {
			return l.modelled
		}
	}
	return claudeCodeVersions[len(claudeCodeVersions)-1]
}

// ccVersionLines are the versions each modelled version replays, newest
// first: from a version on, until the next line's. The line is where the
// auto-compact threshold's output reserve changed, read from the
// packages' cli.js: up to 2.1.20 the reserve is the model's max output
// (2.0.21's rule: 155,000 on a 200,000 window); from 2.1.21 it is at most
// 20,000 (Math.min(maxOutput, 20000), 2.1.39's rule: 167,000). Checked
// in 2.0.21, 2.0.76, 2.0.77, 2.1.0, 2.1.20 and 2.1.21, 2.1.23, 2.1.29,
// 2.1.33, 2.1.38, 2.1.39; the versions' other rules are taken to be their
// line's.
var ccVersionLines = []struct {
	from     [3]int
	modelled string
}{
	{[3]int{2, 1, 21}, "2.1.39"},
	{[3]int{0, 0, 0}, "2.0.21"},
}

// ccPlumVioletFrom is the first version whose microcompact returns at
// once while the server-side flag tengu_cache_plum_violet is on (read
// from the packages' cli.js: absent in 2.1.18, present in 2.1.19 on);
// from 2.1.8 on, each clearing writes a microcompact_boundary line.
var ccPlumVioletFrom = [3]int{2, 1, 19}

// ccMicrocompactRecorded reports whether the Claude Code that recorded t
// ran microcompact, as far as t shows, and if not why. Versions before
// the server flag always ran it, and so is taken a transcript no Claude
// Code version recorded. From the flag on, t shows it ran when it
// records a clearing: a microcompact_boundary line, or, where the lines
// are not kept (the Agent SDK's stream-json passes none on), a call
// whose billed prompt is at least 20,000 tokens (the least a clearing
// saves) below the call's before on its model, with no compaction
// between. A session that records none either ran with the flag on or
// never cleared; off replays both as recorded.
func ccMicrocompactRecorded(t *transcript.Transcript) (bool, string) {
	v, ok := semver(t.AgentVersion)
	if t.Format != transcript.FormatClaudeCode || !ok || slices.Compare(v[:], ccPlumVioletFrom[:]) < 0 || len(t.Clearings) > 0 {
		return true, ""
	}
	prev := map[string]int64{}
	next := 0 // the next compaction
	for i := range t.Messages {
		for next < len(t.Compactions) && t.Compactions[next].Index <= i {
			clear(prev)
			next++
		}
		m := &t.Messages[i]
		if m.Role != transcript.RoleAssistant || m.Usage == nil || m.Model == "<synthetic>" || m.Usage.Prompt() == 0 {
			continue
		}
		p := m.Usage.Prompt()
		if q, ok := prev[m.Model]; ok && p <= q-ccMinSaved {
			return true, ""
		}
		prev[m.Model] = p
	}
	return false, fmt.Sprintf("Claude Code %s skips it while the server flag tengu_cache_plum_violet is on, and this session records no clearing (no microcompact_boundary line, no billed prompt 20,000 tokens below the one before)", t.AgentVersion)
}

// semver reads "major.minor.patch" (a suffix after the patch, as in
// "2.1.39-beta", is left out).
func semver(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return v, false
	}
	parts[2], _, _ = strings.Cut(parts[2], "-")
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func (p *claudeCodePolicy) state(env *policy.Env, st *policy.State, step *policy.Step) *ccState {
	if cs, ok := st.Data.(*ccState); ok {
		return cs
	}
	cs := &ccState{version: p.version, fits: linefit.Fits{}}
	if cs.version == "recorded" {
		v := env.Transcript.AgentVersion
		cs.version = ccModelledFor(v)
		// Said once per session file, of Claude Code's own transcripts:
		// another agent's records no Claude Code version to match.
		t := env.Transcript
		if v != cs.version && t.Format == transcript.FormatClaudeCode && t.Parent == "" {
			if v == "" {
				v = "no version"
			}
			if why := ClaudeCodeNotModelled(v); why != "" {
				policy.Warnf(step, "the transcript records %s: %s", v, why)
			} else {
				policy.Warnf(step, "the transcript records %s: Claude Code is replayed as %s", v, cs.version)
			}
		}
	}
	switch p.microcompact {
	case "recorded":
		var why string
		cs.microcompact, why = ccMicrocompactRecorded(env.Transcript)
		if !cs.microcompact {
			policy.Warnf(step, "microcompact is replayed off: %s", why)
		}
	default:
		cs.microcompact = p.microcompact == "true"
	}
	st.Data = cs
	return cs
}

// thresholds returns the auto-compact threshold and microcompact's
// warning threshold for model.
func (p *claudeCodePolicy) thresholds(version, model string) (auto, warn int) {
	window := p.window
	if strings.Contains(model, "[1m]") {
		window = 1_000_000
	}
	var effective int
	if version == "2.0.21" {
		out := min(p.maxOutput, 32_000)
		if strings.Contains(model, "3-5") || strings.Contains(model, "haiku") {
			out = 8192
		}
		effective = window - out
	} else {
		effective = window - min(min(min(p.maxOutput, 64_000), ccModelOutput(model)), ccOutputReserve)
	}
	auto = effective - ccAutoMargin
	if p.pct > 0 {
		auto = min(int(math.Floor(float64(effective)*p.pct/100)), auto)
	}
	base := effective
	if p.autoCompact {
		base = auto
	}
	return auto, base - ccWarningMargin
}

// ccModelOutput is Claude Code 2.1.39's output limit of a model (O21).
func ccModelOutput(model string) int {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "3-5"):
		return 8192
	case strings.Contains(m, "claude-3-opus"):
		return 4096
	case strings.Contains(m, "claude-3-sonnet"):
		return 8192
	case strings.Contains(m, "claude-3-haiku"):
		return 4096
	case strings.Contains(m, "opus-4-5"):
		return 64_000
	case strings.Contains(m, "opus-4"):
		return 32_000
	case strings.Contains(m, "sonnet-4"), strings.Contains(m, "haiku-4"):
		return 64_000
	}
	return 32_000
}

func (p *claudeCodePolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	cs := p.state(env, st, &step)
	cs.record(env)
	model := policy.CallModel(env)
	auto, warn := p.thresholds(cs.version, model)
	last := cs.usage(env)
	if cs.microcompact {
		p.microcompactStep(env, cs, &step, last, warn)
	}
	count := last
	if cs.version != "2.0.21" {
		count += ccTokens(step.History[cs.after(env, step.History):])
	}
	if p.autoCompact && count >= auto && len(step.History) > 0 {
		if err := p.compact(ctx, env, st, cs, &step, count, auto); err != nil {
			return policy.Step{}, err
		}
	}
	cs.remember(env, st, step.History)
	return step, nil
}

// usage returns Claude Code's "last call's usage" (PZ): input, cache and
// output tokens of the newest call that recorded usage, as replayed.
func (cs *ccState) usage(env *policy.Env) int {
	c := cs.last
	if c == nil {
		return 0
	}
	u := env.Transcript.Messages[c.msg].Usage
	if c.faithful {
		return int(u.Prompt()+u.Output) + cs.summaryDelta
	}
	return cs.fits.Of(env.Transcript.Messages[c.msg].Model).At(c.sentEst) + int(u.Output)
}

// after returns the position in hist after the newest call's message
// that usage counts (0: none).
func (cs *ccState) after(env *policy.Env, hist []policy.Item) int {
	if cs.last == nil {
		return 0
	}
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Index() == cs.last.msg {
			return i + 1
		}
	}
	return 0
}

// remember keeps what the call sent, for its reply to be recorded at the
// next call.
func (cs *ccState) remember(env *policy.Env, st *policy.State, sent []policy.Item) {
	c := &ccCall{msg: env.Next, sentEst: st.HistoryTokens(env, policy.Chars4(), sent), faithful: !cs.diverged,
		summaryDelta: cs.summaryDelta}
	for _, k := range env.Transcript.Compactions[cs.aligned:] {
		if k.Index <= env.Next {
			c.faithful = false // the recorded agent sent its summary, the policy not
		}
	}
	cs.sent = c
}

// record takes the previous call's reply, known now, as the last call
// with usage when it has some, and fits the line on it when the policy
// and the recorded agent both sent the whole history.
func (cs *ccState) record(env *policy.Env) {
	c := cs.sent
	if c == nil || c.msg >= len(env.Transcript.Messages) {
		return
	}
	cs.sent = nil
	m := &env.Transcript.Messages[c.msg]
	if m.Role != transcript.RoleAssistant || m.Usage == nil || m.Model == "<synthetic>" {
		return
	}
	if c.faithful && m.Usage.Prompt() > 0 {
		cs.fits.Of(m.Model).Add(c.sentEst, int(m.Usage.Prompt())+c.summaryDelta)
	}
	cs.last = c
}

// scan takes the results and tool uses appended to h since the last
// call.
func (cs *ccState) scan(h []policy.Item) {
	if cs.scanned > len(h) {
		cs.scanned = 0 // the history was replaced
	}
	for pos := cs.scanned; pos < len(h); pos++ {
		for _, b := range h[pos].Msg.Blocks {
			switch {
			case b.Type == transcript.BlockToolUse && ccTools[b.Name]:
				if cs.waiting == nil {
					cs.waiting = map[string][]int{}
				}
				cs.waiting[b.ID] = append(cs.waiting[b.ID], cs.dropped+len(cs.pending))
				cs.pending = append(cs.pending, ccPending{id: b.ID, pos: -1})
			case b.Type == transcript.BlockToolResult:
				if k, ok := cs.answer(b.ID); ok {
					cs.pending[k].tokens, cs.pending[k].pos = ccResultTokens(b), pos
					cs.weight += cs.pending[k].tokens
				}
			}
		}
	}
	cs.scanned = len(h)
}

// clearResults replaces in out the results of the oldest n pending tool
// uses by microcompact's placeholder, each message copied once, and
// returns the ids of the messages cut.
func (cs *ccState) clearResults(env *policy.Env, out []policy.Item, n int) []string {
	clear := map[int]map[string]bool{}
	var order []int
	for _, pd := range cs.pending[:n] {
		if pd.pos < 0 {
			cs.unwait(pd.id)
			continue
		}
		if clear[pd.pos] == nil {
			clear[pd.pos] = map[string]bool{}
			order = append(order, pd.pos)
		}
		clear[pd.pos][pd.id] = true
	}
	var cut []string
	for _, pos := range order {
		it := out[pos]
		c := *it.Msg
		c.Blocks = append([]transcript.Block(nil), c.Blocks...)
		for j, b := range c.Blocks {
			if b.Type == transcript.BlockToolResult && clear[pos][b.ID] {
				c.Blocks[j] = transcript.Block{Type: transcript.BlockToolResult, ID: b.ID, IsError: b.IsError, Text: ccPlaceholder(cs.version, env, b)}
			}
		}
		if len(cut) == 0 || cut[len(cut)-1] != it.ID {
			cut = append(cut, it.ID)
		}
		out[pos] = policy.Truncated(it, &c, it.Summary)
	}
	return cut
}

// microcompactStep clears old tool results as microcompact does.
func (p *claudeCodePolicy) microcompactStep(env *policy.Env, cs *ccState, step *policy.Step, last, warn int) {
	h := step.History
	cs.scan(h)
	var out []policy.Item
	if cs.version != "2.0.21" {
		out = cs.clearImages(h, step)
	}
	// The oldest, all but the newest 3, while the rest weighs more than
	// 40,000 tokens.
	n, saved := 0, 0
	for n < len(cs.pending)-ccKeepRecent && cs.weight-saved > ccKeepTokens {
		saved += cs.pending[n].tokens
		n++
	}
	if n > 0 && last >= warn && saved >= ccMinSaved {
		if out == nil {
			out = append([]policy.Item(nil), h...)
		}
		step.Truncated = append(step.Truncated, cs.clearResults(env, out, n)...)
		cs.pending = cs.pending[n:]
		cs.dropped += n
		cs.weight -= saved
		cs.diverged = true
		step.Fired = &policy.Firing{What: "microcompact", Unit: "tokens", Trigger: warn, Before: last, After: last - saved}
	}
	if out != nil {
		step.History = out
	}
}

// answer finds the newest tool use of pending waiting for the result to
// id: its index in pending, taken off the waiting.
func (cs *ccState) answer(id string) (int, bool) {
	w := cs.waiting[id]
	for len(w) > 0 && w[len(w)-1] < cs.dropped {
		w = w[:len(w)-1] // taken off pending unanswered
	}
	if len(w) == 0 {
		delete(cs.waiting, id)
		return 0, false
	}
	k := w[len(w)-1] - cs.dropped
	if w = w[:len(w)-1]; len(w) == 0 {
		delete(cs.waiting, id)
	} else {
		cs.waiting[id] = w
	}
	return k, true
}

// unwait forgets the oldest waiting tool use of id, taken off pending
// unanswered.
func (cs *ccState) unwait(id string) {
	if w := cs.waiting[id]; len(w) <= 1 {
		delete(cs.waiting, id)
	} else {
		cs.waiting[id] = w[1:]
	}
}

// clearImages returns h with the images of the user messages answered
// since the last call replaced by "[image]" (2.1.39), or nil when there
// are none.
func (cs *ccState) clearImages(h []policy.Item, step *policy.Step) []policy.Item {
	last := -1 // the newest assistant message
	for i := len(h) - 1; i >= cs.answered; i-- {
		if h[i].Msg.Role == transcript.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	var out []policy.Item
	for i := cs.answered; i < last; i++ {
		it := h[i]
		if it.Msg.Role != transcript.RoleUser || !policy.Has(it, transcript.BlockImage) {
			continue
		}
		if out == nil {
			out = append([]policy.Item(nil), h...)
		}
		c := *it.Msg
		c.Blocks = append([]transcript.Block(nil), c.Blocks...)
		for j, b := range c.Blocks {
			if b.Type == transcript.BlockImage {
				c.Blocks[j] = transcript.Block{Type: transcript.BlockText, Text: "[image]"}
			}
		}
		out[i] = policy.Truncated(it, &c, false)
		step.Truncated = append(step.Truncated, it.ID)
	}
	cs.answered = last + 1
	return out
}

// ccPlaceholder is what a cleared result sends: in 2.1.39 the note of
// where it was saved, unless it holds more than text (then, as in
// 2.0.21, that it was cleared).
func ccPlaceholder(version string, env *policy.Env, b transcript.Block) string {
	if version == "2.0.21" || len(b.Raw) > 0 {
		return ccCleared
	}
	return ccPersistedOpen + "Tool result saved to: /home/USER/.claude/projects/PROJECT/" + env.Transcript.ID + "/tool-results/" + b.ID + ".txt\n\nUse Read to view" + ccPersistedClose
}

// compact summarizes the whole history into one user message.
func (p *claudeCodePolicy) compact(ctx context.Context, env *policy.Env, st *policy.State, cs *ccState, step *policy.Step, count, auto int) error {
	h := step.History
	fired := &policy.Firing{What: "auto-compact", Unit: "tokens", Trigger: auto, Before: count, After: count}
	step.Fired = fired
	text, ok, err := policy.SummarizeOrKeep(ctx, env, step, "auto-compact", h, "", summarize.Generic)
	if err != nil || !ok {
		return err
	}
	ev := step.Summary
	msg := ccSummaryHead + text + ccSummaryPath + "/home/USER/.claude/projects/PROJECT/" + env.Transcript.ID + ".jsonl" + ccSummaryTail
	s := st.NewItem(transcript.RoleUser, msg, true)
	ev.ID = s.ID
	step.Evicted = append(step.Evicted, policy.EvictedFrom(h, nil)...)
	step.History = []policy.Item{s}
	cs.pending, cs.weight, cs.scanned, cs.answered, cs.diverged = nil, 0, 1, 0, true
	cs.waiting, cs.dropped = nil, 0
	fired.After = cs.fits.Of(policy.CallModel(env)).At(policy.Count4(env, s))
	cs.align(env, s)
	return nil
}

// align notes a compaction the recorded agent made before the same call
// as the policy (no call between the two): from then on both send a
// summary and the same messages, the recorded usage counts what the
// policy sends but for the summaries' difference, and the line fitted
// before (which held what the compaction removed, such as an initial
// prompt a stream-json log does not record) is fitted anew.
func (cs *ccState) align(env *policy.Env, summary policy.Item) {
	t := env.Transcript
	for k := cs.aligned; k < len(t.Compactions); k++ {
		rc := t.Compactions[k]
		if rc.Index > env.Next {
			return
		}
		if slices.ContainsFunc(t.Messages[rc.Index:env.Next], func(m transcript.Message) bool { return m.Role == transcript.RoleAssistant }) {
			continue // the agent compacted before an earlier call
		}
		// Where the recording does not hold its summary, the two are taken
		// to be as long.
		cs.aligned, cs.diverged, cs.fits, cs.summaryDelta = k+1, false, linefit.Fits{}, 0
		if rc.Summary != nil {
			cs.summaryDelta = policy.Count4(env, summary) - policy.Chars4().CountMessage(rc.Summary)
		}
		return
	}
}

// ccTokens is Claude Code's estimate of messages (hOA): length/4,
// rounded, of each text and tool result, 2,000 per image; tool calls and
// thinking count nothing.
func ccTokens(items []policy.Item) int {
	n := 0
	for _, it := range items {
		for _, b := range it.Msg.Blocks {
			switch b.Type {
			case transcript.BlockText:
				n += ccRound4(b.Text)
			case transcript.BlockImage:
				n += ccImageTokens
			case transcript.BlockToolResult:
				n += ccResultTokens(b)
			}
		}
	}
	return n
}

// ccResultTokens weighs a tool result as Claude Code does (Bs4): its text
// length/4, rounded, and 2,000 per image.
func ccResultTokens(b transcript.Block) int {
	return ccRound4(b.Text) + ccImageTokens*strings.Count(string(b.Raw), `"type":"image"`)
}

func ccRound4(s string) int { return int(math.Round(float64(jsstring.Len(s)) / 4)) }

// Guarantees: clearing keeps every call with its result, and a
// compaction sends the summary alone, as a user message. It promises no
// shrinking: Claude Code's count holds the system prompt and tools, and
// a small window can summarize a history shorter than its summary.
func (p *claudeCodePolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{PairSafe: true, SummaryRole: transcript.RoleUser, SummaryFirst: true}
}
