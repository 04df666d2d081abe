package replay

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"weak"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// The invariants, checked at every step.
const (
	// invCap: messages sent ≤ the cap + the latest turn (+ the summary
	// messages the design adds).
	invCap = "cap"
	// invAnchors: the preserved head and tail are the original messages,
	// verbatim.
	invAnchors = "anchors"
	// invOrder: original messages are sent in their order, and nothing
	// evicted comes back.
	invOrder = "order"
	// invToolPairing: every tool result sent has its call sent before it,
	// and every call sent whose result is recorded has it sent too.
	invToolPairing = "tool_pairing"
	// invSummary: at most one summary, in the documented role and place; a
	// failed summary never becomes history.
	invSummary = "summary"
	// invShrinks: a compaction lowers the token count, and does not fire
	// again with no new input.
	invShrinks = "shrinks"
	// invConservation: every message appended is sent, evicted or
	// truncated.
	invConservation = "conservation"
	// invHeadroom: a compaction or a clearing buys headroom — it leaves
	// the history below its own trigger, and its trigger does not fire
	// again at the next call. A policy that re-fires at every call
	// (thrashing) breaks it, by design or not.
	invHeadroom = "headroom"
)

// A guarantor is a policy that declares its guarantees; a policy that
// does not promises nothing beyond the invariants that hold for every
// policy (order, conservation, at most one summary).
type guarantor interface {
	Guarantees() window.Guarantees
}

// Invariants returns the invariant names, in report order: the keys of a
// Summary's Violations.
func Invariants() []string {
	return []string{invCap, invAnchors, invOrder, invToolPairing, invSummary, invShrinks, invHeadroom, invConservation}
}

// OwnPolicies name the agent's own policy for its own files, by format:
// a sweep's own baseline ([Sweeper.AddBaselines]).
var OwnPolicies = map[transcript.Format]string{transcript.FormatClaudeCode: "claude-code", transcript.FormatCodex: "codex"}

// headroom checks a step's firing (nil: its trigger did not fire)
// against its trigger and the previous step's firing, and returns the
// violations (counted: without their details).
func headroom(step int, f, prev *window.Firing, counted bool) []Violation {
	if f == nil {
		return nil
	}
	var out []Violation
	if f.After >= f.Trigger {
		v := Violation{Step: step, Invariant: invHeadroom}
		if !counted {
			v.Detail = fmt.Sprintf("the %s left %d %s by the policy's own count, still at or above its trigger of %d: it bought no headroom", f.What, f.After, f.Unit, f.Trigger)
		}
		out = append(out, v)
	}
	if prev != nil {
		v := Violation{Step: step, Invariant: invHeadroom}
		if !counted {
			v.Detail = fmt.Sprintf("the %s fired again at the next call (%d %s by the policy's own count against its trigger of %d; %d after the previous one)", f.What, f.Before, f.Unit, f.Trigger, prev.After)
		}
		out = append(out, v)
	}
	return out
}

// checker checks one run's steps. Ids are interned: items by key (see
// keyOf), tools by their index in the transcript's toolIndex, so the sets
// of a check are arrays stamped with a generation, not string maps.
type checker struct {
	// counted: violations carry their step and invariant only (no ids,
	// no detail), for a run that counts them ([Options.countViolations]).
	counted bool
	t       *transcript.Transcript
	g       window.Guarantees
	tools   *toolIndex
	// extra interns tool ids the transcript does not hold (in copies a
	// policy made), after the transcript's.
	extra      map[string]int32
	extraNames []string
	refs       map[weak.Pointer[transcript.Message]][]toolRef // of messages not the transcript's, while they live
	// evicted[key] says the item was evicted at some step; evictedOther
	// holds the ids that have no key.
	evicted      []bool
	evictedOther map[string]bool
	// prevSummary is the context of the previous step when it made a
	// summary, else nil.
	prevSummary map[string]bool
	// The sets of a check: an entry is in a set when it holds gen.
	gen                  uint32
	sentMark, hadMark    []uint32 // by item key
	sentOther, hadOther  map[string]bool
	used, results        toolCount // by tool: calls and results sent
	sentKeys, beforeKeys []int     // scratch: the keys of sent and before
	// After a check, used and results count the tool calls and results
	// of the context, sentMark holds its keys, last is the index of its
	// last original message, and clean says that the step broke no
	// invariant but the cap and, by its orphans, tool pairing, that its
	// items have distinct keys, and that none of them is evicted: the
	// next step, if it sends this context changed only at its edges, is
	// checked on what changed.
	last            int
	clean, distinct bool
	// orphans are the tool results of the context sent without their
	// calls, in order: a clean step may have them (they stay until the
	// item leaves), and the next step, checked on what changed, reports
	// them again.
	orphans []orphan
}

