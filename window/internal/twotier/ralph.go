package twotier

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/approx"
	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/jsstr"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// What two-tier takes from packages/ralph/src/loop.ts of
// vercel-labs/ralph-gpu (at [ralphCommit]): its token estimate, its cut
// of a long message, its heuristic summary and the prompt of its AI
// summary, each as the code computes it.

// loopTokens is loop.ts's estimateTokens(JSON.stringify(m)) of a message
// {role, content}: Math.ceil(length / 4), the length in UTF-16 units.
var loopTokens estimate.Estimator = loopEstimator{}

type loopEstimator struct{}

func (loopEstimator) Name() string          { return "ralph-json4" }
func (loopEstimator) Exact() bool           { return false }
func (loopEstimator) Count(text string) int { return approx.Tokens(jsstring.Len(text)) }
func (loopEstimator) CountMessage(m *transcript.Message) int {
	// {"role":"…","content":…}
	n := len(`{"role":"","content":}`) + len(m.Role)
	if len(m.Blocks) == 1 && m.Blocks[0].Type == transcript.BlockText {
		n += jsstr.Len(m.Blocks[0].Text)
	} else {
		_, units := transcript.ContentJSONSize(m.Blocks)
		n += units
	}
	return approx.Tokens(n)
}

// loopContent is a message's content as loop.ts reads it: typeof
// m.content === "string" ? m.content : JSON.stringify(m.content).
func loopContent(m *transcript.Message) string {
	if len(m.Blocks) == 1 && m.Blocks[0].Type == transcript.BlockText {
		return m.Blocks[0].Text
	}
	return string(transcript.ContentJSON(m.Blocks))
}

// Over loopTruncateOver UTF-16 units, a message is cut to its first
// loopTruncateTo, then loopTruncated.
const (
	loopTruncateOver = 5000
	loopTruncateTo   = 3000
	loopTruncated    = "\n... [message truncated]"
)

// truncateLoopMessage is loop.ts's cut of a recent message when nothing
// is older: its content, over 5,000 characters, becomes its first 3,000
// plus "\n... [message truncated]" (a string content: one text block).
func truncateLoopMessage(it policy.Item) (policy.Item, bool) {
	c := loopContent(it.Msg)
	if jsstring.Len(c) <= loopTruncateOver {
		return it, false
	}
	m := &transcript.Message{Role: it.Msg.Role, Name: it.Msg.Name, Model: it.Msg.Model,
		Blocks: []transcript.Block{{Type: transcript.BlockText, Text: jsstr.Cut(c, loopTruncateTo) + loopTruncated}}}
	return policy.Truncated(it, m, false), true
}

// The patterns of loop.ts's createHeuristicSummary, with JavaScript's \s
// spelled out (RE2's \s is ASCII only).
const jsSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

var (
	loopPathPattern    = regexp.MustCompile(`(?:path['":` + jsSpace + `]+)?["']([\w/.\-]+\.(tsx?|jsx?|json|md|css|html|yml|yaml))["']`)
	loopCommandPattern = regexp.MustCompile(`(?:bash|command)['":` + jsSpace + `]+["']([^"']{5,80})["']`)
	loopPathPrefix     = regexp.MustCompile(`^path:[` + jsSpace + `]*`)
	loopToQuote        = regexp.MustCompile(`^[^"']*["']`)
)

// loopHeuristicSummary is loop.ts's createHeuristicSummary of msgs.
func loopHeuristicSummary(msgs []policy.Item) string {
	var x loopExtraction
	x.add(msgs)
	return x.text()
}

// loopExtraction is what createHeuristicSummary finds in a list of
// messages, kept as the list grows so that each call reads only the
// messages new to it: the tools, the first 15 files and the first 5
// commands (all it prints) in the order found.
type loopExtraction struct {
	n        int // messages read
	tools    []string
	files    []string
	commands []string
	seen     map[string]bool // tools and files found, "t" or "f" and the name
}

