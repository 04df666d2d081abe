// Package gemini models Gemini CLI's chat compression
// (chatCompressionService.ts, @google/gemini-cli-core): the gemini-cli
// policy, on the history Gemini CLI holds (view.go).
package gemini

import (
	"context"
	"errors"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/jsstr"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// GeminiCLI names the gemini-cli policy.
//
// gemini-cli's chat compression, as @google/gemini-cli-core 0.61.0 runs
// it (dist/src/context/chatCompressionService.js, core/geminiChat.js,
// core/client.js tryCompressChat, utils/tokenCalculation.js,
// utils/fileUtils.js). window/testdata/conformance/gemini.json holds what
// the real code does on the corpus (make conformance).
//
// The history Gemini CLI holds (view.go): system messages are its
// system instruction, not history; each message is a content — user:
// text and functionResponse {id, name, response: {output}} parts; model:
// thought, text and functionCall parts — and the history sent strips
// thoughts (the first functionCall of a model content that had one gets
// the synthetic thoughtSignature), drops the contents left with no part
// (a model turn of nothing but thoughts, which an interrupted call
// leaves), and coalesces consecutive contents of one role.
//
// Before each call, with the history up to the previous response:
//
//   - Trigger: the last prompt's tokens reach threshold (0.5) × the
//     model's token limit. Gemini CLI takes the count from the API's
//     usage; the replay counts the contents sent at the previous call as
//     estimateTokenCountSync does (per UTF-16 unit 0.25 token ASCII, 1.5
//     other; a text over 100,000 units length/4; a function response
//     (name + JSON of its response)/4; a function call its JSON/4;
//     floored over the whole list). The first call never compresses.
//   - Function-response budget: newest first, a response past 50,000
//     tokens is saved to a file and replaced by its first 8,000 and last
//     32,000 characters under a header naming the file.
//   - Split (findCompressSplitPoint, fraction 1 − 0.3) of the truncated
//     contents: the first user content that is not a function response
//     at or after 70% of the contents' JSON characters; failing that,
//     everything when the last content is a model content without a
//     function call, else the last such user content. Nothing before it:
//     no compression.
//   - Summary, then the verification ("probe") call; the probe's answer
//     replaces the summary when it is not empty.
//   - New history: [user: the summary, model: "Got it. Thanks for the
//     additional context!", …the rest, truncated]. If it counts more
//     tokens than the last prompt it is discarded, and from then on
//     (hasFailedCompressionAttempt) Gemini CLI only truncates function
//     responses to the budget, when that lowers the count.
const GeminiCLI = "gemini-cli"

// geminiPolicy is the [GeminiCLI] policy.
type geminiPolicy struct {
	policy.Base
	limit           int
	threshold, keep float64
}

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: GeminiCLI, Source: "google-gemini/gemini-cli packages/core/src/context/chatCompressionService.ts",
		Models: "@google/gemini-cli-core@0.61.0", Held: policy.HeldConformance,
		Summary: "at 50% of the model's window, summarize all but the newest 30% (by characters) of the history Gemini CLI holds, splitting before a user message, then verify the summary; summary as a user message + model acknowledgement",
		Params: []policy.Param{
			policy.IntParam("token_limit", 0, 0, policy.NoBound, "the model's token limit; 0: the transcript model's window, else 1,048,576 (tokenLimits.ts's default)"),
			policy.FloatParam("threshold", 0.5, 0, 1, true, "compress at this share of the limit (0.7→0.2→0.7→0.5 in Oct–Nov 2025)"),
			policy.FloatParam("preserve", 0.3, 0, 1, true, "COMPRESSION_PRESERVE_THRESHOLD: share of history kept, by characters"),
		},
		Differs: []string{
			"the last prompt's tokens are estimateTokenCountSync of the contents sent at the previous call, not the API's count: the transcript holds neither the system instruction nor the tool declarations",
			"the environment context Gemini CLI prepends to a new chat is not in replayed transcripts, and is left out of the inflation check",
			"a summarizer error stops further attempts, as an inflated compression does; Gemini CLI fails the turn",
		},
		Check: func(v policy.Values) error {
			if v.Float("preserve") >= 1 {
				return errors.New("preserve must be below 1: findCompressSplitPoint needs a fraction in (0, 1)")
			}
			return nil
		},
		Build: func(v policy.Values) policy.Policy {
			return &geminiPolicy{Base: policy.NewBase(GeminiCLI, v), limit: v.Int("token_limit"), threshold: v.Float("threshold"), keep: v.Float("preserve")}
		},
	},
}

