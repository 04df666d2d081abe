package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// asLive returns t's messages as a live conversation knows them: no
// format, version, compaction, clearing or rollback record.
func asLive(t *transcript.Transcript) *transcript.Transcript {
	return &transcript.Transcript{ID: t.ID, File: t.File, Models: t.Models, Messages: t.Messages, Calls: t.Calls}
}

// liveDecision is what a window.Step decided, in the terms of decision.
func liveDecision(s *window.Step) string {
	ids := make([]string, len(s.History))
	for i, it := range s.History {
		ids[i] = it.ID
	}
	summary := ""
	if s.Summary != nil {
		summary = fmt.Sprint(s.Summary.Covers)
	}
	return fmt.Sprintf("sent %v evicted %v truncated %v summary %s", ids, s.Evicted, s.Truncated, summary)
}

// TestConversationAsReplay applies every policy to a live history that
// grows a message at a time (window.Conversation: the messages appended
// one by one, Next before each assistant message) and holds each call's
// decision to the replay of the same messages.
func TestConversationAsReplay(t *testing.T) {
	trs := corpus(t)
	policies := labeled(t, append(specs, "anthropic-compaction:trigger=50000"))
	for j, whole := range trs {
		tr := asLive(whole)
		for i, p := range policies {
			if testing.Short() && (i+j)%4 != 0 {
				continue // make long: every pair
			}
			run, err := Replay(context.Background(), tr, p.Policy, Options{Summarizer: &summarize.Mock{}, NoRetention: true})
			if err != nil {
				t.Fatalf("%s on %s: %v", p.Label, tr.File, err)
			}
			c := window.NewConversation(p.Policy, window.ConversationOptions{ID: tr.ID, ModelWindow: modelWindow(tr, nil), Summarizer: &summarize.Mock{}})
			call := 0
			for k := range tr.Messages {
				m := tr.Messages[k]
				if m.Role == transcript.RoleAssistant {
					c.SetModel(m.Model)
					step, err := c.Next(context.Background())
					if err != nil {
						t.Fatalf("%s on %s, call %d: %v", p.Label, tr.File, call, err)
					}
					if d := cmp.Diff(decision(&run.Steps[call]), liveDecision(&step)); d != "" {
						t.Errorf("%s on %s: call %d decided otherwise live (-replay +live):\n%s", p.Label, tr.File, call, d)
						break
					}
					call++
				}
				c.Append(m)
			}
			// Appended at once, the calls before are prepared when Next is
			// called (what window.Apply does): the last call decides as the
			// replay does.
			for _, k := range []int{tr.Calls / 2, tr.Calls - 1} {
				if k < 1 || k >= len(run.Steps) {
					continue
				}
				next := callMessage(tr, k)
				c := window.NewConversation(p.Policy, window.ConversationOptions{ID: tr.ID, ModelWindow: modelWindow(tr, nil), Summarizer: &summarize.Mock{}})
				c.Append(tr.Messages[:next]...)
				c.SetModel(tr.Messages[next].Model)
				step, err := c.Next(context.Background())
				if err != nil {
					t.Fatalf("%s on %s, call %d at once: %v", p.Label, tr.File, k, err)
				}
				if d := cmp.Diff(decision(&run.Steps[k]), liveDecision(&step)); d != "" {
					t.Errorf("%s on %s: call %d decided otherwise after its history appended at once (-replay +live):\n%s", p.Label, tr.File, k, d)
				}
			}
		}
	}
}

// TestConversationAnyOrder applies every policy, with thresholds small
// enough to act, to live histories grown in any order a caller may use:
// several messages at once, Next twice with nothing appended (a call
// that failed and is retried), assistant messages appended without a
// Next before them, a reply that never comes. Whatever the order, Next
// returns no error and a history of items of the conversation, ending
// with what was appended last when the policy keeps it.
func TestConversationAnyOrder(t *testing.T) {
	policies := labeled(t, tinySpecs)
	tr := generated(t, 40)
	rng := rand.New(rand.NewPCG(1, 2))
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	for range rounds {
		for _, p := range policies {
			c := window.NewConversation(p.Policy, window.ConversationOptions{Model: "claude-sonnet-4-5", Summarizer: &summarize.Mock{}})
			for i := 0; i < len(tr.Messages); {
				n := 1 + rng.IntN(4)
				c.Append(tr.Messages[i:min(i+n, len(tr.Messages))]...)
				i += n
				for range rng.IntN(3) {
					step, err := c.Next(context.Background())
					if err != nil {
						t.Fatalf("%s: Next after %d messages: %v", p.Label, min(i, len(tr.Messages)), err)
					}
					for _, it := range step.History {
						if it.Msg == nil || it.ID == "" {
							t.Fatalf("%s: Next after %d messages sent an item with no message or id: %+v", p.Label, i, it)
						}
						if k := it.Index(); k >= min(i, len(tr.Messages)) {
							t.Fatalf("%s: Next after %d messages sent message %d", p.Label, i, k)
						}
					}
				}
			}
		}
	}
}