// add reads the messages of msgs beyond the first x.n, which it has read.
func (x *loopExtraction) add(msgs []policy.Item) {
	if x.seen == nil || x.n > len(msgs) {
		*x = loopExtraction{seen: map[string]bool{}}
	}
	for _, it := range msgs[x.n:] {
		if len(x.tools) == len(loopTools) && len(x.files) >= 15 && len(x.commands) >= 5 {
			break // nothing more can be printed
		}
		c := loopContent(it.Msg)
		for _, t := range wordsInOrder(c, loopTools) {
			if !x.seen["t"+t] {
				x.seen["t"+t] = true
				x.tools = append(x.tools, t)
			}
		}
		paths := loopPathPattern.FindAllString(c, -1)
		for _, p := range paths[:min(len(paths), 20)] {
			p = loopPathPrefix.ReplaceAllString(strings.NewReplacer(`'`, "", `"`, "").Replace(p), "")
			if strings.Contains(p, ".") && !x.seen["f"+p] && len(x.files) < 15 {
				x.seen["f"+p] = true
				x.files = append(x.files, p)
			}
		}
		cmds := loopCommandPattern.FindAllString(c, -1)
		for _, m := range cmds[:min(len(cmds), 5)] {
			m = loopToQuote.ReplaceAllString(m, "")
			m = strings.TrimSuffix(strings.TrimSuffix(m, `"`), `'`)
			if jsstring.Len(m) > 5 && len(x.commands) < 5 {
				x.commands = append(x.commands, m)
			}
		}
	}
	x.n = len(msgs)
}

// text is the summary createHeuristicSummary writes.
func (x *loopExtraction) text() string {
	parts := []string{"## Earlier Conversation Summary (Heuristic)", "", "**Messages summarized:** " + strconv.Itoa(x.n)}
	parts = listLine(parts, "**Tools used:** ", x.tools, ", ")
	parts = listLine(parts, "**Files explored:** ", x.files, ", ")
	parts = listLine(parts, "**Commands run:** ", x.commands, "; ")
	parts = append(parts, "", "---", "*Continue with the task. Recent context follows.*")
	return strings.Join(parts, "\n")
}

// loopAISystem is the system prompt of createAISummary's call.
const loopAISystem = `You are summarizing an AI agent's earlier conversation history to preserve context while reducing token usage.

Your summary will be injected into the conversation so the agent can continue its work with full awareness of what happened before.

Create a detailed, structured summary that includes:

1. **Task Progress**: What has been accomplished so far? What's the current state?
2. **Key Decisions**: Important choices made and why (e.g., "chose X approach because Y")
3. **Files & Changes**: What files were created, modified, or read? Include relevant paths.
4. **Errors & Solutions**: Any errors encountered and how they were resolved (or if still pending)
5. **Current Focus**: What was the agent working on most recently?
6. **Important Context**: Any domain-specific knowledge, constraints, or requirements discovered

Be thorough - this summary replaces the original messages, so don't lose critical information.
Use markdown formatting for readability. Include specific file paths, error messages, and code snippets when relevant.`

// loopAIMaxContent is maxContentLength: the conversation the AI summary
// reads is cut to its first 50,000 characters.
const loopAIMaxContent = 50000

// The patterns of createAISummary (its tools include done).
var (
	loopWritePattern   = regexp.MustCompile(`writeFile[^}]*path["']?[` + jsSpace + `]*[:=][` + jsSpace + `]*["']([^"']+)["']`)
	loopReadPattern    = regexp.MustCompile(`readFile[^}]*path["']?[` + jsSpace + `]*[:=][` + jsSpace + `]*["']([^"']+)["']`)
	loopQuotedFile     = regexp.MustCompile(`["']([^"']+\.[a-z]+)["']`)
	loopErrorPattern   = regexp.MustCompile(`(?:error|Error|ERROR|failed|Failed|FAILED)[:` + jsSpace + `]+([^\n]{10,100})`)
	loopAIFileKeep     = 20 // files of each kind printed
	loopAIErrorsKept   = 3  // errors printed
	loopAIErrorsPerMsg = 5  // errors taken from one message
)

// loopAIPrompt is the user part of createAISummary's call for a growing
// list of older messages, kept as the list grows: the metadata of every
// message (what it prints of them: the tools, the first 20 files written
// and read, the first 3 errors) and the conversation, which stops growing
// once it passes 50,000 characters.
type loopAIPrompt struct {
	n                    int // messages read
	tools, written, read []string
	errors               []string
	seen                 map[string]bool // "t", "w" or "r" and the name
	conversation         strings.Builder
	conversationUnits    int
	conversationFull     bool // over loopAIMaxContent: what follows is not read
	conversationCut      string
}