// An orphan is a tool result sent without its call: the item and the
// tool.
type orphan struct {
	id   string
	key  int
	tool int32
}

// orphanViolation is the violation an orphan result makes at step s.
func (c *checker) orphanViolation(s *Step, o orphan) Violation {
	if c.counted {
		return Violation{Step: s.Step, Invariant: invToolPairing}
	}
	return Violation{Step: s.Step, Invariant: invToolPairing, IDs: []string{o.id},
		Detail: fmt.Sprintf("the tool result in %s answers the call %s, which is not sent before it", o.id, c.toolName(o.tool))}
}

// A toolCount counts tools by index, in arrays stamped with the check's
// generation: an entry of another generation counts 0.
type toolCount struct {
	gen []uint32
	n   []int32
}

func (t *toolCount) of(gen uint32, tool int32) int32 {
	if int(tool) < len(t.gen) && t.gen[tool] == gen {
		return t.n[tool]
	}
	return 0
}

func (t *toolCount) add(gen uint32, tool int32, d int32) {
	if int(tool) >= len(t.gen) {
		more := int(tool) + 1 - len(t.gen) + len(t.gen)/4
		t.gen = append(t.gen, make([]uint32, more)...)
		t.n = append(t.n, make([]int32, more)...)
	}
	if t.gen[tool] != gen {
		t.gen[tool], t.n[tool] = gen, 0
	}
	t.n[tool] += d
}

func newChecker(t *transcript.Transcript, p window.Policy, tools *toolIndex) *checker {
	// gen starts at 1: a set's zero entries are of no generation, so a
	// run whose first steps are checked on what changed (which keeps the
	// generation) finds in its sets only what it put there.
	c := &checker{t: t, tools: tools, extra: map[string]int32{}, refs: map[weak.Pointer[transcript.Message]][]toolRef{},
		evictedOther: map[string]bool{}, sentOther: map[string]bool{}, hadOther: map[string]bool{}, last: -1, clean: true, gen: 1}
	if g, ok := p.(guarantor); ok {
		c.g = g.Guarantees()
	}
	return c
}

// A toolRef is a tool block of a message: the tool's index and whether
// the block calls it (else it answers it).
type toolRef struct {
	tool int32
	use  bool
}

// toolIndex interns the tool ids of a transcript, once for all its runs.
type toolIndex struct {
	ids      map[string]int32
	names    []string
	resultAt []int32     // by tool: the first message holding its result, or -1
	refs     [][]toolRef // by message: its tool blocks, in order
}

func newToolIndex(t *transcript.Transcript) *toolIndex {
	x := &toolIndex{ids: map[string]int32{}, refs: make([][]toolRef, len(t.Messages))}
	for i := range t.Messages {
		for _, b := range t.Messages[i].Blocks {
			if b.Type != transcript.BlockToolUse && b.Type != transcript.BlockToolResult {
				continue
			}
			id, ok := x.ids[b.ID]
			if !ok {
				id = int32(len(x.names))
				x.ids[b.ID] = id
				x.names = append(x.names, b.ID)
				x.resultAt = append(x.resultAt, -1)
			}
			use := b.Type == transcript.BlockToolUse
			if !use && x.resultAt[id] < 0 {
				x.resultAt[id] = int32(i)
			}
			x.refs[i] = append(x.refs[i], toolRef{id, use})
		}
	}
	return x
}

