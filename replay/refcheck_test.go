package replay

// The invariant checks as they were before steps were checked
// incrementally and with interned ids: string sets, every step whole. The
// tests hold the engine's checks to them.

import (
	"fmt"
	"maps"
	"strings"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// refChecker checks one run's steps.
type refChecker struct {
	t      *transcript.Transcript
	g      window.Guarantees
	result map[string]int // tool_use id → index of the message with its result
	// evicted holds every id evicted so far.
	evicted map[string]bool
	// prevSummary is the context of the previous step when it made a
	// summary, else nil.
	prevSummary map[string]bool
	sets        [4]map[string]bool // scratch sets of check
}

func newRefChecker(t *transcript.Transcript, p window.Policy) *refChecker {
	c := &refChecker{t: t, result: map[string]int{}, evicted: map[string]bool{}}
	if g, ok := p.(guarantor); ok {
		c.g = g.Guarantees()
	}
	for i := range t.Messages {
		for _, b := range t.Messages[i].Blocks {
			if b.Type == transcript.BlockToolResult {
				if _, ok := c.result[b.ID]; !ok {
					c.result[b.ID] = i
				}
			}
		}
	}
	return c
}

// scratch returns the refChecker's reusable sets, empty.
func (c *refChecker) scratch() (sent, used, resultsSent, had map[string]bool) {
	if c.sets[0] == nil {
		for i := range c.sets {
			c.sets[i] = map[string]bool{}
		}
	}
	for _, m := range c.sets {
		clear(m)
	}
	return c.sets[0], c.sets[1], c.sets[2], c.sets[3]
}

// refAdd records a violation of one invariant at a step.
type refAdd func(inv string, ids []string, format string, args ...any)

func (c *refChecker) check(s *Step, before []window.Item, e estimate.Estimator, counts *counter) []Violation {
	var out []Violation
	add := func(inv string, ids []string, format string, args ...any) {
		out = append(out, Violation{Step: s.Step, Invariant: inv, IDs: ids, Detail: fmt.Sprintf(format, args...)})
	}
	// The sets are the refChecker's, cleared and reused.
	sentIDs, used, resultsSent, had := c.scratch()
	for _, it := range s.sent {
		sentIDs[it.ID] = true
	}
	c.capOf(s, add)
	c.anchorsOf(s, before, add)
	c.orderOf(s, add)
	c.pairingOf(s, used, resultsSent, add)
	c.summaryOf(s, add)
	c.shrinksOf(s, sentIDs, e, counts, add)
	c.conservationOf(s, before, sentIDs, had, add)
	return out
}

func (c *refChecker) capOf(s *Step, add refAdd) {
	if m := c.g.MaxMessages; m > 0 {
		if limit := m + s.turn + c.g.SummaryExtra; len(s.sent) > limit {
			add(invCap, nil, "%d messages sent; the cap is %d + %d of the latest turn + %d for the summary", len(s.sent), m, s.turn, c.g.SummaryExtra)
		}
	}
}

func (c *refChecker) anchorsOf(s *Step, before []window.Item, add refAdd) {
	sent := s.sent
	for j := 0; j < c.g.Head && j < len(before); j++ {
		want := before[j]
		if want.Synthetic() {
			break
		}
		if j >= len(sent) || sent[j].ID != want.ID || sent[j].Msg != want.Msg {
			add(invAnchors, []string{want.ID}, "%s is in the preserved head but was not sent in place, verbatim", want.ID)
		}
	}
	if t := c.g.Tail; t > 0 {
		for _, want := range before[max(0, len(before)-t):] {
			found := false
			for _, it := range sent {
				if it.ID == want.ID && it.Msg == want.Msg {
					found = true
				}
			}
			if !found {
				add(invAnchors, []string{want.ID}, "%s is in the preserved tail but was not sent verbatim", want.ID)
			}
		}
	}
}

func (c *refChecker) orderOf(s *Step, add refAdd) {
	last := -1
	for _, it := range s.sent {
		if c.evicted[it.ID] {
			add(invOrder, []string{it.ID}, "%s was evicted at an earlier step and is sent again", it.ID)
		}
		if i := it.Index(); i >= 0 {
			if i <= last {
				add(invOrder, []string{it.ID}, "%s is sent after m%d, out of the original order", it.ID, last)
			}
			last = i
		}
	}
}

func (c *refChecker) pairingOf(s *Step, used, resultsSent map[string]bool, add refAdd) {
	for _, it := range s.sent {
		for _, b := range it.Msg.Blocks {
			if b.Type == transcript.BlockToolResult {
				resultsSent[b.ID] = true
			}
		}
	}
	for _, it := range s.sent {
		for _, b := range it.Msg.Blocks {
			switch b.Type {
			case transcript.BlockToolUse:
				used[b.ID] = true
				if r, ok := c.result[b.ID]; ok && r < s.next && !resultsSent[b.ID] {
					add(invToolPairing, []string{it.ID, msgid.Of(r)}, "the tool call %s in %s is sent without its result (in %s)", b.ID, it.ID, msgid.Of(r))
				}
			case transcript.BlockToolResult:
				if !used[b.ID] {
					add(invToolPairing, []string{it.ID}, "the tool result in %s answers the call %s, which is not sent before it", it.ID, b.ID)
				}
			}
		}
	}
}

func (c *refChecker) summaryOf(s *Step, add refAdd) {
	sent := s.sent
	var ids []string
	for i, it := range sent {
		if !it.Summary {
			continue
		}
		ids = append(ids, it.ID)
		if r := c.g.SummaryRole; r != "" && it.Msg.Role != r {
			add(invSummary, []string{it.ID}, "the summary %s is a %s message; the design makes it %s", it.ID, it.Msg.Role, r)
		}
		if ev := s.Summary; ev != nil && ev.ID == it.ID && c.g.SummaryFirst {
			first := 0
			if len(sent) > 0 && !sent[0].Synthetic() && sent[0].Msg.Role == transcript.RoleSystem {
				first = 1
			}
			if i != first {
				add(invSummary, []string{it.ID}, "the summary %s is at position %d; the design puts it first", it.ID, i)
			}
		}
	}
	if len(ids) > 1 {
		add(invSummary, ids, "%d summaries are sent at once: %s", len(ids), strings.Join(ids, ", "))
	}
	if ev := s.Summary; ev != nil && ev.Error != "" {
		for _, it := range sent {
			if it.Synthetic() && strings.Contains(it.Msg.Text(), ev.Error) {
				add(invSummary, []string{it.ID}, "the failed summary's error became history in %s", it.ID)
			}
		}
	}
}

func (c *refChecker) shrinksOf(s *Step, sentIDs map[string]bool, e estimate.Estimator, counts *counter, add refAdd) {
	made := s.Summary != nil && s.Summary.ID != ""
	if c.g.Compacts && made {
		if after := counts.sum(e, s.sent); after >= s.before {
			add(invShrinks, []string{s.Summary.ID}, "compaction into %s left %d %s tokens, not fewer than the %d before it", s.Summary.ID, after, e.Name(), s.before)
		}
		if c.prevSummary != nil {
			fresh := false
			for _, id := range s.Summary.Covers {
				if !c.prevSummary[id] {
					fresh = true
				}
			}
			if !fresh {
				add(invShrinks, []string{s.Summary.ID}, "compaction fired again on the previous step's context with no new input")
			}
		}
	}
	c.prevSummary = nil
	if made {
		c.prevSummary = maps.Clone(sentIDs)
	}
}

func (c *refChecker) conservationOf(s *Step, before []window.Item, sentIDs, had map[string]bool, add refAdd) {
	for _, it := range before {
		had[it.ID] = true
	}
	for _, id := range s.Evicted {
		if !had[id] {
			add(invConservation, []string{id}, "%s is reported evicted but was not in the history", id)
		}
		c.evicted[id] = true
	}
	for _, it := range before {
		if !sentIDs[it.ID] && !c.evicted[it.ID] {
			add(invConservation, []string{it.ID}, "%s is neither sent nor evicted", it.ID)
		}
	}
}
