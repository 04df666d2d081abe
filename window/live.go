package window

import (
	"context"
	"slices"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// A Conversation applies a policy to a conversation as it happens: the
// caller appends each message as it comes (the user's, the model's reply,
// the tool results) and, before each model call, asks [Conversation.Next]
// what to send. It decides each call as a replay of the same messages
// does: every assistant message is the reply to one call, and one
// appended without a Next before it is a call the conversation prepares
// when Next is next called, in order.
//
// A Conversation is not safe for concurrent use; a [Policy] value may
// serve many Conversations at once.
type Conversation struct {
	p   Policy
	t   transcript.Transcript
	env Env
	st  State
	// sent is what the previous call sent (a copy), and reply the index
	// its reply has or will have; called says a call was prepared.
	sent   []Item
	reply  int
	called bool
	// model is the model the next call goes to.
	model string
}

// ConversationOptions configure a [Conversation].
type ConversationOptions struct {
	// ID names the conversation where a policy writes it (Claude Code's
	// summary names the session's file).
	ID string
	// Model is the model the calls go to (see [Conversation.SetModel]):
	// the policies whose thresholds depend on the model read it.
	Model string
	// ModelWindow is the model's context window in tokens (0: not known):
	// what a policy's window parameter left at 0 means.
	ModelWindow int
	// Summarizer makes the summaries policies ask for (nil: policies that
	// need one evict without summarizing and say so in the Step).
	Summarizer summarize.Summarizer
}

// NewConversation returns an empty conversation under p.
func NewConversation(p Policy, opt ConversationOptions) *Conversation {
	c := &Conversation{p: p, t: transcript.Transcript{ID: opt.ID}, model: opt.Model}
	if opt.Model != "" {
		c.t.Models = []string{opt.Model}
	}
	counts := countcache.New()
	c.env = Env{Transcript: &c.t, Summarizer: opt.Summarizer, ModelWindow: opt.ModelWindow,
		Count: func(e estimate.Estimator, it Item) int { return counts.Count(e, it.Msg) }}
	return c
}

// SetModel says which model the next calls go to.
func (c *Conversation) SetModel(model string) { c.model = model }

// Append adds messages to the conversation. The conversation keeps its
// own copies.
func (c *Conversation) Append(msgs ...transcript.Message) {
	old := c.t.Messages
	c.t.Messages = append(c.t.Messages, msgs...)
	for _, m := range msgs {
		if m.Model != "" && m.Model != "<synthetic>" && !slices.Contains(c.t.Models, m.Model) {
			c.t.Models = append(c.t.Models, m.Model)
		}
		if m.Role == transcript.RoleAssistant {
			c.t.Calls++
		}
	}
	if len(old) > 0 && &old[0] != &c.t.Messages[0] {
		// The messages moved: policies tell an original message from a
		// copy by its address, so what was sent points at them anew.
		for i, it := range c.sent {
			if j := it.Index(); j >= 0 && it.Msg == &old[j] {
				c.sent[i].Msg = &c.t.Messages[j]
			}
		}
	}
}

// Next applies the policy before the next model call, whose reply is the
// next message appended: its Step's History is what to send (each
// item's Msg). The assistant messages appended since the previous call
// but its reply are calls prepared first, in order, as a replay would.
// Its only errors are the context's.
func (c *Conversation) Next(ctx context.Context) (Step, error) {
	from := 0
	if c.called {
		from = c.reply + 1
	}
	for i := from; i < len(c.t.Messages); i++ {
		if c.t.Messages[i].Role != transcript.RoleAssistant {
			continue
		}
		if _, err := c.call(ctx, i); err != nil {
			return Step{}, err
		}
	}
	return c.call(ctx, len(c.t.Messages))
}

// call prepares the call whose reply is message i.
func (c *Conversation) call(ctx context.Context, i int) (Step, error) {
	if err := ctx.Err(); err != nil {
		return Step{}, err
	}
	hist := slices.Clip(c.sent)
	from := 0
	if c.called {
		from = c.reply
	}
	for j := from; j < i; j++ {
		hist = append(hist, Original(&c.t, j))
	}
	c.env.Next, c.env.Turn, c.env.Model = i, i-from, c.model
	if i < len(c.t.Messages) {
		c.env.Model = c.t.Messages[i].Model
	}
	if c.called && from < i && c.t.Messages[from].Role == transcript.RoleAssistant {
		c.env.Turn-- // the previous call's reply is not its turn
	}
	if c.called {
		c.env.Call++
	}
	step, err := c.st.Apply(ctx, c.p, &c.env, hist)
	if err != nil {
		return Step{}, err
	}
	c.sent, c.reply, c.called = slices.Clone(step.History), i, true
	return step, nil
}

// messages returns the messages of a history: what a call sends.
func messages(hist []Item) []transcript.Message {
	msgs := make([]transcript.Message, len(hist))
	for i, it := range hist {
		msgs[i] = *it.Msg
	}
	return msgs
}

// Apply returns what p sends at the next call of a conversation whose
// messages so far are history: the policy decides every call the
// history records (each assistant message is one's reply), then the
// next. A caller that calls the model repeatedly keeps a [Conversation]
// instead, which decides each call once.
func Apply(ctx context.Context, p Policy, history []transcript.Message) ([]transcript.Message, error) {
	c := NewConversation(p, ConversationOptions{})
	c.Append(history...)
	step, err := c.Next(ctx)
	if err != nil {
		return nil, err
	}
	return messages(step.History), nil
}