const (
	geminiAck = "Got it. Thanks for the additional context!"
	// geminiDefaultLimit is tokenLimits.ts's DEFAULT_TOKEN_LIMIT, the
	// limit of a model it does not know.
	geminiDefaultLimit = 1_048_576
	// geminiResponseBudget is COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET.
	geminiResponseBudget = 50_000
	// geminiTruncateChars is Config.getTruncateToolOutputThreshold while
	// the window is far from full (DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD).
	geminiTruncateChars = 40_000
	// geminiTempDir is where the replay says truncated outputs were saved
	// (Gemini CLI: the project's temporary directory).
	geminiTempDir = "/tmp/ctxbench-gemini-cli"
	// geminiProbe is the verification prompt.
	geminiProbe = "Critically evaluate the <state_snapshot> you just generated. Did you omit any specific technical details, file paths, tool results, or user constraints mentioned in the history? If anything is missing or could be more precise, generate a FINAL, improved <state_snapshot>. Otherwise, repeat the exact same <state_snapshot> again."
)

// geminiStatus is what one call's compression did (CompressionStatus).
type geminiStatus int

const (
	geminiCompressed geminiStatus = 1
	geminiInflated   geminiStatus = 2
	geminiEmpty      geminiStatus = 4
	geminiNoop       geminiStatus = 5
	geminiTruncated  geminiStatus = 6
)

type geminiState struct {
	failed bool
	// lastPrompt is the tokens of the contents sent at the previous call.
	lastPrompt int
	// truncations numbers the saved outputs
	// (getNextCompressionTruncationId).
	truncations int
	// status is the last call's, for the tests.
	status geminiStatus
}

func (p *geminiPolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	gs, _ := st.Data.(*geminiState)
	if gs == nil {
		gs = &geminiState{}
		st.Data = gs
	}
	step, status, err := p.compress(ctx, env, st, gs, hist)
	if err != nil {
		return policy.Step{}, err
	}
	gs.status = status
	gs.lastPrompt = st.HistoryTokens(env, gemTokens{policy.TranscriptOf(env)}, step.History) / 4
	return step, nil
}

func (p *geminiPolicy) compress(ctx context.Context, env *policy.Env, st *policy.State, gs *geminiState, hist []policy.Item) (policy.Step, geminiStatus, error) {
	step := policy.Step{History: hist}
	before := gs.lastPrompt
	limit := env.Window(p.limit, geminiDefaultLimit)
	if before == 0 || float64(before) < p.threshold*float64(limit) {
		return step, geminiNoop, nil
	}
	held, turn := hist[:len(hist)-env.Turn], hist[len(hist)-env.Turn:]
	var system, rest []policy.Item
	for _, it := range held {
		if it.Msg.Role == transcript.RoleSystem {
			system = append(system, it)
		} else {
			rest = append(rest, it)
		}
	}
	if len(rest) == 0 {
		return step, geminiNoop, nil
	}
	step.Fired = &policy.Firing{What: "compression", Unit: "tokens", Trigger: int(math.Ceil(p.threshold * float64(limit))), Before: before, After: before}
	names := policy.ToolNames(policy.TranscriptOf(env))
	curated := gemContents(rest, names)
	truncated := gs.truncateToBudget(curated)
	if gs.failed {
		// After a failed compression Gemini CLI only truncates, when that
		// lowers the count.
		if gemTokensOf(truncated) >= before {
			step.Fired = nil // nothing to do
			return step, geminiNoop, nil
		}
		kept, cut := gemItems(truncated)
		step.History = append(append(append([]policy.Item{}, system...), kept...), turn...)
		step.Truncated, step.Evicted = cut, policy.EvictedFrom(hist, step.History)
		step.Fired.What, step.Fired.After = "truncation", gemTokensOf(truncated)
		return step, geminiTruncated, nil
	}
	split := geminiSplitPoint(truncated, 1-p.keep)
	if split == 0 {
		step.Fired = nil // nothing to do
		return step, geminiNoop, nil
	}
	// The summarizer reads the original contents unless they exceed the
	// token limit.
	toSummarize, _ := gemItems(curated[:split])
	if gemTokensOf(curated[:split]) >= limit {
		toSummarize, _ = gemItems(truncated[:split])
	}
	text, ev, err := policy.SummarizeItems(ctx, env, toSummarize, "", summarize.Generic)
	if err != nil {
		return policy.Step{}, 0, err
	}
	step.Summary = ev
	if ev.Error != "" {
		gs.failed = true
		policy.Warnf(&step, "compression failed, history kept (no further attempts): %s", ev.Error)
		return step, geminiNoop, nil
	}
	final, err := geminiVerify(ctx, env, toSummarize, text, ev)
	if err != nil {
		return policy.Step{}, 0, err
	}
	if final == "" {
		ev.Error = "the summary was empty"
		policy.Warnf(&step, "compression failed: the summary was empty")
		return step, geminiEmpty, nil
	}
	if !strings.Contains(final, "<state_snapshot>") {
		final = "<state_snapshot>\n" + final + "\n</state_snapshot>"
	}
	s := st.NewItem(transcript.RoleUser, final, true)
	ack := st.NewItem(transcript.RoleAssistant, geminiAck, false)
	kept, cut := gemItems(truncated[split:])
	g := gemTokens{policy.TranscriptOf(env)}
	if after := (policy.Count(env, g, s) + policy.Count(env, g, ack) + gemQuarters(truncated[split:])) / 4; after > before {
		gs.failed = true
		ev.Error = "compression inflated the token count; discarded"
		policy.Warnf(&step, "compression inflated the prompt from %d to %d tokens: discarded, as gemini-cli does; from now on it only truncates", before, after)
		return step, geminiInflated, nil
	}
	ev.ID = s.ID
	out := append(append([]policy.Item{}, system...), s, ack)
	out = append(append(out, kept...), turn...)
	step.History, step.Truncated = out, cut
	step.Evicted = policy.EvictedFrom(hist, out)
	step.Fired.After = (policy.Count(env, g, s) + policy.Count(env, g, ack) + gemQuarters(truncated[split:])) / 4
	return step, geminiCompressed, nil
}

