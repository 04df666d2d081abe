package summarize

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"

	"github.com/ctxbench/ctxbench/internal/conversation"
	"github.com/ctxbench/ctxbench/transcript"
)

// A Summarizer turns messages into a summary. Every Summarizer is safe for
// concurrent use.
type Summarizer interface {
	// Name is the provider's name: mock, heuristic, anthropic or openai.
	Name() string
	Summarize(ctx context.Context, req Request) (Result, error)
}

// A Request asks for a summary of Messages, folding in Previous (an
// earlier summary) when it is not empty.
type Request struct {
	Messages []transcript.Message
	Previous string
	// Prompt, when set, is the prompt's user part as the caller wrote it,
	// for a system whose prompt is not a template over the conversation;
	// the template then gives the system part and the output limit, and
	// Messages only what a summarizer made without a model reads.
	Prompt string
	// Template is the prompt; nil means [Generic].
	Template *Template
	// MaxTokens limits the summary's length; 0 means the template's.
	MaxTokens int
}

// A Result is a summary and what it cost.
type Result struct {
	Text string
	// Usage is what the provider reported (Input, the cache fields and
	// Output); zero for summaries made without a model.
	Usage transcript.Usage
	// Cached reports that the result came from the response cache, at no
	// cost.
	Cached bool
	// Model is the model that wrote the summary.
	Model string
	// CostUSD is what the call cost at the summarizer's prices (0 when
	// cached or unpriced).
	CostUSD float64
}

// The errors a summarizer returns, wrapped.
var (
	// ErrSpendCap is returned when a call would exceed the spend cap.
	// Policies treat it as any summarizer failure: the way their source
	// handles a failed summary.
	ErrSpendCap = errors.New("summary spend cap reached")
	// ErrOffline is returned when an offline summarizer has no cached
	// response for a request.
	ErrOffline = errors.New("not in the response cache (offline)")
	// ErrStopped is returned by every call once a run's circuit breaker
	// opened: a policy must not go on as if one summary had failed.
	ErrStopped = errors.New("summary calls stopped")
)

// A Template is a summarization prompt.
type Template struct {
	// Name identifies the template; Source says where it comes from.
	Name, Source string
	// System is the system prompt, if any.
	System string
	// Prompt is a text/template executed with .Conversation (the messages
	// as text) and .Previous (the previous summary, possibly empty).
	Prompt string
	// PromptWithPrevious, if set, is used instead of Prompt when there is
	// a previous summary to fold in.
	PromptWithPrevious string
	// MaxTokens is the output limit the source sets.
	MaxTokens int
}

// The seeds' templates. AIDF's v0.8.0 plan gives its prompt word for
// word; ralph-gpu's Decision 005 and the AI Context Management document
// describe theirs (the sections to produce, the length, the
// previous summary's place), which these templates follow.
var (
	// AIDF is the summarization prompt of AIDF's v0.8.0 plan (Message
	// History Management) (max_tokens 1024).
	AIDF = &Template{
		Name: "aidf", Source: "AIDF's v0.8.0 plan (Message History Management), its summarization task (118-implement-summarization.md)", MaxTokens: 1024,
		Prompt: "Summarize the following conversation history concisely. Focus on: what files were read/written, " +
			"what decisions were made, what problems were encountered, and what the current state of the task is. " +
			"Be factual and brief.\n\n{{.Conversation}}",
	}
	// TwoTier is the AI tier of ralph-gpu's Decision 005 (Context
	// Management and Message Summarization): a six-section structured
	// summary of at most 2000 tokens.
	TwoTier = &Template{
		Name: "two-tier", Source: "ralph-gpu's Decision 005 (Context Management and Message Summarization), AI tier", MaxTokens: 2000,
		Prompt: "Here is the earlier part of an agent's conversation:\n\n{{.Conversation}}\n\n" +
			"Create a detailed, structured summary that includes:\n" +
			"1. Task Progress: What has been accomplished so far?\n" +
			"2. Key Decisions: Important choices made and why\n" +
			"3. Files & Changes: What files were created, modified, or read?\n" +
			"4. Errors & Solutions: Any errors and how they were resolved\n" +
			"5. Current Focus: What was the agent working on most recently?\n" +
			"6. Important Context: Domain-specific knowledge discovered",
	}
	// CrossTurn is the Haiku summary of the AI Context Management document:
	// 2–3 sentences, at most 500 tokens, folding in the previous summary
	// when there is one.
	CrossTurn = &Template{
		Name: "cross-turn", Source: "the AI Context Management document (auto-summarization and proposed re-summarization)", MaxTokens: 500,
		Prompt: "Summarize this conversation in 2-3 sentences, keeping what is needed to continue it.\n\n{{.Conversation}}",
		PromptWithPrevious: "Previous summary: {{.Previous}}\n\n" +
			"Produce an updated summary in 2-3 sentences that incorporates both the previous summary and these newer messages:\n\n{{.Conversation}}",
	}
	// Generic is the summary the compression service of Dexto's Complete
	// Context Management Plan asks for (generateSummary of the compressed
	// history), in gemini-cli's manner.
	Generic = &Template{
		Name: "generic", Source: "Dexto's Complete Context Management Plan (its compression service)", MaxTokens: 1024,
		Prompt: "Summarize the conversation below so that an agent can continue the task from the summary alone. " +
			"Keep the goal, what was done, files and commands involved, errors and their fixes, and what remains.\n\n{{.Conversation}}",
		PromptWithPrevious: "Earlier summary:\n{{.Previous}}\n\n" +
			"Update it with the conversation below so that an agent can continue the task from the summary alone.\n\n{{.Conversation}}",
	}
)

