package cline

import (
	"math"
	"strconv"
)

// clineProject is buildBudgetProjection with the basic compaction's
// intent (budget-projection/project.ts): every thinking block dropped,
// and images (media, redacted thinking) outside the live tail and the
// latest typed prompt; then, while over target, messages cut from the
// newest back (each to its share of the target) and dropped from the
// oldest on with every message its tool calls pair it with, the first
// and latest typed prompts and the live tail (from the last tool call
// still waiting for its result) always kept.
func clineProject(msgs []clineMsg, target int) []clineMsg {
	x := clineStripMedia(msgs)
	total := clineTokens(x)
	if total <= target {
		return x
	}
	total = clineCutNewest(x, target, total)
	return clineDropOldest(x, target, total)
}

// clineStripMedia drops every thinking block, and the images outside the
// live tail and the latest typed prompt.
func clineStripMedia(msgs []clineMsg) []clineMsg {
	x := clineMapBlocks(msgs, func(_ int, b *jsValue) *jsValue {
		if b.str("type") == "thinking" {
			return nil
		}
		return b
	})
	latest, tail := clineLastTyped(x), clineLiveTail(x)
	return clineMapBlocks(x, func(i int, b *jsValue) *jsValue {
		if i == latest || i >= tail {
			return b
		}
		switch b.str("type") {
		case "image", "media", "redacted_thinking":
			return nil
		case "tool_result":
			if c := b.field("content"); c != nil && c.kind == 'a' {
				var parts []*jsValue
				for _, e := range c.a {
					if e.str("type") != "image" {
						parts = append(parts, e)
					}
				}
				if len(parts) != len(c.a) {
					return b.with("content", &jsValue{kind: 'a', a: orEmpty(parts)})
				}
			}
		}
		return b
	})
}

// clineCutNewest cuts the text of x's messages in place, from the newest
// back, each to its share of target, while total (x's tokens) is over
// it; it returns the new total. Cutting text changes no role and no tool
// call: the latest typed prompt and the live tail stay where they are
// while it goes on.
func clineCutNewest(x []clineMsg, target, total int) int {
	latest, tail := clineLastTyped(x), clineLiveTail(x)
	for k := len(x) - 1; k >= 0 && total > target; k-- {
		if k == latest || k >= tail || !clineHasText(x[k]) {
			continue
		}
		old := x[k].tokens()
		size := x[k].v.len()
		ratio := math.Max(1, float64(size)/float64(max(1, old)))
		limit := max(16, int(math.Floor(float64(target)*ratio/float64(max(1, len(x))))))
		x[k] = clineCut(x[k], limit)
		total += x[k].tokens() - old
	}
	return total
}

// clineDropOldest drops x's messages from the oldest on, each with every
// message its tool calls pair it with, while total is over target; the
// first and latest typed prompts and the live tail are kept. Dropping
// moves messages: where those are, and which messages each tool call
// links, are found again after each drop only.
func clineDropOldest(x []clineMsg, target, total int) []clineMsg {
	first, last, tail, links := clineFirstTyped(x), clineLastTyped(x), clineLiveTail(x), clineToolLinks(x)
	for k := 0; k < len(x) && total > target; {
		if k == first || k == last {
			k++
			continue
		}
		group := clinePairGroup(x, links, k)
		if group[first] || group[last] || clineReaches(group, tail) {
			k++
			continue
		}
		y := x[:0:0]
		for i, m := range x {
			if group[i] {
				total -= m.tokens()
			} else {
				y = append(y, m)
			}
		}
		x = y
		first, last, tail, links = clineFirstTyped(x), clineLastTyped(x), clineLiveTail(x), clineToolLinks(x)
	}
	return x
}

// clineReaches reports whether group holds a message at tail or after.
func clineReaches(group map[int]bool, tail int) bool {
	for i := range group {
		if i >= tail {
			return true
		}
	}
	return false
}

// clineMapBlocks returns msgs with each block of message i replaced by
// f(i, block), or dropped where f returns nil; a message left with no
// block is dropped.
func clineMapBlocks(msgs []clineMsg, f func(i int, b *jsValue) *jsValue) []clineMsg {
	out := make([]clineMsg, 0, len(msgs))
	for i, m := range msgs {
		kept := make([]*jsValue, 0, len(m.content()))
		changed := false
		for _, b := range m.content() {
			nb := f(i, b)
			changed = changed || nb != b
			if nb != nil {
				kept = append(kept, nb)
			}
		}
		if changed {
			m = m.withContent(kept)
		}
		if len(m.content()) > 0 {
			out = append(out, m)
		}
	}
	return out
}

func orEmpty(v []*jsValue) []*jsValue {
	if v == nil {
		return []*jsValue{}
	}
	return v
}

func clineTokens(msgs []clineMsg) int {
	n := 0
	for _, m := range msgs {
		n += m.tokens()
	}
	return n
}

// clineLastTyped and clineFirstTyped are the projection's latest and
// first typed user message: a user message that is not tool results
// alone (-1: none).
func clineLastTyped(x []clineMsg) int {
	for i := len(x) - 1; i >= 0; i-- {
		if x[i].role() == "user" && !clineToolResultOnly(x[i]) {
			return i
		}
	}
	return -1
}