// geminiVerify makes the probe call: the history, the summary and the
// verification prompt. Its answer, trimmed, replaces the summary unless
// it is empty; its usage is added to ev's.
func geminiVerify(ctx context.Context, env *policy.Env, items []policy.Item, summary string, ev *policy.SummaryEvent) (string, error) {
	msgs := append(policy.Messages(items),
		transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: summary}}},
		transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: geminiProbe}}})
	res, err := env.Summarizer.Summarize(ctx, summarize.Request{Messages: msgs, Template: summarize.Generic})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if errors.Is(err, summarize.ErrStopped) {
			return "", err
		}
		return strings.TrimSpace(summary), nil // the probe failed: the summary stands
	}
	ev.Usage.Add(res.Usage)
	ev.CostUSD += res.CostUSD
	if t := strings.TrimSpace(res.Text); t != "" {
		return t, nil
	}
	return strings.TrimSpace(summary), nil
}

// A gemContent is a content of the history sent: consecutive messages of
// one role, and their parts (a function response possibly truncated).
type gemContent struct {
	model bool
	items []policy.Item
	parts []gemPartOf
}

// gemPartOf is a part and the message (of the content's items) it is of.
type gemPartOf struct {
	item int // index in the content's items
	gemPart
	truncated bool
}

// gemContents returns the contents of items (no system message): a
// message with no part is left out, as stripThoughts leaves it out, and
// consecutive ones of one role are coalesced.
func gemContents(items []policy.Item, names map[string]string) []gemContent {
	var out []gemContent
	for _, it := range items {
		v := gemView(it.Msg, names)
		if len(v.parts) == 0 {
			// stripThoughts drops a content left with no parts (a model
			// turn of nothing but thoughts, a user message of an image):
			// the contents on either side may coalesce, and the message
			// is not in the history a compression keeps.
			continue
		}
		if n := len(out); n == 0 || out[n-1].model != v.model {
			out = append(out, gemContent{model: v.model})
		}
		c := &out[len(out)-1]
		for _, p := range v.parts {
			c.parts = append(c.parts, gemPartOf{item: len(c.items), gemPart: p})
		}
		c.items = append(c.items, it)
	}
	return out
}

// gemQuarters is the contents' estimateTokenCountSync in quarters.
func gemQuarters(cs []gemContent) int {
	n := 0
	for _, c := range cs {
		for _, p := range c.parts {
			n += p.quarters
		}
	}
	return n
}

func gemTokensOf(cs []gemContent) int { return gemQuarters(cs) / 4 }

// gemJSON is JSON.stringify(content).length.
func gemJSON(c gemContent) int {
	n := len(`{"role":"","parts":[]}`) + len("user")
	if c.model {
		n++
	}
	for k, p := range c.parts {
		if k > 0 {
			n++
		}
		n += p.json
	}
	return n
}

