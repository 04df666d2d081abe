package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/imagerule"
	"github.com/ctxbench/ctxbench/internal/printable"
	"github.com/ctxbench/ctxbench/transcript"
)

// WriteStats writes one transcript's statistics ([transcript.Stats]),
// `ctxbench inspect`'s text: its file, format, id and models, then a
// table of its counts, each with what it leaves out.
func WriteStats(w io.Writer, s transcript.Stats) error {
	models := strings.Join(s.Models, ", ")
	if models == "" {
		models = "model not recorded"
	}
	fmt.Fprintf(w, "%s\n%s · %s · %s\n", printable.String(s.File), s.Format, printable.String(s.ID), printable.String(models))
	u := s.Usage
	cacheNote := ""
	if u.CacheWrite1h > 0 {
		cacheNote = "1-hour: " + Int(u.CacheWrite1h)
	}
	outNote := ""
	if u.Reasoning > 0 {
		outNote = "reasoning: " + Int(u.Reasoning)
	}
	var skippedTotal int
	for _, n := range s.Skipped {
		skippedTotal += n
	}
	t := Table{
		Header: []string{"", "count", "detail"},
		Right:  []bool{false, true, false},
		Rows: [][]string{
			{"messages", Int(s.Messages), roleDetail(s.Roles)},
			{"calls", Int(s.Calls), callsDetail(s)},
			{"tool uses", Int(s.ToolUses), ""},
			{"tool results", Int(s.ToolResults), sentTruncatedDetail(s.SentTruncated)},
			{"thinking blocks", Int(s.Thinking), ""},
			{"characters", Int(s.Characters), charactersDetail(s)},
			{"input tokens", Int(u.Input), "uncached"},
			{"cache read tokens", Int(u.CacheRead), ""},
			{"cache write tokens", Int(u.CacheWrite), cacheNote},
			{"output tokens", Int(u.Output), outNote},
			{"compactions", Int(s.Compactions), ""},
			{"skipped events", Int(skippedTotal), countDetail(s.Skipped)},
		},
	}
	if len(s.Images) > 0 {
		t.Rows = append(t.Rows, []string{"images", Int(len(s.Images)), imagesDetail(s)})
	}
	if r := s.Reported; r != nil {
		t.Rows = append(t.Rows, []string{"agent-reported prompt", Int(r.Prompt()),
			fmt.Sprintf("output %s, $%.4f", Int(r.Output), s.ReportedCostUSD)})
	}
	for _, m := range s.UnattributedByModel {
		u := m.Usage
		t.Rows = append(t.Rows, []string{"calls no record shows", Int(u.Prompt()),
			fmt.Sprintf("%s: prompt (input %s, cache read %s, cache write %s), output %s, by the agent's own totals", m.Model,
				Int(u.Input), Int(u.CacheRead), Int(u.CacheWrite), Int(u.Output))})
	}
	if s.BadRecords > 0 {
		t.Rows = append(t.Rows, []string{"malformed records", Int(s.BadRecords), "skipped (--lenient)"})
	}
	if s.InvalidUTF8 > 0 {
		t.Rows = append(t.Rows, []string{"invalid UTF-8 records", Int(s.InvalidUTF8), "read as U+FFFD"})
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// charactersDetail says what the characters leave out: the images' data.
func charactersDetail(s transcript.Stats) string {
	n := 0
	for _, im := range s.Images {
		n += im.Chars
	}
	if n == 0 {
		return ""
	}
	return "images' data left out: " + Int(n)
}

// imagesDetail says what the images count by the rule of the session's
// provider (its first model's), or that there is none.
func imagesDetail(s transcript.Stats) string {
	if len(s.Models) == 0 {
		return "no model recorded: no image rule"
	}
	rule := imagerule.For(s.Models[0])
	if rule == nil {
		return "no image rule known for " + s.Models[0]
	}
	tokens, unsized := 0, 0
	for _, im := range s.Images {
		if n, ok := rule.Tokens(im); ok {
			tokens += n
		} else {
			unsized++
		}
	}
	d := fmt.Sprintf("%s tokens by the %s rule", Int(tokens), rule.Name)
	if unsized > 0 {
		d += fmt.Sprintf(", %s of unknown size not counted", Int(unsized))
	}
	return d
}

// roleDetail lists message counts by role: the known roles in a fixed
// order, then any others by name.
func roleDetail(roles map[string]int) string {
	order := []string{"system", "user", "assistant", "tool"}
	var parts []string
	for _, r := range order {
		if n := roles[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", r, Int(n)))
		}
	}
	for _, r := range slices.Sorted(maps.Keys(roles)) {
		if transcript.Role(r).Known() {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", r, Int(roles[r])))
	}
	return strings.Join(parts, ", ")
}

// countDetail lists counts by name, largest first, then by name.
func countDetail(m map[string]int) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(m[b]-m[a], strings.Compare(a, b))
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %s", k, Int(m[k]))
	}
	return strings.Join(parts, ", ")
}

func callsDetail(s transcript.Stats) string {
	d := Int(s.CallsWithUsage) + " with recorded usage"
	if u := s.Unattributed; u != nil {
		if p := u.Prompt(); p > 0 {
			d += fmt.Sprintf("; %s prompt tokens recorded apart from the calls (per turn, or summed)", Int(p))
		}
		if u.Output > 0 {
			d += fmt.Sprintf("; %s output tokens recorded apart from the calls", Int(u.Output))
		}
	}
	return d
}

// sentTruncatedDetail says how many tool results the agent cut before
// sending them, when it cut any.
func sentTruncatedDetail(n int) string {
	if n == 0 {
		return ""
	}
	return Int(n) + " cut by the agent's truncation policy: counted as sent"
}