// toolRefs returns the tool blocks of an item's message.
func (c *checker) toolRefs(it window.Item) []toolRef {
	if i := it.Index(); i >= 0 && i < len(c.t.Messages) && it.Msg == &c.t.Messages[i] {
		return c.tools.refs[i]
	}
	w := weak.Make(it.Msg)
	if r, ok := c.refs[w]; ok {
		return r
	}
	var r []toolRef
	for _, b := range it.Msg.Blocks {
		if b.Type != transcript.BlockToolUse && b.Type != transcript.BlockToolResult {
			continue
		}
		id, ok := c.tools.ids[b.ID]
		if !ok {
			if id, ok = c.extra[b.ID]; !ok {
				id = int32(len(c.tools.names) + len(c.extraNames))
				c.extra[b.ID] = id
				c.extraNames = append(c.extraNames, b.ID)
			}
		}
		r = append(r, toolRef{id, b.Type == transcript.BlockToolUse})
	}
	c.refs[w] = r
	return r
}

func (c *checker) toolName(id int32) string {
	if int(id) < len(c.tools.names) {
		return c.tools.names[id]
	}
	return c.extraNames[int(id)-len(c.tools.names)]
}

// resultAt returns the index of the message with the tool's result, or −1.
func (c *checker) resultAt(id int32) int {
	if int(id) < len(c.tools.resultAt) {
		return int(c.tools.resultAt[id])
	}
	return -1
}

// keyOf returns the key of an item id: i for "m<i>" when the transcript
// has message i, n + k for "s<k>" (n messages), or −1 for any other id,
// which the sets hold by string. Only the canonical spelling has a key,
// so two ids share a key exactly when they are equal.
func keyOf(id string, n int) int {
	if len(id) < 2 || (id[0] != 'm' && id[0] != 's') || (id[1] == '0' && len(id) > 2) || len(id) > 9 {
		return -1
	}
	v := 0
	for i := 1; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return -1
		}
		v = v*10 + int(id[i]-'0')
	}
	if id[0] == 's' {
		return n + v
	}
	if v >= n {
		return -1
	}
	return v
}

// stamp marks key in set with the current generation.
func (c *checker) stamp(set *[]uint32, key int) {
	if key >= len(*set) {
		*set = append(*set, make([]uint32, key+1-len(*set)+len(*set)/4)...)
	}
	(*set)[key] = c.gen
}

func (c *checker) marked(set []uint32, key int) bool { return key < len(set) && set[key] == c.gen }

func (c *checker) wasEvicted(key int, id string) bool {
	if key < 0 {
		return c.evictedOther[id]
	}
	return key < len(c.evicted) && c.evicted[key]
}

// check returns the invariants s breaks; before is the history the policy
// was given. edges, when not nil, says that s sent the previous step's
// context changed only at its edges: each invariant's incremental form
// then vouches for what changed (see edgesOnly), and when one cannot, the
// step is checked whole, which lists what broke.
//
// Each invariant below has its whole-context form (…Whole: the rule on
// the context sent) and its incremental form (…Edges: the conditions
// under which an edit of a clean context cannot break the rule) side by
// side; the test reference (refcheck_test.go) writes the rules again,
// independently.
func (c *checker) check(s *Step, before []window.Item, edges *edit, e estimate.Estimator, counts *counter) []Violation {
	var out []Violation
	add := func(inv string, ids []string, format string, args ...any) {
		if c.counted {
			out = append(out, Violation{Step: s.Step, Invariant: inv})
			return
		}
		out = append(out, Violation{Step: s.Step, Invariant: inv, IDs: ids, Detail: fmt.Sprintf(format, args...)})
	}
	if edges != nil && c.edgesOnly(s, len(before), *edges) {
		c.capWhole(s, add)
		for _, o := range c.orphans {
			out = append(out, c.orphanViolation(s, o))
		}
		return out
	}
	defer c.settle(s, &out)
	c.markSent(s.sent)
	c.capWhole(s, add)
	c.anchorsWhole(s, before, add)
	c.orderWhole(s, add)
	c.pairingWhole(s, &out)
	c.summaryWhole(s, add)
	c.shrinksWhole(s, e, counts, add)
	c.conservationWhole(s, before, add)
	return out
}

// adder records a violation.
type adder func(inv string, ids []string, format string, args ...any)