// truncateToBudget is truncateHistoryToBudget: newest first, the function
// responses past the budget are replaced by a truncated copy of their
// output, saved (numbered) to a file the header names.
func (gs *geminiState) truncateToBudget(cs []gemContent) []gemContent {
	out := make([]gemContent, len(cs))
	copy(out, cs)
	used := 0
	for i := len(out) - 1; i >= 0; i-- {
		parts := out[i].parts
		changed := false
		for j := len(parts) - 1; j >= 0; j-- {
			p := parts[j]
			if p.kind != 'r' {
				continue
			}
			tokens := textQuarters(p.output) / 4
			if used+tokens <= geminiResponseBudget {
				used += tokens
				continue
			}
			gs.truncations++
			file := path.Join(geminiTempDir, "tool-outputs", truncatedFileName(p.name, gs.truncations))
			text := truncatedOutput(p.output, file, geminiTruncateChars)
			used += textQuarters(text) / 4
			if text == p.output {
				continue
			}
			if !changed {
				parts = append([]gemPartOf(nil), parts...)
				changed = true
			}
			parts[j] = gemPartOf{item: p.item, gemPart: responsePart(p.block, p.name, "", text), truncated: true}
			// responsePart counted an empty id: add the real one's.
			parts[j].json = p.json - jsstr.Len(p.output) + jsstr.Len(text)
		}
		out[i].parts = parts
	}
	return out
}

// truncatedFileName is saveTruncatedToolOutput's file name: the tool and
// the number, each sanitized and lowercased.
func truncatedFileName(tool string, n int) string {
	sanitize := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
				b.WriteRune(r)
			case r > 0xFFFF:
				b.WriteString("__") // one per UTF-16 unit
			default:
				b.WriteByte('_')
			}
		}
		return strings.ToLower(b.String())
	}
	t, id := sanitize(tool), strconv.Itoa(n)
	if strings.HasPrefix(id, t) {
		return id + ".txt"
	}
	return t + "_" + id + ".txt"
}

// truncatedOutput is formatTruncatedToolOutput: the first 20% and the
// last 80% of max characters, under a header naming the file.
func truncatedOutput(s, file string, max int) string {
	n := jsstring.Len(s)
	if n <= max {
		return s
	}
	head := max / 5
	tail := max - head
	return "Output too large. Showing first " + jsstr.Thousands(head) + " and last " + jsstr.Thousands(tail) +
		" characters. For full output see: " + file + "\n" + jsstr.Slice(s, 0, head) +
		"\n\n... [" + jsstr.Thousands(n-head-tail) + " characters omitted] ...\n\n" + jsstr.Slice(s, n-tail, n)
}

// gemItems returns the items of cs, a message whose response a truncation
// changed as a truncated copy, and the ids of those.
func gemItems(cs []gemContent) ([]policy.Item, []string) {
	var out []policy.Item
	var cut []string
	for _, c := range cs {
		texts := map[int]map[int]string{} // item → block → output
		for _, p := range c.parts {
			if p.truncated {
				if texts[p.item] == nil {
					texts[p.item] = map[int]string{}
				}
				texts[p.item][p.block] = p.output
			}
		}
		for k, it := range c.items {
			if t := texts[k]; t != nil {
				m := *it.Msg
				m.Blocks = append([]transcript.Block(nil), m.Blocks...)
				for b, text := range t {
					m.Blocks[b].Text, m.Blocks[b].Raw = text, nil
				}
				it = policy.Truncated(it, &m, false)
				cut = append(cut, it.ID)
			}
			out = append(out, it)
		}
	}
	return out, cut
}

// geminiSplitPoint is findCompressSplitPoint: the index of the first
// content to keep.
func geminiSplitPoint(cs []gemContent, fraction float64) int {
	chars := make([]int, len(cs))
	total := 0
	for i, c := range cs {
		chars[i] = gemJSON(c)
		total += chars[i]
	}
	target := float64(total) * fraction
	last, cum := 0, 0
	for i, c := range cs {
		if !c.model && !c.hasResponse() {
			if float64(cum) >= target {
				return i
			}
			last = i
		}
		cum += chars[i]
	}
	if n := len(cs); n > 0 && cs[n-1].model && !cs[n-1].hasCall() {
		return n
	}
	return last
}

func (c gemContent) hasResponse() bool { return c.has('r') }
func (c gemContent) hasCall() bool     { return c.has('c') }

func (c gemContent) has(kind byte) bool {
	for _, p := range c.parts {
		if p.kind == kind {
			return true
		}
	}
	return false
}

// Guarantees: gemini-cli discards a compression only when it inflates the
// count, so one that saves nothing (re-summarizing its own summary) is
// kept: shrinking is not guaranteed (google-gemini/gemini-cli #6563).
func (p *geminiPolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{SummaryRole: transcript.RoleUser, SummaryFirst: true}
}
