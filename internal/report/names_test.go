package report

import (
	"encoding/csv"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// Names read from transcripts that are markup or spreadsheet formulas.
const (
	scriptName  = "<script>alert(1)</script><img src=x onerror=alert(2)>"
	formulaName = "=cmd|calc!A1.jsonl"
)

// hostileNames are transcripts whose file and model names are markup and
// formulas: a session named as a formula whose model is markup (not
// priced), one named as markup at gpt-4o, and one named "@SUM(A1)" at a
// model named "+1+1".
func hostileNames(t testing.TB) []*transcript.Transcript {
	t.Helper()
	var ts []*transcript.Transcript
	for _, s := range []struct{ file, model string }{{formulaName, scriptName}, {scriptName + ".jsonl", "gpt-4o"}, {"@SUM(A1).jsonl", "+1+1"}} {
		var body strings.Builder
		for range 2 {
			fmt.Fprintf(&body, `{"role":"user","content":"q"}`+"\n"+`{"role":"assistant","content":"a","model":%q,"usage":{"prompt_tokens":10,"completion_tokens":1}}`+"\n", s.model)
		}
		got, err := transcript.Parse([]byte(body.String()), s.file, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, got...)
	}
	return ts
}

// TestNamesAreText: file and model names that are HTML and spreadsheet
// formulas reach report.md as text (no "<" in it at all: the report's own
// Markdown has none), index.html escaped by html/template, and the CSVs
// as cells no spreadsheet takes for a formula — each name still there,
// escaped.
func TestNamesAreText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := WriteReport(dir, commandReport(t, hostileNames(t))); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	md := read("report.md")
	if i := strings.Index(md, "<"); i >= 0 {
		t.Errorf("report.md holds markup: %q", md[max(0, i-40):min(len(md), i+80)])
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;", "=cmd\\|calc!A1.jsonl"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	page := read("index.html")
	for _, raw := range []string{"<script>alert", "<img src=x", "onerror=alert(2)>"} {
		if strings.Contains(page, raw) {
			t.Errorf("index.html holds %q raw", raw)
		}
	}
	if !strings.Contains(page, html.EscapeString(scriptName)) {
		t.Errorf("index.html lacks %q", html.EscapeString(scriptName))
	}
	for _, name := range []string{"summary.csv", "steps.csv", "sweep.csv"} {
		rows, err := csv.NewReader(strings.NewReader(read(name))).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		firsts := map[string]bool{}
		for _, row := range rows {
			firsts[row[0]] = true
			for _, cell := range row {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
					if _, err := strconv.ParseFloat(cell, 64); err != nil {
						t.Errorf("%s: cell %q", name, cell)
					}
				}
			}
		}
		if name != "sweep.csv" && (!firsts["'"+formulaName] || !firsts["'@SUM(A1).jsonl"]) {
			t.Errorf("%s: first cells %v, want %q and %q among them", name, firsts, "'"+formulaName, "'@SUM(A1).jsonl")
		}
	}
}

// TestOneCSVWriter: the module writes CSV in one place, newCSVWriter,
// whose cells are made safe for a spreadsheet: no other source file
// makes an encoding/csv Writer.
func TestOneCSVWriter(t *testing.T) {
	var at []string
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "../.." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for range strings.Count(string(b), "csv.NewWriter(") {
			at = append(at, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != 1 || at[0] != "../../internal/report/report.go" {
		t.Errorf("csv.NewWriter in %v, want ../../internal/report/report.go alone (newCSVWriter)", at)
	}
}

// TestShortCellKeepsTheFileName: a question or an answer cut for the
// probes' table keeps its end, a path's file name, and is 80 characters.
func TestShortCellKeepsTheFileName(t *testing.T) {
	q := "What was last done to /home/USER/projects/spotter-worktrees/spotter-dov/lib/spotter_web/live/session_live.ex?"
	got := shortCell(q)
	if n := len([]rune(got)); n != 80 || !strings.HasSuffix(got, "/session_live.ex?") || !strings.HasPrefix(got, "What was last done to /home/") {
		t.Errorf("%q (%d characters)", got, n)
	}
	if s := "What happened when the agent ran `bd ready`?"; shortCell(s) != s {
		t.Errorf("a short cell is cut: %q", shortCell(s))
	}
}