// markSent fills the sets of a whole check with the context's keys.
func (c *checker) markSent(sent []window.Item) {
	n := len(c.t.Messages)
	c.gen++
	clear(c.sentOther)
	clear(c.hadOther)
	c.sentKeys = c.sentKeys[:0]
	c.distinct = true
	for _, it := range sent {
		k := keyOf(it.ID, n)
		c.sentKeys = append(c.sentKeys, k)
		if k < 0 {
			c.sentOther[it.ID] = true
			c.distinct = false
		} else {
			c.distinct = c.distinct && !c.marked(c.sentMark, k)
			c.stamp(&c.sentMark, k)
		}
	}
}

func (c *checker) isSent(k int, id string) bool {
	if k < 0 {
		return c.sentOther[id]
	}
	return c.marked(c.sentMark, k)
}

// edgesOnly checks a step whose context is the previous one, checked
// clean, changed only as e says, on what changed alone, and reports
// whether it found nothing; when it finds something, or cannot tell, the
// step is checked whole, which lists what. The cap is checked on every
// step as it is (it needs the length alone). Only when every invariant's
// incremental form vouches for the edit is the checker's state moved on.
func (c *checker) edgesOnly(s *Step, before int, e edit) bool {
	if !c.clean {
		return false
	}
	last := c.last
	var orphaned []madeOrphan // the results the removed block orphans
	if !c.summaryEdges(s, e) || !c.anchorsEdges(s, before, e) || !c.conservationEdges(s, e) ||
		!c.orderEdges(e, &last) || !c.pairingEdges(s, e, &orphaned) {
		return false
	}
	// Nothing broke: the removed are evicted (order, conservation), the
	// keys are the new context's, the orphans move with it (pairing), and
	// no compaction was made (shrinks).
	n := len(c.t.Messages)
	for _, it := range e.removed {
		k := keyOf(it.ID, n)
		c.sentMark[k] = 0
		c.markEvicted(k, it.ID)
	}
	for _, it := range e.fresh {
		c.stamp(&c.sentMark, keyOf(it.ID, n))
	}
	if len(e.removed) > 0 {
		// The orphans removed are gone; the others are still sent.
		kept := c.orphans[:0]
		for _, o := range c.orphans {
			if o.key >= 0 && c.marked(c.sentMark, o.key) {
				kept = append(kept, o)
			}
		}
		c.orphans = kept
	}
	if len(orphaned) > 0 {
		c.addOrphans(s.sent, orphaned)
	}
	c.last, c.prevSummary = last, nil
	return true
}

// cap: messages sent ≤ the cap + the latest turn + the summary messages
// the design adds. It needs the context's length alone, so both forms are
// this one.
func (c *checker) capWhole(s *Step, add adder) {
	if m := c.g.MaxMessages; m > 0 {
		// A cap past any history never binds (and must not overflow).
		if limit := m + s.turn + c.g.SummaryExtra; m < math.MaxInt32 && len(s.sent) > limit {
			add(invCap, nil, "%d messages sent; the cap is %d + %d of the latest turn + %d for the summary", len(s.sent), m, s.turn, c.g.SummaryExtra)
		}
	}
}

// anchors: the preserved head is sent in place, and the preserved tail at
// the end, both verbatim.
func (c *checker) anchorsWhole(s *Step, before []window.Item, add adder) {
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
		tail := before[max(0, len(before)-t):]
		for _, want := range tail {
			// The tail is sent at the end, if anywhere: search from there.
			found := false
			for j := len(sent) - 1; j >= 0; j-- {
				if it := sent[j]; it.Msg == want.Msg && it.ID == want.ID {
					found = true
					break
				}
			}
			if !found {
				add(invAnchors, []string{want.ID}, "%s is in the preserved tail but was not sent verbatim", want.ID)
			}
		}
	}
}

// anchorsEdges: an edit keeps the anchors when the items it replaces and
// the block it removes are outside the preserved head and tail (the fresh
// messages are sent, at the end).
func (c *checker) anchorsEdges(s *Step, before int, e edit) bool {
	outside := func(from, to int) bool { return from >= c.g.Head && (c.g.Tail == 0 || to <= before-c.g.Tail) }
	for _, j := range e.replaced {
		if !outside(j, j+1) {
			return false
		}
	}
	return len(e.removed) == 0 || outside(e.cut, e.cut+len(e.removed))
}