// add reads the messages of msgs beyond the first p.n.
func (p *loopAIPrompt) add(msgs []policy.Item) {
	if p.seen == nil || p.n > len(msgs) {
		*p = loopAIPrompt{seen: map[string]bool{}}
	}
	for i := p.n; i < len(msgs); i++ {
		m := msgs[i].Msg
		c := loopContent(m)
		for _, t := range wordsInOrder(c, loopAITools) {
			p.note("t", t, &p.tools, len(loopAITools))
		}
		// The patterns start with these words: where they are not, the
		// patterns find nothing.
		if len(p.written) < loopAIFileKeep && strings.Contains(c, "writeFile") {
			for _, w := range loopWritePattern.FindAllString(c, -1) {
				if f := loopQuotedFile.FindStringSubmatch(w); f != nil {
					p.note("w", f[1], &p.written, loopAIFileKeep)
				}
			}
		}
		if len(p.read) < loopAIFileKeep && strings.Contains(c, "readFile") {
			for _, r := range loopReadPattern.FindAllString(c, -1) {
				if f := loopQuotedFile.FindStringSubmatch(r); f != nil {
					p.note("r", f[1], &p.read, loopAIFileKeep)
				}
			}
		}
		if len(p.errors) < loopAIErrorsKept && mayHoldError(c) {
			errs := loopErrorPattern.FindAllString(c, -1)
			for _, e := range errs[:min(len(errs), loopAIErrorsPerMsg)] {
				p.errors = append(p.errors, jsstr.Cut(e, 100))
			}
		}
		if !p.conversationFull {
			p.addConversation(i, m.Role, c)
		}
	}
	p.n = len(msgs)
}

// note adds name to list unless seen, while the list prints fewer than
// keep names.
func (p *loopAIPrompt) note(kind, name string, list *[]string, keep int) {
	if !p.seen[kind+name] && len(*list) < keep {
		p.seen[kind+name] = true
		*list = append(*list, name)
	}
}

// addConversation adds message i to the conversation: "[ROLE i+1]\n" and
// its content, over 2,000 characters its first 1,500, "\n...[truncated]...",
// and its last 300; messages apart by "\n\n---\n\n".
func (p *loopAIPrompt) addConversation(i int, role transcript.Role, c string) {
	if u := jsstring.Len(c); u > 2000 {
		c = jsstr.Cut(c, 1500) + "\n...[truncated]..." + jsstr.Slice(c, u-300, u)
	}
	var b strings.Builder
	if i > 0 {
		b.WriteString("\n\n---\n\n")
	}
	b.WriteString("[" + strings.ToUpper(string(role)) + " " + strconv.Itoa(i+1) + "]\n")
	b.WriteString(c)
	part := b.String()
	p.conversation.WriteString(part)
	p.conversationUnits += jsstring.Len(part)
	if p.conversationUnits > loopAIMaxContent {
		p.conversationFull = true
		p.conversationCut = jsstr.Cut(p.conversation.String(), loopAIMaxContent) + "\n\n...[earlier messages truncated]..."
		p.conversation = strings.Builder{}
	}
}

// text is the prompt's user part.
func (p *loopAIPrompt) text() string {
	meta := []string{"Messages being summarized: " + strconv.Itoa(p.n)}
	meta = listLine(meta, "Tools used: ", p.tools, ", ")
	meta = listLine(meta, "Files modified: ", p.written, ", ")
	meta = listLine(meta, "Files read: ", p.read, ", ")
	meta = listLine(meta, "Errors encountered: ", p.errors[:min(len(p.errors), loopAIErrorsKept)], "; ")
	conv := p.conversationCut
	if !p.conversationFull {
		conv = p.conversation.String()
	}
	return "Summarize this agent conversation history:\n\n**Metadata:**\n" + strings.Join(meta, "\n") + "\n\n**Conversation:**\n" + conv
}

// The words of the tool patterns, \b(bash|readFile|…)\b: the heuristic
// summary's and the AI summary's, which adds done.
var (
	loopTools   = []string{"bash", "readFile", "writeFile", "editFile", "openBrowser", "screenshot", "think"}
	loopAITools = append(slices.Clip(loopTools), "done")
)

// wordsInOrder returns the words of words that s holds as whole words
// (JavaScript's \b, ASCII word characters on either side), in the order
// they first occur: the order a Set of a global match of \b(w1|w2|…)\b
// adds them in, since no word is a prefix of another.
func wordsInOrder(s string, words []string) []string {
	type hit struct {
		at   int
		word string
	}
	var hits []hit
	for _, w := range words {
		for from := 0; ; {
			i := strings.Index(s[from:], w)
			if i < 0 {
				break
			}
			i += from
			if end := i + len(w); (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
				hits = append(hits, hit{i, w})
				break
			}
			from = i + 1
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.at - b.at })
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.word
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// mayHoldError reports whether s holds a word the error pattern starts
// with.
func mayHoldError(s string) bool {
	for _, w := range []string{"error", "Error", "ERROR", "failed", "Failed", "FAILED"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// listLine appends to lines the line label + list joined by sep, when
// list has any: how loop.ts prints what its summaries found.
func listLine(lines []string, label string, list []string, sep string) []string {
	if len(list) == 0 {
		return lines
	}
	return append(lines, label+strings.Join(list, sep))
}