func clineFirstTyped(x []clineMsg) int {
	for i, m := range x {
		if m.role() == "user" && !clineToolResultOnly(m) {
			return i
		}
	}
	return -1
}

// clineLiveTail is where the live tail starts: the last message with a
// tool call no result answers, else the end.
func clineLiveTail(x []clineMsg) int {
	answered := map[string]bool{}
	for _, m := range x {
		for _, b := range m.content() {
			if b.str("type") == "tool_result" {
				answered[b.str("tool_use_id")] = true
			}
		}
	}
	for i := len(x) - 1; i >= 0; i-- {
		for _, b := range x[i].content() {
			if b.str("type") == "tool_use" && !answered[b.str("id")] {
				return i
			}
		}
	}
	return len(x)
}

// clineToolIDs are the tool call ids a message's calls and results name.
func clineToolIDs(m clineMsg) []string {
	var out []string
	for _, b := range m.content() {
		switch b.str("type") {
		case "tool_use":
			out = append(out, b.str("id"))
		case "tool_result":
			out = append(out, b.str("tool_use_id"))
		}
	}
	return out
}

// clineToolLinks returns, for each tool call id, the messages whose
// calls and results name it.
func clineToolLinks(x []clineMsg) map[string][]int {
	by := map[string][]int{}
	for i, m := range x {
		for _, id := range clineToolIDs(m) {
			if l := by[id]; len(l) == 0 || l[len(l)-1] != i {
				by[id] = append(l, i)
			}
		}
	}
	return by
}

// clinePairGroup is the message k and every message a tool call id
// links it to (links: clineToolLinks), transitively.
func clinePairGroup(x []clineMsg, links map[string][]int, k int) map[int]bool {
	group := map[int]bool{}
	queue := []int{k}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if group[w] {
			continue
		}
		group[w] = true
		for _, id := range clineToolIDs(x[w]) {
			for _, j := range links[id] {
				if !group[j] {
					queue = append(queue, j)
				}
			}
		}
	}
	return group
}

// clineHasText reports whether a message has text to cut: a text, file
// or tool result block.
func clineHasText(m clineMsg) bool {
	for _, b := range m.content() {
		switch b.str("type") {
		case "text", "file", "tool_result":
			return true
		}
	}
	return false
}

// clineCutText is truncateWithNotice: s within limit UTF-16 units, cut
// with "\n...[truncated N chars]".
func clineCutText(s string, limit int) string {
	if limit <= 0 {
		return ""
	}
	n := jsLength(s)
	if n <= limit {
		return s
	}
	if limit <= 16 {
		return jsSlice(s, max(1, limit))
	}
	marker := "\n...[truncated " + strconv.Itoa(n-limit) + " chars]"
	keep := max(1, limit-len(marker))
	return jsSlice(s, keep) + "\n...[truncated " + strconv.Itoa(n-keep) + " chars]"
}

// clineCut is truncateMessageContent: the message's texts, files and
// tool results within limit characters, in order, those past it emptied.
func clineCut(m clineMsg, limit int) clineMsg {
	left := limit
	var out []*jsValue
	for _, b := range m.content() {
		switch b.str("type") {
		case "text", "file":
			b = clineCutPart(b, &left)
		case "tool_result":
			c := clineCutResult(b.field("content"), max(0, left))
			if left > 0 {
				left -= clineResultLength(c)
			}
			b = b.with("content", c)
		}
		out = append(out, b)
	}
	return m.withContent(out)
}

// clineCutPart cuts a text block's text, or a file block's content, to
// the characters left, and takes them from left; with none left, it is
// emptied.
func clineCutPart(b *jsValue, left *int) *jsValue {
	field := "text"
	if b.str("type") == "file" {
		field = "content"
	}
	t := ""
	if *left > 0 {
		t = clineCutText(b.str(field), *left)
		*left -= jsLength(t)
	}
	return b.with(field, jsString(t))
}

// clineCutResult is truncateToolResultContent: a tool result's content
// within limit characters.
func clineCutResult(c *jsValue, limit int) *jsValue {
	if c == nil {
		return c
	}
	if c.kind == 's' {
		return jsString(clineCutText(c.s, limit))
	}
	if c.kind != 'a' {
		return c
	}
	left := limit
	out := make([]*jsValue, 0, len(c.a))
	for _, e := range c.a {
		if t := e.str("type"); t == "text" || t == "file" {
			e = clineCutPart(e, &left)
		}
		out = append(out, e)
	}
	return &jsValue{kind: 'a', a: out}
}

// clineResultLength is the characters of a tool result's content: its
// text, or its texts' and files'.
func clineResultLength(c *jsValue) int {
	if c == nil {
		return 0
	}
	if c.kind == 's' {
		return jsLength(c.s)
	}
	n := 0
	for _, e := range c.a {
		switch e.str("type") {
		case "text":
			n += jsLength(e.str("text"))
		case "file":
			n += jsLength(e.str("content"))
		}
	}
	return n
}