// order: original messages are sent in their order, and nothing evicted
// comes back.
func (c *checker) orderWhole(s *Step, add adder) {
	last := -1
	for j, it := range s.sent {
		if c.wasEvicted(c.sentKeys[j], it.ID) {
			add(invOrder, []string{it.ID}, "%s was evicted at an earlier step and is sent again", it.ID)
		}
		if i := it.Index(); i >= 0 {
			if i <= last {
				add(invOrder, []string{it.ID}, "%s is sent after m%d, out of the original order", it.ID, last)
			}
			last = i
		}
	}
	c.last = last
}

// orderEdges: the fresh messages follow the context's last in order, and
// none was evicted (a policy may report an id before it is appended) or
// is sent already; *last moves to the last fresh message.
func (c *checker) orderEdges(e edit, last *int) bool {
	n := len(c.t.Messages)
	for _, it := range e.fresh {
		k := keyOf(it.ID, n)
		if k < 0 || c.marked(c.sentMark, k) || c.wasEvicted(k, it.ID) {
			return false
		}
		if i := it.Index(); i >= 0 {
			if i <= *last {
				return false
			}
			*last = i
		}
	}
	return true
}

// tool pairing: every tool result sent has its call sent before it, and
// every call sent whose result was recorded before the call has it sent.
// A result sent without its call is an orphan: it is reported at every
// step that sends it.
func (c *checker) pairingWhole(s *Step, out *[]Violation) {
	n := len(c.t.Messages)
	c.orphans = c.orphans[:0]
	c.pairTools(s.sent, s.next, func(it window.Item, r toolRef, at int) bool {
		if r.use && c.counted {
			*out = append(*out, Violation{Step: s.Step, Invariant: invToolPairing})
		} else if r.use {
			*out = append(*out, Violation{Step: s.Step, Invariant: invToolPairing, IDs: []string{it.ID, msgid.Of(at)},
				Detail: fmt.Sprintf("the tool call %s in %s is sent without its result (in %s)", c.toolName(r.tool), it.ID, msgid.Of(at))})
		} else {
			o := orphan{it.ID, keyOf(it.ID, n), r.tool}
			c.orphans = append(c.orphans, o)
			*out = append(*out, c.orphanViolation(s, o))
		}
		return true
	})
}

// pairingEdges: an item replaced keeps its tool blocks; a block removed
// leaves no call without its result, and no result without its call but
// as an orphan of the plain kind (see orphaned), added to *orphaned; the
// fresh messages' results answer calls sent, and their calls have their
// results sent once recorded (the results recorded since the previous
// call are fresh).
func (c *checker) pairingEdges(s *Step, e edit, orphaned *[]madeOrphan) bool {
	for k, j := range e.replaced {
		if !slices.Equal(c.toolRefs(e.old[k]), c.toolRefs(s.sent[j])) {
			return false
		}
	}
	for _, it := range e.removed {
		for _, r := range c.toolRefs(it) {
			if r.use {
				c.used.add(c.gen, r.tool, -1)
			} else {
				c.results.add(c.gen, r.tool, -1)
			}
		}
	}
	for _, it := range e.removed {
		for _, r := range c.toolRefs(it) {
			switch {
			case r.use && c.used.of(c.gen, r.tool) == 0 && c.results.of(c.gen, r.tool) > 0:
				// A result sent without its call: an orphan, as when a
				// sliding window passes between a call and its result.
				if !c.orphaned(s, e, r.tool, orphaned) {
					return false
				}
			case !r.use && c.results.of(c.gen, r.tool) == 0 && c.used.of(c.gen, r.tool) > 0:
				return false // a call sent without its result, recorded before
			}
		}
	}
	return c.pairTools(e.fresh, s.next, func(window.Item, toolRef, int) bool { return false })
}

