package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/printable"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
)

type inspectCmd struct {
	inputFlags
	JSON  bool     `help:"Print one JSON document instead of tables."`
	Paths []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) where found, else the embedded samples (--samples)."`
}

// inspectResult is the --json document.
type inspectResult struct {
	Transcripts  []transcript.Stats       `json:"transcripts"`
	SkippedFiles []transcript.SkippedFile `json:"skipped_files"`
	// Sessions total the usage by session, subagents rolled in, each call
	// once (DuplicateCalls: calls copied from an earlier file).
	Sessions       []sessionUsage `json:"sessions"`
	DuplicateCalls int            `json:"duplicate_calls"`
}

// sessionUsage is a session's usage: its own transcript's and its
// subagents'.
type sessionUsage struct {
	ID          string            `json:"id"`
	Calls       int               `json:"calls"`
	Usage       transcript.Usage  `json:"usage"`
	Transcripts []transcriptUsage `json:"transcripts"`
}

type transcriptUsage struct {
	File       string           `json:"file"`
	ID         string           `json:"id"`
	Subagent   string           `json:"subagent,omitempty"`
	Calls      int              `json:"calls"`
	Usage      transcript.Usage `json:"usage"`
	Duplicates int              `json:"duplicate_calls,omitempty"`
}

func (c *inspectCmd) Run(e *env) error {
	res := inspectResult{Transcripts: []transcript.Stats{}, SkippedFiles: []transcript.SkippedFile{}, Sessions: []sessionUsage{}}
	var ledger cost.Ledger // usage only: no prices
	// Each transcript's summary is made by the goroutine that read it;
	// the content is measured as it is read, not kept.
	summary := func(t *transcript.Transcript) transcript.Stats { return t.Summary() }
	c.inputFlags.measure = true
	skipped, err := readPrepared(e, c.Paths, c.inputFlags, true, summary, func(t *transcript.Transcript, s transcript.Stats) error {
		if err := ledger.Add(t); err != nil {
			return err
		}
		res.Transcripts = append(res.Transcripts, s)
		if c.JSON {
			return nil
		}
		return writeInspectText(e.stdout, s)
	})
	if err != nil {
		return err
	}
	res.SkippedFiles = append(res.SkippedFiles, skipped...)
	res.DuplicateCalls = ledger.Duplicates
	for _, s := range ledger.Sessions {
		su := sessionUsage{ID: s.ID, Calls: s.Calls, Usage: s.Usage}
		for _, tb := range s.Transcripts {
			su.Transcripts = append(su.Transcripts, transcriptUsage{tb.File, tb.ID, tb.Subagent, tb.Calls, tb.Usage, tb.Duplicates})
		}
		res.Sessions = append(res.Sessions, su)
	}
	if c.JSON {
		return e.writeJSON(res)
	}
	if len(res.Transcripts) < 2 {
		return nil
	}
	fmt.Fprintln(e.stdout, "Recorded usage by session")
	return reports.WriteSessions(e.stdout, ledger.Sessions, ledger.Duplicates, false)
}

// writeInspectText writes one transcript's statistics as a titled table.
func writeInspectText(w io.Writer, s transcript.Stats) error {
	models := strings.Join(s.Models, ", ")
	if models == "" {
		models = "model not recorded"
	}
	fmt.Fprintf(w, "%s\n%s · %s · %s\n", printable.String(s.File), s.Format, printable.String(s.ID), printable.String(models))
	u := s.Usage
	cacheNote := ""
	if u.CacheWrite1h > 0 {
		cacheNote = "1-hour: " + reports.Int(u.CacheWrite1h)
	}
	outNote := ""
	if u.Reasoning > 0 {
		outNote = "reasoning: " + reports.Int(u.Reasoning)
	}
	var skippedTotal int
	for _, n := range s.Skipped {
		skippedTotal += n
	}
	t := reports.Table{
		Header: []string{"", "count", "detail"},
		Right:  []bool{false, true, false},
		Rows: [][]string{
			{"messages", reports.Int(s.Messages), roleDetail(s.Roles)},
			{"calls", reports.Int(s.Calls), callsDetail(s)},
			{"tool uses", reports.Int(s.ToolUses), ""},
			{"tool results", reports.Int(s.ToolResults), sentTruncatedDetail(s.SentTruncated)},
			{"thinking blocks", reports.Int(s.Thinking), ""},
			{"characters", reports.Int(s.Characters), charactersDetail(s)},
			{"input tokens", reports.Int(u.Input), "uncached"},
			{"cache read tokens", reports.Int(u.CacheRead), ""},
			{"cache write tokens", reports.Int(u.CacheWrite), cacheNote},
			{"output tokens", reports.Int(u.Output), outNote},
			{"compactions", reports.Int(s.Compactions), ""},
			{"skipped events", reports.Int(skippedTotal), countDetail(s.Skipped)},
		},
	}
	if len(s.Images) > 0 {
		t.Rows = append(t.Rows, []string{"images", reports.Int(len(s.Images)), imagesDetail(s)})
	}
	if r := s.Reported; r != nil {
		t.Rows = append(t.Rows, []string{"agent-reported prompt", reports.Int(r.Prompt()),
			fmt.Sprintf("output %s, $%.4f", reports.Int(r.Output), s.ReportedCostUSD)})
	}
	for _, m := range s.UnattributedByModel {
		u := m.Usage
		t.Rows = append(t.Rows, []string{"calls no record shows", reports.Int(u.Prompt()),
			fmt.Sprintf("%s: prompt (input %s, cache read %s, cache write %s), output %s, by the agent's own totals", m.Model,
				reports.Int(u.Input), reports.Int(u.CacheRead), reports.Int(u.CacheWrite), reports.Int(u.Output))})
	}
	if s.BadRecords > 0 {
		t.Rows = append(t.Rows, []string{"malformed records", reports.Int(s.BadRecords), "skipped (--lenient)"})
	}
	if s.InvalidUTF8 > 0 {
		t.Rows = append(t.Rows, []string{"invalid UTF-8 records", reports.Int(s.InvalidUTF8), "read as U+FFFD"})
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
	return "images' data left out: " + reports.Int(n)
}

// imagesDetail says what the images count by the rule of the session's
// provider (its first model's), or that there is none.
func imagesDetail(s transcript.Stats) string {
	if len(s.Models) == 0 {
		return "no model recorded: no image rule"
	}
	rule := estimate.ImageRuleFor(s.Models[0])
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
	d := fmt.Sprintf("%s tokens by the %s rule", reports.Int(tokens), rule.Name)
	if unsized > 0 {
		d += fmt.Sprintf(", %s of unknown size not counted", reports.Int(unsized))
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
			parts = append(parts, fmt.Sprintf("%s %s", r, reports.Int(n)))
		}
	}
	for _, r := range slices.Sorted(maps.Keys(roles)) {
		if transcript.Role(r).Known() {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", r, reports.Int(roles[r])))
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
		parts[i] = fmt.Sprintf("%s %s", k, reports.Int(m[k]))
	}
	return strings.Join(parts, ", ")
}

func callsDetail(s transcript.Stats) string {
	d := reports.Int(s.CallsWithUsage) + " with recorded usage"
	if u := s.Unattributed; u != nil {
		if p := u.Prompt(); p > 0 {
			d += fmt.Sprintf("; %s prompt tokens recorded apart from the calls (per turn, or summed)", reports.Int(p))
		}
		if u.Output > 0 {
			d += fmt.Sprintf("; %s output tokens recorded apart from the calls", reports.Int(u.Output))
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
	return reports.Int(n) + " cut by the agent's truncation policy: counted as sent"
}
