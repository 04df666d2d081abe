package main

import (
	"bufio"
	"bytes"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A docExample is a "$ ctxbench …" line of the manual (main.go's package
// comment) or of README.md, and the output printed under it, if any.
type docExample struct {
	where, line string
	output      []string
}

// docExamples reads the examples of a file: the lines that, once prefix
// is cut, start with "$ " and run ctxbench, each with the lines under it
// up to a blank line or the next example.
func docExamples(t *testing.T, path, prefix string) []docExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []docExample
	var cur *docExample
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, ok := strings.CutPrefix(sc.Text(), prefix)
		switch {
		case ok && strings.HasPrefix(line, "$ ") && strings.Contains(line, "ctxbench "):
			out = append(out, docExample{where: filepath.Base(path) + ":" + strconv.Itoa(n), line: strings.TrimPrefix(line, "$ ")})
			cur = &out[len(out)-1]
		case ok && cur != nil && strings.TrimSpace(line) != "":
			cur.output = append(cur.output, line)
		default:
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shellWords splits a command line as a shell would, for the forms the
// examples use: words, "double" and 'single' quotes.
func shellWords(s string) ([]string, bool) {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, quote == 0
}

// TestDocExamples runs every "$ ctxbench …" example of the manual and of
// README.md, in order, in a folder holding the files they name: a
// session.jsonl, compacted.jsonl (a session Claude Code compacted),
// ~/.claude/projects/my-project/, a ctxbench.yaml. Each must
// exit 0 or 1 (a verdict); where the document shows the output, the output
// must be that. A leading VAR=value sets the environment, a leading
// `echo "text" |` the standard input; the Anthropic API is a fake one.
func TestDocExamples(t *testing.T) {
	examples := append(docExamples(t, "main.go", "//\t"), docExamples(t, "../../README.md", "    ")...)
	for _, name := range commandPages(t) {
		examples = append(examples, docExamples(t, "../../docs/"+name+".md", "    ")...)
	}
	for _, name := range slices.Sorted(maps.Keys(commandExamples)) {
		for _, ex := range commandExamples[name] {
			examples = append(examples, docExample{where: name + " --help", line: ex})
		}
	}
	if len(examples) < 20 {
		t.Fatalf("%d examples found", len(examples))
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	project := filepath.Join(home, ".claude", "projects", "my-project")
	for src, dst := range map[string]string{
		corpus + "spotter/subagent.jsonl":                             filepath.Join(dir, "session.jsonl"),
		corpus + "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": filepath.Join(dir, "compacted.jsonl"),
		corpus + "spotter/tool_heavy.jsonl":                           filepath.Join(project, "tool_heavy.jsonl"),
		corpus + "spotter/short.jsonl":                                filepath.Join(project, "short.jsonl"),
	} {
		copyFile(t, src, dst)
	}
	os.WriteFile(filepath.Join(dir, "ctxbench.yaml"), []byte("transcripts: [session.jsonl]\npolicies:\n  - aidf:max_messages=30,preserve_last_n=8,pair_safe=true\n  - compress\n"), 0o644)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "application/json")
		text := "The agent fixed the build."
		if b, _ := io.ReadAll(r.Body); bytes.Contains(b, []byte(`"system":"You grade`)) {
			text = `{\"accuracy\": 3, \"context_awareness\": 3, \"artifact_trail\": 3, \"completeness\": 3, \"continuity\": 3, \"instruction_following\": 3}` // the probes' LLM judge
		}
		io.WriteString(w, `{"model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"`+text+`"}],"usage":{"input_tokens":900,"output_tokens":7}}`)
	}))
	defer api.Close()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Chdir(dir)
	for _, ex := range examples {
		words, ok := shellWords(ex.line)
		if !ok {
			t.Errorf("%s: unbalanced quotes: %s", ex.where, ex.line)
			continue
		}
		vars := map[string]string{"HOME": home, "ANTHROPIC_BASE_URL": api.URL}
		stdin := ""
		for len(words) > 0 && words[0] != "ctxbench" {
			switch {
			case words[0] == "echo" && len(words) >= 3 && words[2] == "|":
				stdin, words = words[1]+"\n", words[3:]
			case strings.Contains(words[0], "="):
				k, v, _ := strings.Cut(words[0], "=")
				vars[k], words = v, words[1:]
			default:
				t.Fatalf("%s: the test cannot run %q", ex.where, ex.line)
			}
		}
		args := words[1:]
		for i, a := range args {
			if strings.ContainsAny(a, "|<>;&") {
				t.Fatalf("%s: the test cannot run %q: %q", ex.where, ex.line, a)
			}
			if rest, ok := strings.CutPrefix(a, "~/"); ok {
				args[i] = filepath.Join(home, rest)
			}
		}
		var out, errOut strings.Builder
		code := runEnv(args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }})
		if code != 0 && code != 1 {
			t.Errorf("%s: %s: exit %d\n%s", ex.where, ex.line, code, errOut.String())
			continue
		}
		if want := strings.Join(ex.output, "\n"); len(ex.output) > 0 && strings.TrimRight(out.String(), "\n") != want {
			t.Errorf("%s: %s printed\n%s\nthe document says\n%s", ex.where, ex.line, out.String(), want)
		}
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// commandPages returns the commands whose pages (docs/NAME.md) README.md
// links, in its order: the order their examples run in.
func commandPages(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile("\\[`([a-z]+)`\\]\\(docs/([a-z]+)\\.md\\)").FindAllStringSubmatch(string(readme), -1) {
		if !slices.Contains(names, m[1]) && m[1] == m[2] {
			names = append(names, m[1])
		}
	}
	return names
}

// TestManualCoversCommands: the manual has a section and an example for
// every command, and README.md links a page for each, docs/NAME.md,
// which links back.
func TestManualCoversCommands(t *testing.T) {
	manual, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	pages := commandPages(t)
	examples := docExamples(t, "main.go", "//\t")
	typ := reflect.TypeOf(cli{})
	n := 0
	for i := range typ.NumField() {
		f := typ.Field(i)
		if _, ok := f.Tag.Lookup("cmd"); !ok {
			continue
		}
		n++
		name := strings.ToLower(f.Name)
		if !strings.Contains(string(manual), "\n// # "+name+"\n") {
			t.Errorf("the manual has no section # %s", name)
		}
		if !slices.ContainsFunc(examples, func(e docExample) bool {
			return strings.HasPrefix(e.line, "ctxbench "+name) || strings.Contains(e.line, " ctxbench "+name)
		}) {
			t.Errorf("the manual has no example of ctxbench %s", name)
		}
		if !slices.Contains(pages, name) {
			t.Errorf("README.md links no page docs/%s.md", name)
			continue
		}
		page, err := os.ReadFile("../../docs/" + name + ".md")
		if err != nil {
			t.Error(err)
			continue
		}
		if !strings.HasPrefix(string(page), "# ctxbench "+name+" — ") || !strings.Contains(string(page), "](../README.md)") {
			t.Errorf("docs/%s.md does not start with its title and a link back to the README", name)
		}
	}
	if n != 13 {
		t.Errorf("%d commands", n)
	}
}