// summary: at most one summary is sent, in the role and place the design
// documents, and a failed summary's error never becomes history.
func (c *checker) summaryWhole(s *Step, add adder) {
	sent := s.sent
	var summaries []window.Item
	for i, it := range sent {
		if !it.Summary {
			continue
		}
		summaries = append(summaries, it)
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
	if len(summaries) > 1 {
		var ids []string
		for _, it := range summaries {
			ids = append(ids, it.ID)
		}
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

// summaryEdges: no summary was made or attempted (nor, then, a
// compaction to shrink), the items replaced keep their role and their
// summary flag, and no fresh item is a summary: the summaries sent, their
// roles and places are the clean context's.
func (c *checker) summaryEdges(s *Step, e edit) bool {
	if s.Summary != nil {
		return false
	}
	for k, j := range e.replaced {
		if o, r := e.old[k], s.sent[j]; o.Msg.Role != r.Msg.Role || o.Summary != r.Summary {
			return false
		}
	}
	for _, it := range e.fresh {
		if it.Summary {
			return false
		}
	}
	return true
}

// shrinks: a compaction leaves fewer tokens than the history it was
// given, and does not fire again on the previous step's context with no
// new input.
func (c *checker) shrinksWhole(s *Step, e estimate.Estimator, counts *counter, add adder) {
	made := s.Summary != nil && s.Summary.ID != ""
	if c.g.Compacts && made {
		after := counts.sum(e, s.sent)
		if after >= s.before {
			add(invShrinks, []string{s.Summary.ID}, "compaction into %s left %d %s tokens, not fewer than the %d before it", s.Summary.ID, after, e.Name(), s.before)
		}
		if c.prevSummary != nil {
			fresh := false
			for _, id := range s.Summary.Covers {
				if !c.prevSummary[id] {
					fresh = true
					break
				}
			}
			if !fresh {
				add(invShrinks, []string{s.Summary.ID}, "compaction fired again on the previous step's context with no new input")
			}
		}
	}
	c.prevSummary = nil
	if made {
		c.prevSummary = make(map[string]bool, len(s.sent))
		for _, it := range s.sent {
			c.prevSummary[it.ID] = true
		}
	}
}

// Shrinking has no incremental form of its own: a compaction makes a
// summary, and a step that makes or attempts one is checked whole
// (summaryEdges).

// conservation: every message of the history is sent, evicted or
// truncated, and what is reported evicted was in the history.
func (c *checker) conservationWhole(s *Step, before []window.Item, add adder) {
	n := len(c.t.Messages)
	c.beforeKeys = c.beforeKeys[:0]
	for _, it := range before {
		k := keyOf(it.ID, n)
		c.beforeKeys = append(c.beforeKeys, k)
		if k < 0 {
			c.hadOther[it.ID] = true
		} else {
			c.stamp(&c.hadMark, k)
		}
	}
	for _, id := range s.Evicted {
		k := keyOf(id, n)
		had := c.hadOther[id]
		if k >= 0 {
			had = c.marked(c.hadMark, k)
		}
		if !had {
			add(invConservation, []string{id}, "%s is reported evicted but was not in the history", id)
		}
		c.markEvicted(k, id)
	}
	for j, it := range before {
		if k := c.beforeKeys[j]; !c.isSent(k, it.ID) && !c.wasEvicted(k, it.ID) {
			add(invConservation, []string{it.ID}, "%s is neither sent nor evicted", it.ID)
		}
	}
}

// conservationEdges: what the step reports evicted is exactly the block
// removed, in order (the items replaced keep their ids, and the fresh
// messages are all sent).
func (c *checker) conservationEdges(s *Step, e edit) bool {
	if len(e.removed) != len(s.Evicted) {
		return false
	}
	for k, it := range e.removed {
		if s.Evicted[k] != it.ID {
			return false
		}
	}
	return true
}

// pairTools adds the tool calls and results of items to the context's
// counts, results first, and reports to bad each call sent without its
// result though the result was recorded before the call at next (at: the
// result's message), and each result sent with no call before it (at:
// −1); it stops, and returns false, when bad does.
func (c *checker) pairTools(items []window.Item, next int, bad func(it window.Item, r toolRef, at int) bool) bool {
	for _, it := range items {
		for _, r := range c.toolRefs(it) {
			if !r.use {
				c.results.add(c.gen, r.tool, 1)
			}
		}
	}
	for _, it := range items {
		for _, r := range c.toolRefs(it) {
			if r.use {
				c.used.add(c.gen, r.tool, 1)
				if at := c.resultAt(r.tool); at >= 0 && at < next && c.results.of(c.gen, r.tool) == 0 && !bad(it, r, at) {
					return false
				}
			} else if c.used.of(c.gen, r.tool) == 0 && !bad(it, r, -1) {
				return false
			}
		}
	}
	return true
}

// A madeOrphan is an orphan a removed block made, and where its item is
// in the context sent.
type madeOrphan struct {
	orphan
	at int
}

// orphaned notes, for edgesOnly, that the block e removed takes away the
// only call of tool while a result of it is sent: the original message
// holding that result becomes an orphan (added to made). It reports
// false, for a check of the whole context, when the case is not the
// plain one: the result is not the context's only one for the tool, its
// item, searched from the cut on, is not an original message, or an
// orphan already listed is not one.
func (c *checker) orphaned(s *Step, e edit, tool int32, made *[]madeOrphan) bool {
	n := len(c.t.Messages)
	if c.results.of(c.gen, tool) != 1 || slices.ContainsFunc(c.orphans, func(o orphan) bool { return o.key < 0 || o.key >= n }) {
		return false
	}
	for j := e.cut; j < len(s.sent); j++ {
		it := s.sent[j]
		for _, r := range c.toolRefs(it) {
			if r.tool == tool && !r.use {
				k := keyOf(it.ID, n)
				if k < 0 || k >= n {
					return false
				}
				*made = append(*made, madeOrphan{orphan{it.ID, k, tool}, j})
				return true
			}
		}
	}
	return false
}

// addOrphans adds to the orphans those a removed block made (see
// orphaned). An item's orphans are its results, in block order, that
// were orphans before or whose call the block removed; the orphans stay
// in the context's order: by key, since a clean context sends original
// messages in their order and holds no other orphans.
func (c *checker) addOrphans(sent []window.Item, made []madeOrphan) {
	slices.SortStableFunc(made, func(a, b madeOrphan) int { return a.key - b.key })
	for i := 0; i < len(made); {
		k, it := made[i].key, sent[made[i].at]
		end := i + 1
		for end < len(made) && made[end].key == k {
			end++
		}
		lo, _ := slices.BinarySearchFunc(c.orphans, k, func(o orphan, k int) int { return o.key - k })
		hi := lo
		for hi < len(c.orphans) && c.orphans[hi].key == k {
			hi++
		}
		var item []orphan
		for _, r := range c.toolRefs(it) {
			if r.use {
				continue
			}
			was := slices.ContainsFunc(c.orphans[lo:hi], func(o orphan) bool { return o.tool == r.tool })
			now := slices.ContainsFunc(made[i:end], func(o madeOrphan) bool { return o.tool == r.tool })
			if was || now {
				item = append(item, orphan{it.ID, k, r.tool})
			}
		}
		c.orphans = slices.Replace(c.orphans, lo, hi, item...)
		i = end
	}
}

// markEvicted records that the item of key (or, without a key, of id)
// was evicted.
func (c *checker) markEvicted(k int, id string) {
	if k < 0 {
		c.evictedOther[id] = true
		return
	}
	if k >= len(c.evicted) {
		c.evicted = append(c.evicted, make([]bool, k+1-len(c.evicted)+len(c.evicted)/4)...)
	}
	c.evicted[k] = true
}

// settle records, after a whole check, what the next step's check on its
// turn alone needs.
func (c *checker) settle(s *Step, out *[]Violation) {
	c.clean = c.distinct
	others := 0 // violations but the cap's: clean if all are orphans'
	for _, v := range *out {
		if v.Invariant != invCap {
			others++
		}
	}
	if others != len(c.orphans) {
		c.clean = false
	}
	for _, id := range s.Evicted {
		if k := keyOf(id, len(c.t.Messages)); k < 0 || c.marked(c.sentMark, k) {
			c.clean = false
		}
	}
}

// An edit is how a step's context differs from the previous one, when it
// differs only at its edges: items replaced in place by copies with the
// same ids (replaced, the positions; old, what they replaced), or a block
// removed (removed, the items) with the rest kept in order; then the
// messages appended since the previous call (fresh), all sent.
type edit struct {
	fresh    []window.Item
	replaced []int
	old      []window.Item
	removed  []window.Item
	cut      int // where the removed block started
}
