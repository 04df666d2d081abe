package report

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/transcript"
)

// writePage writes r's report and returns its folder and its page.
func writePage(t *testing.T, r *Report) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "report")
	index, err := WriteReport(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	return dir, string(b)
}

// sessionsReport is fixtureReport's session as several: each copy
// with its ID and calls, and a cost scaled by scale.
func sessionsReport(ids []string, calls []int, scale []float64) *Report {
	r := fixtureReport()
	one := r.Transcripts[0]
	r.Transcripts = nil
	for i, id := range ids {
		tr := one
		tr.ID, tr.File, tr.Calls = id, "embedded:spotter/"+strings.ReplaceAll(id, "/", "-")+".jsonl", calls[i]
		tr.Runs = append([]PolicyResult(nil), one.Runs...)
		for k := range tr.Runs {
			c := *tr.Runs[k].CostUSD * scale[i]
			tr.Runs[k].CostUSD = &c
		}
		r.Transcripts = append(r.Transcripts, tr)
	}
	return r
}

// TestPageAnswerFirst: the recommendation comes before the first table.
func TestPageAnswerFirst(t *testing.T) {
	_, html := writePage(t, fixtureReport())
	rec, table := strings.Index(html, `id="recommendation"`), strings.Index(html, "<table")
	if rec < 0 || table < 0 || rec > table {
		t.Errorf("the recommendation is at byte %d, the first table at %d", rec, table)
	}
}