// templates returns the named templates.
func templates() []*Template { return []*Template{AIDF, TwoTier, CrossTurn, Generic} }

// render executes the template.
func (t *Template) render(conversation, previous string) (string, error) {
	src := t.Prompt
	if previous != "" && t.PromptWithPrevious != "" {
		src = t.PromptWithPrevious
	} else if previous != "" {
		conversation = "Previous summary: " + previous + "\n\n" + conversation
	}
	tmpl, err := parseTemplate(t.Name, src)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", t.Name, err)
	}
	// The prompt is mostly the conversation, often megabytes: written
	// into a buffer of about its final size, it is copied once.
	buf := &cappedWriter{max: len(src) + 4*(len(conversation)+len(previous)) + 64<<10}
	buf.Grow(len(src) + len(conversation) + len(previous))
	if err := tmpl.Execute(buf, struct{ Conversation, Previous string }{conversation, previous}); err != nil {
		return "", fmt.Errorf("template %s: %w", t.Name, err)
	}
	return buf.String(), nil
}

// conversationMarker stands for the conversation when a template is
// rendered around one (see around).
const conversationMarker = "\x00ctxbench:conversation\x00"

// around renders the template for a request whose previous summary is
// previous, around the conversation: the prompt is before, then the
// conversation, then after, whatever the conversation. ok is false when
// the template does anything but print {{.Conversation}} once, as it is
// (then only rendering the prompt tells what it is).
func (t *Template) around(previous string) (before, after string, ok bool, err error) {
	src := t.Prompt
	if previous != "" && t.PromptWithPrevious != "" {
		src = t.PromptWithPrevious
	}
	tmpl, err := parseTemplate(t.Name, src)
	if err != nil {
		return "", "", false, fmt.Errorf("template %s: %w", t.Name, err)
	}
	if !printsConversationOnce(tmpl) {
		return "", "", false, nil
	}
	out, err := t.render(conversationMarker, previous)
	if err != nil {
		return "", "", false, err
	}
	if strings.Count(out, conversationMarker) != 1 {
		return "", "", false, nil // the marker is in the previous summary too
	}
	before, after, _ = strings.Cut(out, conversationMarker)
	return before, after, true, nil
}

// printsConversationOnce reports whether tmpl is text and plain
// {{.Conversation}} and {{.Previous}} actions only, with one
// {{.Conversation}}: its output is then its text and the two values,
// in place.
func printsConversationOnce(tmpl *template.Template) bool {
	if len(tmpl.Templates()) > 1 || tmpl.Tree == nil {
		return false
	}
	n := 0
	for _, node := range tmpl.Tree.Root.Nodes {
		switch x := node.(type) {
		case *parse.TextNode:
		case *parse.ActionNode:
			if len(x.Pipe.Decl) > 0 || len(x.Pipe.Cmds) != 1 || len(x.Pipe.Cmds[0].Args) != 1 {
				return false
			}
			f, ok := x.Pipe.Cmds[0].Args[0].(*parse.FieldNode)
			if !ok || len(f.Ident) != 1 || f.Ident[0] != "Conversation" && f.Ident[0] != "Previous" {
				return false
			}
			if f.Ident[0] == "Conversation" {
				n++
			}
		default:
			return false
		}
	}
	return n == 1
}

// parsedTemplates holds the templates parsed so far, by name and source:
// a policy renders the same one at every summary.
var parsedTemplates sync.Map // templateKey → *template.Template

type templateKey struct{ name, src string }

func parseTemplate(name, src string) (*template.Template, error) {
	k := templateKey{name, src}
	if t, ok := parsedTemplates.Load(k); ok {
		return t.(*template.Template), nil
	}
	t, err := template.New(name).Option("missingkey=error").Parse(src)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil && hasRange(tt.Tree.Root) {
			return nil, errors.New("a prompt template cannot use range: its data is two strings, and {{range N}} runs N times")
		}
	}
	parsedTemplates.Store(k, t)
	return t, nil
}

// hasRange reports whether the tree under n holds a range action.
func hasRange(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.RangeNode:
		return true
	case *parse.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			if hasRange(c) {
				return true
			}
		}
	case *parse.IfNode:
		return hasRange(n.List) || hasRange(n.ElseList)
	case *parse.WithNode:
		return hasRange(n.List) || hasRange(n.ElseList)
	}
	return false
}

// cappedWriter is a strings.Builder that fails once it holds more than
// max bytes: a template that prints the conversation over and over is
// stopped, not run out of memory.
type cappedWriter struct {
	strings.Builder
	max int
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	if w.Len()+len(p) > w.max {
		return 0, fmt.Errorf("the prompt is over %d bytes: the template repeats the conversation", w.max)
	}
	return w.Builder.Write(p)
}

// Prompt is a rendered request: what a provider sends.
type Prompt struct {
	System    string
	User      string
	MaxTokens int
}

// Render renders the request into the prompt a provider sends.
func (req Request) Render() (Prompt, error) {
	t := req.Template
	if t == nil {
		t = Generic
	}
	user := req.Prompt
	if user == "" {
		var err error
		if user, err = t.render(conversation.Text(req.Messages), req.Previous); err != nil {
			return Prompt{}, err
		}
	}
	p := Prompt{System: t.System, User: user, MaxTokens: req.MaxTokens}
	if p.MaxTokens <= 0 {
		p.MaxTokens = t.MaxTokens
	}
	return p, nil
}
