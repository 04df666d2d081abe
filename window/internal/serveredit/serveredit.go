// Package serveredit holds what the edits a provider's API applies to
// each request share (Anthropic's context editing and compaction,
// OpenAI's compaction), and what a chain of policies needs of them: the
// copies an edit sent, the estimate of a request's input tokens, the
// server-side compaction's request.
package serveredit

import (
	"context"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/linefit"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// A Server is a policy the provider applies to each request: what it
// sends is a function of the client's history alone, whatever it sent at
// the previous call.
type Server interface {
	ServerSide()
}

// An AnewTeller is a part of a chain that tells which positions of the
// history it sent at the chain's call (with state st) may hold another
// item than at the previous call, whose history was n long (ok false: it
// does not know).
type AnewTeller interface {
	SentAnew(st *policy.State, call int) (changed []int, n int, ok bool)
}

// A State is a provider edit's state: the copies it sent, which the
// client never had, and the copy of each message as it was last edited.
type State struct {
	// Made holds the copies sent; Request estimates the requests' input
	// tokens.
	Made    map[any]bool
	Request *Request
	// copies holds each message's edited copy, made again only when its
	// edit changes: a message cleared at every request is one copy, not
	// one per request (memory and counts linear in the calls).
	copies map[*transcript.Message]editedCopy
	// Own is the edit's own state (anthropic-clear-tool-uses' or
	// anthropic-clear-thinking's; nil for the others).
	Own any
	// Log says to list in Added each copy Mark adds (a chain's part: the
	// chain reads and empties it after each call).
	Log   bool
	Added []any
}

// Mark adds m to the copies sent.
func (ss *State) Mark(m any) {
	if ss.Made[m] {
		return
	}
	ss.Made[m] = true
	if ss.Log {
		ss.Added = append(ss.Added, m)
	}
}

// An Edit is what an edit does to a message: the tool results it
// replaces by the placeholder and the tool uses whose input it sends as
// {} (block positions, ascending), or its thinking removed.
type Edit struct {
	Results, Inputs []int
	Placeholder     string
	Thinking        bool
}

type editedCopy struct {
	edit Edit
	msg  *transcript.Message
}

// Equal reports whether e and o edit a message alike.
func (e Edit) Equal(o Edit) bool {
	return slices.Equal(e.Results, o.Results) && slices.Equal(e.Inputs, o.Inputs) && e.Placeholder == o.Placeholder && e.Thinking == o.Thinking
}

// Edited returns m with edit applied: the copy made at an earlier call
// when the edit is the same.
func (ss *State) Edited(m *transcript.Message, edit Edit) *transcript.Message {
	if c, ok := ss.copies[m]; ok && c.edit.Equal(edit) {
		return c.msg
	}
	c := *m
	if edit.Thinking {
		c.Blocks = nil
		for _, b := range m.Blocks {
			if b.Type != transcript.BlockThinking {
				c.Blocks = append(c.Blocks, b)
			}
		}
	} else {
		c.Blocks = slices.Clone(m.Blocks)
		for _, j := range edit.Results {
			c.Blocks[j].Text, c.Blocks[j].Raw = edit.Placeholder, nil
		}
		for _, j := range edit.Inputs {
			c.Blocks[j].Input = []byte("{}")
		}
	}
	if ss.copies == nil {
		ss.copies = map[*transcript.Message]editedCopy{}
	}
	ss.copies[m] = editedCopy{edit, &c}
	return &c
}

// Of returns the provider edit's state in st, made on the first call.
func Of(env *policy.Env, st *policy.State) *State {
	ss, _ := st.Data.(*State)
	if ss == nil {
		ss = &State{Made: map[any]bool{}, Request: newRequest(env)}
		st.Data = ss
	}
	return ss
}

// Remember records the copies out holds that client does not.
func (ss *State) Remember(client, out []policy.Item) {
	had := make(map[any]bool, len(client))
	for _, it := range client {
		had[it.Msg] = true
	}
	for _, it := range out {
		if !had[it.Msg] && it.Index() >= 0 {
			ss.Mark(it.Msg)
		}
	}
}

// RestoreCopies returns hist with the copies in made (the
// provider's edits at earlier calls) replaced by their originals: the
// client's history.
func RestoreCopies(env *policy.Env, made map[any]bool, hist []policy.Item) []policy.Item {
	out := hist
	for k, it := range hist {
		if !made[it.Msg] {
			continue
		}
		if &out[0] == &hist[0] {
			out = slices.Clone(hist)
		}
		out[k] = policy.Original(env.Transcript, it.Index())
	}
	return out
}

// A Request estimates the input tokens the server counts in a
// request, from what was known before the call: the calls before it,
// whose usage came back with their replies, never the call's own or a
// later one's. A request that sends the whole history, as the recording
// did, counts the prompt the previous such call was billed for plus
// chars4 of the messages appended since; any other history, chars4 of
// it on a line fitted to those calls.
type Request struct {
	fits linefit.Fits
	// next is the first message not yet added; chars4 the chars4 tokens
	// of the messages before it.
	next, chars4 int
	// lastPrompt is the prompt billed at the newest call that sent the
	// whole history, lastChars4 the chars4 tokens of that history (ok:
	// there is one).
	lastPrompt, lastChars4 int
	ok                     bool
}

func newRequest(*policy.Env) *Request { return &Request{fits: linefit.Fits{}} }

// advance adds the calls before the call being prepared.
func (r *Request) advance(env *policy.Env) {
	t := env.Transcript
	est := policy.Chars4()
	for ; r.next < min(env.Next, len(t.Messages)); r.next++ {
		m := &t.Messages[r.next]
		if m.Role == transcript.RoleAssistant && m.Usage != nil && m.Usage.Prompt() > 0 && r.faithful(env, r.next) {
			r.fits.Of(m.Model).Add(r.chars4, int(m.Usage.Prompt()))
			r.lastPrompt, r.lastChars4, r.ok = int(m.Usage.Prompt()), r.chars4, true
		}
		r.chars4 += policy.Count(env, est, policy.Original(t, r.next))
	}
}

// faithful reports whether the recording sent the whole history before
// message next: it compacted nothing before.
func (r *Request) faithful(env *policy.Env, next int) bool {
	for _, c := range env.Transcript.Compactions {
		if c.Index <= next {
			return false
		}
	}
	return true
}

// At returns the input tokens of the request sending client at the call
// being prepared. whole, when not nil, reports whether client is the
// whole history (IsWholeHistory), which the caller knows.
func (r *Request) At(env *policy.Env, st *policy.State, client []policy.Item, whole func(*policy.Env) bool) int {
	r.advance(env)
	if whole == nil {
		whole = func(env *policy.Env) bool { return IsWholeHistory(env, client) }
	}
	if r.ok && r.faithful(env, env.Next) && whole(env) {
		return r.lastPrompt + r.chars4 - r.lastChars4
	}
	return r.fits.Of(policy.CallModel(env)).At(st.HistoryTokens(env, policy.Chars4(), client))
}

// IsWholeHistory reports whether client is the transcript's messages
// before the call, as written.
func IsWholeHistory(env *policy.Env, client []policy.Item) bool {
	if len(client) != env.Next {
		return false
	}
	for i, it := range client {
		if it.Msg != &env.Transcript.Messages[i] {
			return false
		}
	}
	return true
}

// Scale returns the input tokens that n chars4 tokens of history make
// on the fitted line (its slope: the tokenizer's ratio).
func (r *Request) Scale(env *policy.Env, n int) int {
	return int(math.Round(r.fits.Of(policy.CallModel(env)).Slope() * float64(n)))
}

// CompactRequest is what a provider's server-side compaction does
// first: it measures the request hist makes and, when that exceeds
// trigger, summarizes hist whole with tmpl into s, the assistant's
// compaction item, the pass billed for the whole request (system
// prompt and tools too). s is the zero Item when it does not compact:
// under the trigger, or the summary failed (step says why).
func CompactRequest(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item, trigger int, tmpl *summarize.Template) (step policy.Step, s policy.Item, err error) {
	ss := Of(env, st)
	step = policy.Step{History: hist}
	input := ss.Request.At(env, st, hist, nil)
	if input <= trigger || len(hist) == 0 {
		return step, policy.Item{}, nil
	}
	step.Fired = &policy.Firing{What: "compaction", Unit: "tokens", Trigger: trigger, Before: input, After: input}
	text, ok, err := policy.SummarizeOrKeep(ctx, env, &step, "compaction", hist, "", tmpl)
	if err != nil || !ok {
		return step, policy.Item{}, err
	}
	ev := step.Summary
	if !ev.Cached && ev.Usage.Prompt() < int64(input) {
		ev.Usage.Input += int64(input) - ev.Usage.Prompt()
	}
	s = st.NewItem(transcript.RoleAssistant, text, true)
	ev.ID = s.ID
	return step, s, nil
}

// FinishCompaction makes out what step sends in place of hist.
func FinishCompaction(env *policy.Env, st *policy.State, step *policy.Step, hist, out []policy.Item) {
	step.Evicted = policy.EvictedFrom(hist, out)
	step.History = out
	step.Fired.After = Of(env, st).Request.At(env, st, out, nil)
}