// TestMarkdownAnswerFirst: report.md, as the page, says the
// recommendation before its first table and before the cost section.
func TestMarkdownAnswerFirst(t *testing.T) {
	r := fixtureReport()
	var b strings.Builder
	if err := writeMarkdown(&b, r, nil, []bool{true}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	rec, table, costs := strings.Index(md, "**Recommended: "), strings.Index(md, "\n| "), strings.Index(md, CostSectionTitle)
	if rec < 0 || table < 0 || costs < 0 || rec > table || rec > costs {
		t.Errorf("the recommendation is at byte %d, the first table at %d, the cost section at %d:\n%s", rec, table, costs, md)
	}
}

// TestPageOpensTheCostliest: the session open on the page is the one
// that costs the most, not the first (a one-call session with no plots).
func TestPageOpensTheCostliest(t *testing.T) {
	_, html := writePage(t, sessionsReport([]string{"a", "b", "c"}, []int{1, 4, 4}, []float64{0.1, 1, 3}))
	open := regexp.MustCompile(`<details id="(session-\d+)"[^>]* open>`).FindAllStringSubmatch(html, -1)
	if len(open) != 1 || open[0][1] != "session-3" {
		t.Errorf("open sections %v, want session-3 alone", open)
	}
}

// TestPageSubagentsUnderTheirSession: a subagent's section is inside its
// session's, named as the subagent; one whose session is not in the
// report stands alone and names it.
func TestPageSubagentsUnderTheirSession(t *testing.T) {
	r := sessionsReport([]string{"p/agent-x", "p", "q", "gone/agent-y"}, []int{4, 4, 4, 4}, []float64{1, 1, 1, 1})
	r.Transcripts[0].Parent, r.Transcripts[3].Parent = "p", "gone"
	_, html := writePage(t, r)
	nested := regexp.MustCompile(`(?s)<details id="session-2"[^>]*>.*?<details id="session-1"[^>]*><summary>subagent agent-x — .*?</details>\n</details>\n<details id="session-3"`)
	if !nested.MatchString(html) {
		t.Errorf("the subagent is not inside its session's section:\n%s", html)
	}
	if !strings.Contains(html, `(claude-code), a subagent of session <code>gone</code></p>`) {
		t.Error("a subagent whose session is not in the report does not name it")
	}
	if got := strings.Count(html, "<details "); got != 4 || strings.Count(html, "</details>") != 4 {
		t.Errorf("%d sections, want 4", got)
	}
	// The costliest a subagent: its session opens too.
	r.Transcripts[0].Runs[0].CostUSD = new(10.0)
	_, html = writePage(t, r)
	open := regexp.MustCompile(`<details id="(session-\d+)"[^>]* open>`).FindAllStringSubmatch(html, -1)
	if len(open) != 2 || open[0][1] != "session-2" || open[1][1] != "session-1" {
		t.Errorf("open sections %v, want the subagent's and its session's", open)
	}
}

// TestMarkdownSubagentsUnderTheirSession: report.md lists a subagent's
// runs under its session's, named as the subagent, as the page nests
// it; one whose session is not in the report stands alone and names it.
func TestMarkdownSubagentsUnderTheirSession(t *testing.T) {
	r := sessionsReport([]string{"p/agent-x", "p", "q", "gone/agent-y"}, []int{4, 4, 4, 4}, []float64{1, 1, 1, 1})
	r.Transcripts[0].Parent, r.Transcripts[3].Parent = "p", "gone"
	var b strings.Builder
	if err := writeMarkdown(&b, r, nil, []bool{true, true, true, true}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^\| ([^|]*?) +\| none +\|`).FindAllStringSubmatch(b.String(), -1) {
		got = append(got, m[1])
	}
	want := []string{"spotter/p.jsonl", "└ subagent agent-x", "spotter/q.jsonl", "spotter/gone-agent-y.jsonl (a subagent of session gone)"}
	if !slices.Equal(got, want) {
		t.Errorf("report.md's sessions, in order: %q\nwant %q", got, want)
	}
}

// TestPageNoCachePlot: a session whose bill has no prompt cache draws
// no cache plot, and the page says why.
func TestPageNoCachePlot(t *testing.T) {
	r := fixtureReport()
	for k := range r.Transcripts[0].Runs {
		p := &r.Transcripts[0].Runs[k]
		p.CacheBreaks, p.Events = &cost.CacheBreaks{}, []int{2}
		p.CacheRead, p.CacheWrite = make([]int64, 4), make([]int64, 4)
	}
	dir, html := writePage(t, r)
	if _, err := os.Stat(filepath.Join(dir, "cache-1.png")); err == nil {
		t.Error("an empty cache plot is drawn")
	}
	if !strings.Contains(html, "no prompt cache in the bill") {
		t.Error("the page does not say the bill has no prompt cache")
	}
	r.Transcripts[0].Runs[1].CacheWrite[1] = 100
	if dir, html := writePage(t, r); strings.Contains(html, "no prompt cache") || !fileExists(filepath.Join(dir, "cache-1.png")) {
		t.Error("a session with cache writes has no cache plot")
	}
}

func fileExists(name string) bool { _, err := os.Stat(name); return err == nil }

// svgLegend matches a legend entry of an SVG plot: its line's colour,
// then its text.
var svgLegend = regexp.MustCompile(`stroke:#([0-9A-F]{6})[^>]*/>\s*<text[^>]*>([^<]+)</text>`)

// TestPageOneColourPerPolicy: a policy has the colour of its key on the
// page in every plot, whichever policies a plot merges into one line
// (none = aidf on one session's tokens, apart on the next).
func TestPageOneColourPerPolicy(t *testing.T) {
	r := sessionsReport([]string{"a", "b"}, []int{4, 4}, []float64{1, 2})
	r.Policies = append(r.Policies, "prune")
	for i := range r.Transcripts {
		tr := &r.Transcripts[i]
		third := tr.Runs[1]
		third.Label, third.Tokens = "prune", []int{10, 20, 20, 20}
		if i == 0 {
			tr.Runs[1].Tokens = tr.Runs[0].Tokens // none = aidf:max_messages=3
		}
		tr.Runs = append(tr.Runs, third)
	}
	dir, html := writePage(t, r)
	keys := map[string]string{}
	for _, m := range regexp.MustCompile(`data-policy="([^"]+)"><td class="p"><span class="key" style="border-top:3px solid #([0-9a-f]{6})">`).FindAllStringSubmatch(html, -1) {
		keys[m[1]] = strings.ToUpper(m[2])
	}
	if len(keys) != 3 || keys["none"] == keys["prune"] || keys["prune"] == keys["aidf:max_messages=3"] {
		t.Fatalf("the page's keys %v, want 3 colours", keys)
	}
	seen := 0
	for _, f := range []string{"growth-tokens-1.svg", "growth-tokens-2.svg", "growth-messages-1.svg", "cost-2.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range svgLegend.FindAllStringSubmatch(string(b), -1) {
			first, _, _ := strings.Cut(m[2], " = ")
			if want, ok := keys[first]; ok {
				seen++
				if m[1] != want {
					t.Errorf("%s: %s is #%s, its key #%s", f, m[2], m[1], want)
				}
			}
		}
	}
	if seen < 8 {
		t.Errorf("%d legend entries of policies checked", seen)
	}
}

// TestLedeHasNoSyntheticModel: Claude Code's "<synthetic>" lines name no
// model of the page's lede.
func TestLedeHasNoSyntheticModel(t *testing.T) {
	ts, err := transcript.ReadFile("../../transcript/testdata/claude-code-synthetic.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := commandReport(t, ts)
	if o := overviewText(r.Overview()); strings.Contains(o, "<synthetic>") || !strings.Contains(o, "claude") {
		t.Errorf("the lede says %q", o)
	}
	if _, html := writePage(t, r); strings.Contains(html, "&lt;synthetic&gt;") || strings.Contains(html, "<synthetic>") {
		t.Error("the page names the synthetic model")
	}
}
