package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/internal/selfcheck"
)

// TestFlagsOverConfig: a provider flag given on the command line wins over
// the config's provider block, even when it names the default (mock); the
// config's block applies when no flag is given.
func TestFlagsOverConfig(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	body := "transcripts: [TRANSCRIPT]\npolicies: [\"aidf:max_messages=6,preserve_last_n=2,summarize_on_trim=true\"]\nprovider: {name: anthropic}\n"
	cfg := checkSuite(t, body)
	// The config's anthropic provider needs a key: no flag, so it applies.
	for _, cmd := range [][]string{{"replay", "--config", cfg}, {"check", "--config", cfg, "--update"}} {
		if _, stderr, code := ctxbench("", cmd...); code != 2 || !strings.Contains(stderr, "the anthropic provider needs ANTHROPIC_API_KEY") {
			t.Errorf("%s without --summarizer: exit %d, %s", cmd[0], code, stderr)
		}
		// --summarizer mock, the default's value, given explicitly, wins,
		// and so does its old spelling.
		for _, flag := range [][]string{{"--summarizer", "mock"}, {"--provider", "mock"}} {
			if _, stderr, code := ctxbench("", append(cmd, flag...)...); code == 2 {
				t.Errorf("%s %v: exit 2, the config's provider was used: %s", cmd[0], flag, stderr)
			}
		}
	}
}

// TestSummarizerOverConfig: a --summarizer naming the config's provider,
// or none, keeps what the config's block sets that the spec leaves
// unset (its model and base URL); one naming another provider takes
// nothing from it.
func TestSummarizerOverConfig(t *testing.T) {
	var mu sync.Mutex
	var models []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		models = append(models, req.Model)
		mu.Unlock()
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"`+req.Model+`","choices":[{"index":0,"message":{"role":"assistant","content":"A summary."},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":5}}`)
	}))
	defer api.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test-config")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // never this one
	body := "transcripts: [TRANSCRIPT]\npolicies: [\"aidf:max_messages=6,preserve_last_n=2,summarize_on_trim=true,summarize_every=1\"]\nprovider: {name: openai, model: llama3, base_url: " + api.URL + "}\n"
	cfg := checkSuite(t, body)
	for _, spec := range []string{"openai:cache_dir=" + t.TempDir(), ":cache_dir=" + t.TempDir()} {
		mu.Lock()
		models = nil
		mu.Unlock()
		if _, stderr, code := ctxbench("", "replay", "--config", cfg, "--summarizer", spec); code != 0 {
			t.Fatalf("--summarizer %s: exit %d: %s", spec, code, stderr)
		}
		mu.Lock()
		if len(models) == 0 || slices.ContainsFunc(models, func(m string) bool { return m != "llama3" }) {
			t.Errorf("--summarizer %s: requests for %q, want the config's llama3 at its base URL", spec, models)
		}
		mu.Unlock()
	}
}

// TestInterrupted: a cancelled run (Ctrl-C) stops with exit 2, says so,
// and leaves none of its output files.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	cfg := checkSuite(t, "transcripts: [TRANSCRIPT]\npolicies: [none]\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"replay", "--trace", filepath.Join(dir, "trace.jsonl"), corpus + "spotter/tool_heavy.jsonl"},
		{"report", "--out", filepath.Join(dir, "report"), corpus + "spotter/tool_heavy.jsonl"},
		{"sweep", "--policy", "aidf", "--grid", "max_messages=10,20", "--csv", filepath.Join(dir, "sweep.csv"), corpus + "spotter/tool_heavy.jsonl"},
		{"convert", "--to", "anthropic", "-o", filepath.Join(dir, "out.jsonl"), corpus + "spotter/tool_heavy.jsonl"},
		{"check", "--config", cfg, "--update"},
	} {
		var out, errOut strings.Builder
		code := runEnv(args, &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: testGetenv})
		if code != 2 || !strings.Contains(errOut.String(), "ctxbench: error: interrupted") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errOut.String())
		}
	}
	for _, d := range []string{dir, filepath.Dir(cfg)} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "ctxbench.yaml" {
				t.Errorf("an interrupted run left %s", filepath.Join(d, e.Name()))
			}
		}
	}
}

// TestLibraryErrorsNameNoFlags: no error a library package makes names a
// command-line flag (its text has no "--"); the command adds the hint
// that does.
func TestLibraryErrorsNameNoFlags(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "cmd" || d.Name() == "scripts" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !(sel.Sel.Name == "Errorf" || sel.Sel.Name == "New") {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || (x.Name != "fmt" && x.Name != "errors") {
				return true
			}
			checked++
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, _ := strconv.Unquote(lit.Value); strings.Contains(s, "--") {
					t.Errorf("%s: a library error names a flag: %s", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Errorf("%d error constructors found; the walk missed the library", checked)
	}
}

// TestReportsRendersOnly: package internal/report draws what the
// pipeline made and runs none of it: no replay, pricing, sweep or
// estimator count is called from its code (internal/batch runs them).
func TestReportsRendersOnly(t *testing.T) {
	pipeline := map[string][]string{
		"replay":   {"Replay", "NewReplayer", "NewSweeper", "Probes"},
		"cost":     {"Replay", "Compare", "SweepPricer", "SweepError", "Recorded"},
		"estimate": {"Analyze"},
		"batch":    {"New", "Check"},
	}
	files, err := filepath.Glob("../../internal/report/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files of internal/report (%v)", err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			checked++
			if pkg, ok := sel.X.(*ast.Ident); ok && slices.Contains(pipeline[pkg.Name], sel.Sel.Name) {
				t.Errorf("%s: internal/report calls %s.%s: the pipeline's, not a renderer's", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 100 {
		t.Errorf("%d selectors checked; the walk missed the package", checked)
	}
}

// TestImportChain holds the layout: each library package imports, of the
// project's, only those the chain allows (transcript ← estimate, pricing ←
// summarize ← window ← replay ← cost ← internal/suitecheck;
// internal/report above them, and reports, its face, above it;
// internal/probe, on transcript and summarize, under replay;
// internal/batch, the one orchestration, above them all but those two;
// suite, the check's face, on internal/batch), so no arrow runs back up.
// window and transcript each keep their modelled systems and formats in
// rooms under their internal/, below the package and above the
// contract (window/internal/policy) or the model and its decoding
// (transcript/internal/model, …/decode): a room imports no other room,
// and every folder there is in the layout. kong is the command's alone,
// tablewriter and gonum/plot internal/report's, SQLite
// transcript/opencodedb's.
func TestImportChain(t *testing.T) {
	const mod = "github.com/ctxbench/ctxbench/"
	allowed := map[string][]string{
		"transcript":     {"internal/limit"},
		"estimate":       {"transcript", "internal/approx", "internal/family", "internal/imagerule", "internal/jsstring"},
		"pricing":        {"transcript", "internal/limit", "internal/suggest", "internal/dollars", "internal/noprice"},
		"summarize":      {"transcript", "estimate", "pricing", "internal/scan", "internal/limit", "internal/dollars", "internal/conversation"},
		"window":         {"transcript", "estimate", "summarize", "internal/suggest", "internal/countcache"},
		"replay":         {"transcript", "estimate", "pricing", "summarize", "window", "internal/probe", "internal/metric", "internal/countcache", "internal/resolve", "internal/msgid"},
		"cost":           {"transcript", "estimate", "pricing", "window", "replay", "internal/stats", "cost/internal/prefix", "internal/family", "internal/resolve", "internal/retention", "internal/tracefmt", "internal/projection"},
		"suite":          {"pricing", "summarize", "internal/batch", "internal/suitecheck"},
		"internal/batch": {"transcript", "estimate", "pricing", "summarize", "window", "replay", "cost", "internal/limit", "internal/tempfile", "internal/suitecheck", "internal/tracefmt"},
		"reports":        {"cost", "internal/report"},
		"fixtures":       {"transcript"},

		// The check's machinery, under internal/batch and suite.
		"internal/suitecheck": {"transcript", "estimate", "window", "internal/probe", "replay", "cost", "internal/limit", "internal/strictyaml", "internal/metric"},
		// replay's trace, written and read.
		"internal/tracefmt": {"window", "replay"},
		// the settings a report or a sweep weighs.
		"internal/recommend": {"window", "replay"},
		// a policy's cost over sessions, projected to a volume.
		"internal/projection": {"pricing", "internal/stats"},
		// a transcript's recorded output against what its calls wrote.
		"internal/shortfall": {"transcript", "estimate"},
		// the grid of a sweep, read from its flags.
		"internal/sweepgrid": {"window", "replay"},
		// a policy held to the compactions its agent recorded.
		"internal/selfcheck": {"transcript", "summarize", "window", "replay"},

		"internal/scan":       {},
		"internal/limit":      {},
		"internal/swar":       {},
		"internal/printable":  {},
		"internal/strictyaml": {},
		"internal/tempfile":   {},
		"internal/suggest":    {},
		"internal/rework":     {"transcript"},
		"internal/codexcut":   {"internal/approx"},
		"internal/approx":     {},
		"internal/metric":     {},
		"internal/jsonstream": {},
		"internal/probe":      {"transcript", "summarize", "internal/conversation"},
		"internal/report":     {"transcript", "estimate", "pricing", "window", "internal/probe", "replay", "cost", "internal/suitecheck", "internal/printable", "internal/tempfile", "internal/rework", "internal/metric", "internal/recommend", "internal/projection", "internal/shortfall", "internal/selfcheck", "internal/family", "internal/imagerule", "internal/dollars", "internal/noprice", "internal/msgid"},

		// The transcripts the conformance goldens name, from fixtures.
		"internal/conformance": {"transcript", "fixtures"},

		// Below estimate: image rules and tokenizer families; above it,
		// the count cache replays share.
		"internal/imagerule":  {"transcript"},
		"internal/family":     {},
		"internal/countcache": {"transcript", "estimate", "internal/imagerule"},

		// Below pricing: how dollars print and the errors of a model with
		// no price; above it, the shared lookups and the caches' lifetimes.
		"internal/dollars":   {},
		"internal/noprice":   {},
		"internal/resolve":   {"pricing"},
		"internal/retention": {"pricing"},

		// Messages as the plain text summary prompts and probes read.
		"internal/conversation": {"transcript"},

		// Text as JavaScript measures it, and the messages' trace ids.
		"internal/jsstring": {"internal/swar"},
		"internal/msgid":    {},

		// Statistics fed plain numbers (the miss-rate fit, medians,
		// apportioning), and cost's prompt cache.
		"internal/stats":       {},
		"cost/internal/prefix": {},

		"estimate/internal/bpe": {"internal/jsstring"},

		"replay/internal/artifact": {"transcript", "internal/scan"},
		"replay/internal/gram":     {},
		"replay/internal/keymatch": {},

		// window's contract and shared helpers, below its rooms.
		"window/internal/policy":     {"transcript", "estimate", "summarize", "internal/msgid"},
		"window/internal/jsstr":      {"internal/swar"},
		"window/internal/linefit":    {},
		"window/internal/policytest": {"transcript", "estimate", "summarize", "fixtures", "internal/conformance", "window/internal/policy", "window/internal/serveredit", "internal/countcache", "internal/msgid"},
		"window/internal/client":     {"window/internal/policy"},
		"window/internal/serveredit": {"transcript", "summarize", "window/internal/policy", "window/internal/linefit"},
		// window's rooms: one modelled system each.
		"window/internal/prune":      {"transcript", "window/internal/policy", "window/internal/jsstr", "internal/jsstring"},
		"window/internal/crossturn":  {"transcript", "summarize", "window/internal/policy", "internal/msgid"},
		"window/internal/compress":   {"transcript", "summarize", "window/internal/policy"},
		"window/internal/aidf":       {"transcript", "summarize", "internal/limit", "internal/strictyaml", "window/internal/policy"},
		"window/internal/codex":      {"transcript", "estimate", "summarize", "internal/approx", "internal/codexcut", "window/internal/policy"},
		"window/internal/gemini":     {"transcript", "estimate", "summarize", "internal/swar", "window/internal/policy", "window/internal/jsstr", "internal/jsstring"},
		"window/internal/opencode":   {"transcript", "summarize", "window/internal/policy", "internal/jsstring"},
		"window/internal/claudecode": {"transcript", "summarize", "window/internal/policy", "window/internal/linefit", "internal/jsstring"},
		"window/internal/langchain":  {"transcript", "summarize", "internal/approx", "internal/swar", "window/internal/policy", "window/internal/jsstr", "internal/jsstring"},
		"window/internal/cline":      {"transcript", "window/internal/policy", "window/internal/jsstr", "internal/msgid"},
		"window/internal/twotier":    {"transcript", "estimate", "summarize", "internal/approx", "window/internal/policy", "window/internal/client", "window/internal/jsstr", "internal/jsstring"},
		"window/internal/vercel":     {"transcript", "window/internal/policy", "window/internal/client"},
		"window/internal/openai":     {"transcript", "summarize", "window/internal/policy", "window/internal/client", "window/internal/serveredit"},
		"window/internal/anthropic":  {"transcript", "summarize", "window/internal/policy", "window/internal/client", "window/internal/serveredit"},

		// transcript's model and its decoding, below every reader.
		"transcript/internal/model":  {"internal/swar"},
		"transcript/internal/decode": {"transcript/internal/model", "internal/limit", "internal/jsstring"},
		// transcript's rooms: one format (or family) each.
		"transcript/internal/opencode":   {"transcript/internal/model", "transcript/internal/decode"},
		"transcript/internal/atif":       {"transcript/internal/model", "transcript/internal/decode"},
		"transcript/internal/gemini":     {"transcript/internal/model", "transcript/internal/decode"},
		"transcript/internal/openhands":  {"transcript/internal/model", "transcript/internal/decode"},
		"transcript/internal/copilot":    {"transcript/internal/model", "transcript/internal/decode"},
		"transcript/internal/openai":     {"transcript/internal/model", "transcript/internal/decode"},
		"transcript/internal/codex":      {"transcript/internal/model", "transcript/internal/decode", "internal/codexcut", "internal/approx"},
		"transcript/internal/claudecode": {"transcript/internal/model", "transcript/internal/decode", "internal/swar"},
		"transcript/internal/anthropic":  {"transcript/internal/model", "transcript/internal/decode"},
		"transcript/internal/otel":       {"transcript/internal/model", "transcript/internal/decode"},
		// The SQLite leaf: linked by the command, never by transcript.
		"transcript/opencodedb": {"transcript/internal/model", "transcript/internal/decode", "transcript/internal/opencode"},
	}
	// Each package's rooms, and what there is shared by them.
	rooms := map[string]map[string]bool{
		"window":     {"policy": true, "jsstr": true, "linefit": true, "policytest": true, "client": true, "serveredit": true},
		"transcript": {"model": true, "decode": true},
		"replay":     {},
		"cost":       {},
		"estimate":   {},
	}
	room := func(pkg string) bool {
		for parent, shared := range rooms {
			if name, ok := strings.CutPrefix(pkg, parent+"/internal/"); ok && !shared[name] {
				return true
			}
		}
		return false
	}
	// Every package of the module's internal/ is in the layout too.
	shared, err := filepath.Glob("../../internal/*")
	if err != nil || len(shared) == 0 {
		t.Fatalf("internal: no folders (%v)", err)
	}
	for _, dir := range shared {
		if pkg := "internal/" + filepath.Base(dir); allowed[pkg] == nil {
			t.Errorf("%s is not in the layout", pkg)
		}
	}
	for parent := range rooms {
		dirs, err := filepath.Glob(filepath.Join("../..", parent, "internal", "*"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("%s/internal: no folders (%v)", parent, err)
		}
		for _, dir := range dirs {
			if pkg := parent + "/internal/" + filepath.Base(dir); allowed[pkg] == nil {
				t.Errorf("%s is not in the layout", pkg)
			}
		}
	}
	fset := token.NewFileSet()
	for pkg, ok := range allowed {
		used := map[string]bool{}
		files, err := filepath.Glob(filepath.Join("../..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no files (%v)", pkg, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				dep, own := strings.CutPrefix(p, mod)
				used[dep] = true
				// A package imports its own internal packages (each in the
				// layout), and of the rest only what the layout allows.
				if own && !slices.Contains(ok, dep) && !strings.HasPrefix(dep, pkg+"/internal/") {
					t.Errorf("%s imports %s, against the layout", file, p)
				}
				if own && room(pkg) && room(dep) {
					t.Errorf("%s imports %s: a room imports no other room", file, p)
				}
				// SQLite is linked by transcript/opencodedb alone.
				if strings.HasPrefix(p, "modernc.org/sqlite") && pkg != "transcript/opencodedb" {
					t.Errorf("%s imports %s", file, p)
				}
				// Only the command parses flags; only internal/report draws tables
				// and plots.
				if strings.HasPrefix(p, "github.com/alecthomas/kong") ||
					pkg != "internal/report" && (strings.HasPrefix(p, "github.com/olekukonko/tablewriter") || strings.HasPrefix(p, "gonum.org/v1/plot")) {
					t.Errorf("%s imports %s", file, p)
				}
			}
		}
		// The layout allows what is imported, no more: an arrow nothing
		// draws is one a change could draw back up unseen.
		for _, dep := range ok {
			if !used[dep] {
				t.Errorf("the layout lets %s import %s, which it does not", pkg, dep)
			}
		}
	}
}

// TestTokensInvalidUTF8: ctxbench tokens counts a file that is not valid
// UTF-8 as tiktoken counts the text JavaScript decodes it to (the
// references of estimate/testdata, from scripts/reference-counts.sh).
func TestTokensInvalidUTF8(t *testing.T) {
	var texts []string
	var ref struct {
		CL100K []int `json:"cl100k_base"`
		O200K  []int `json:"o200k_base"`
	}
	for name, v := range map[string]any{"../../estimate/testdata/reference-invalid.json": &texts, "../../estimate/testdata/reference-invalid-counts.json": &ref} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 26 {
		raw, _ := base64.StdEncoding.DecodeString(texts[i])
		for enc, want := range map[string]int{"cl100k_base": ref.CL100K[i], "o200k_base": ref.O200K[i]} {
			stdout, stderr, code := ctxbench(string(raw), "tokens", "-e", enc)
			if code != 0 || strings.TrimSpace(stdout) != strconv.Itoa(want) {
				t.Errorf("%q, %s: printed %q (exit %d, %s), tiktoken %d", raw, enc, stdout, code, stderr, want)
			}
		}
	}
}

// TestCostReadsClaudeProjects: cost with no PATH reads Claude Code's
// sessions — $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects — and
// says so; without them it says none was found and exits 2, never
// pricing the embedded samples as if they were the user's.
func TestCostReadsClaudeProjects(t *testing.T) {
	dir := t.TempDir()
	home, config := filepath.Join(dir, "home"), filepath.Join(dir, "config")
	copyFile(t, corpus+"spotter/short.jsonl", filepath.Join(home, ".claude", "projects", "p", "short.jsonl"))
	copyFile(t, corpus+"spotter/tool_heavy.jsonl", filepath.Join(config, "projects", "q", "tool_heavy.jsonl"))
	for _, c := range []struct {
		name         string
		vars         map[string]string
		read, prices string
	}{
		// With no --policy, cost is the bill alone, by session.
		{"home", map[string]string{"HOME": home}, filepath.Join(home, ".claude", "projects"), "| 55604662-cf2a-4331-851a-ec234028f8ca |     1 |"},
		{"CLAUDE_CONFIG_DIR", map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": config}, filepath.Join(config, "projects"), "| d6e0bada-1959-4eec-a9d2-0bfade768d8f |     4 |"},
	} {
		var out, errOut strings.Builder
		code := runEnv([]string{"cost"}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return c.vars[k] }})
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut.String())
		}
		said := strings.Contains(errOut.String(), "reading Claude Code's sessions in "+c.read+" ")
		if c.read != "" && !said || c.read == "" && strings.Contains(errOut.String(), "reading Claude Code's sessions") {
			t.Errorf("%s: stderr %q", c.name, errOut.String())
		}
		if !strings.Contains(out.String(), c.prices) {
			t.Errorf("%s: priced no %s:\n%s", c.name, c.prices, out.String())
		}
	}
}

// TestCommandsDefaultAlike: with no PATH, every command that reads
// transcripts reads Claude Code's sessions where they are found, and
// says so; where none is found, it says so on standard error, writes
// nothing and exits 2; --samples reads the embedded samples instead, and
// with a PATH is an error.
func TestCommandsDefaultAlike(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	copyFile(t, corpus+"spotter/short.jsonl", filepath.Join(home, ".claude", "projects", "p", "short.jsonl"))
	projects := filepath.Join(home, ".claude", "projects")
	run := func(args ...string) (string, string, int) {
		var out, errOut strings.Builder
		code := runEnv(args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string {
			return map[string]string{"HOME": home}[k]
		}})
		return out.String(), errOut.String(), code
	}
	for _, args := range [][]string{
		{"inspect"}, {"estimate"}, {"replay", "--policy", "none"}, {"cost"},
		{"sweep", "--policy", "aidf", "--grid", "max_messages=10,20"},
		{"report", "--out", filepath.Join(dir, "report"), "--policy", "none"},
	} {
		stdout, stderr, code := run(args...)
		if code != 0 || !strings.Contains(stderr, "reading Claude Code's sessions in "+projects+" ") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, stderr)
		}
		if strings.Contains(stdout, "embedded:") {
			t.Errorf("%s read the embedded samples:\n%s", args[0], stdout)
		}
		stdout, stderr, code = run(append(args, "--samples")...)
		if code != 0 || strings.Contains(stderr, "reading Claude Code's sessions") {
			t.Errorf("%s --samples: exit %d, stderr %q", args[0], code, stderr)
		}
		if args[0] == "inspect" && !strings.Contains(stdout, "embedded:") {
			t.Errorf("inspect --samples did not read the samples:\n%s", stdout)
		}
	}
	nobody := func(args ...string) (string, string, int) {
		var out, errOut strings.Builder
		code := runEnv(args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string {
			return map[string]string{"HOME": filepath.Join(dir, "nobody")}[k]
		}})
		return out.String(), errOut.String(), code
	}
	for _, args := range [][]string{
		{"inspect"}, {"estimate"}, {"probes"}, {"replay", "--policy", "none"}, {"cost"}, {"cost", "--policy", "none"},
		{"sweep", "--policy", "aidf", "--grid", "max_messages=10,20"},
		{"report", "--out", filepath.Join(dir, "nobody-report"), "--policy", "none"},
		{"cost", "--shard", "1/2", "--partial", filepath.Join(dir, "part.jsonl")},
	} {
		stdout, stderr, code := nobody(args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "ctxbench: error: no sessions found in ~/.claude/projects (or $CLAUDE_CONFIG_DIR/projects); pass a PATH, or --samples for the embedded samples\n") {
			t.Errorf("%s, no sessions: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nobody-report")); err == nil {
		t.Error("report with no sessions wrote its folder")
	}
	if _, stderr, code := run("inspect", "--samples", corpus+"spotter/short.jsonl"); code != 2 || !strings.Contains(stderr, "--samples and ") {
		t.Errorf("--samples with a PATH: exit %d, stderr %q", code, stderr)
	}
}

// TestAIDFDefaultsOverCap: AIDF's default preserve_last_n (20) with a
// 10-message window sends 21 messages; ctxbench replays it as AIDF runs
// it, warns, reports the cap violations and exits 1.
func TestAIDFDefaultsOverCap(t *testing.T) {
	stdout, stderr, code := ctxbench("", "replay", "--policy", "aidf:max_messages=10,preserve_last_n=20", corpus+"spotter/subagent.jsonl")
	if code != 1 || !strings.Contains(stderr, "ctxbench: warning: ") || !strings.Contains(stderr, "preserve_last_n (20) >= max_messages (10)") ||
		!strings.Contains(stdout, "cap: 21 messages sent; the cap is 10") {
		t.Errorf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
}

// TestMessagesSayWhatHappened: cost over an empty ~/.claude/projects
// says no transcript was found there, exit 2; a transcript with no call is not "left out
// of --since/--until" when neither was given; the stream-json session
// whose result counts calls no line shows has its agent's cost printed
// beside the bill; the claude-code policy says once per session file,
// and only of Claude Code's transcripts, that no version is recorded.
func TestMessagesSayWhatHappened(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude", "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	code := runEnv([]string{"cost"}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string {
		return map[string]string{"HOME": home}[k]
	}})
	if code != exitError || !strings.Contains(errOut.String(), "ctxbench: error: no transcript found in "+filepath.Join(home, ".claude", "projects")) {
		t.Errorf("empty projects: exit %d, stderr %q", code, errOut.String())
	}

	stdout, stderr, code := ctxbench("", "cost", "--policy", "recorded", "../../transcript/testdata/stream-json-model-usage.jsonl", "../../transcript/testdata/codex-encrypted-compaction.jsonl")
	if code != 0 || strings.Contains(stderr, "--since") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if want := "session 5d0c1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f: the agent reported $0.1676, the bill of its recorded usage is $0.1676 (+0.0%)\n"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}

	for file, want := range map[string]int{"codex-encrypted-compaction.jsonl": 0, "stream-json-subagents.jsonl": 1} {
		_, stderr, _ = ctxbench("", "replay", "--policy", "claude-code", "../../transcript/testdata/"+file)
		if n := strings.Count(stderr, "the transcript records no version"); n != want {
			t.Errorf("%s: %d version warnings, want %d:\n%s", file, n, want, stderr)
		}
	}
}

// TestImagesAreAKindOfTheirOwn: inspect counts a screenshot's base64 data
// apart from the characters, and estimate counts the image by Claude's
// rule against the bill.
func TestImagesAreAKindOfTheirOwn(t *testing.T) {
	const file = "../../transcript/testdata/claude-code-screenshot.jsonl"
	stdout, stderr, code := ctxbench("", "inspect", file)
	if code != 0 {
		t.Fatalf("inspect: exit %d, %s", code, stderr)
	}
	for _, want := range []string{"| characters         |    416 | images' data left out: 72,936      |",
		"| images             |      1 | 1,366 tokens by the anthropic rule |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("inspect lacks %q:\n%s", want, stdout)
		}
	}
	stdout, stderr, code = ctxbench("", "estimate", file)
	if code != 0 {
		t.Fatalf("estimate: exit %d, %s", code, stderr)
	}
	if want := "| claude       |           1 |     2 |         1,523 | chars4         |     1,454 |                1.047 |"; !strings.Contains(stdout, want) {
		t.Errorf("estimate lacks %q:\n%s", want, stdout)
	}
}

// TestSelfCheckNewerVersion: the self-check line of a session recorded
// by a Claude Code newer than the policy models says so; an older one's
// does not.
func TestSelfCheckNewerVersion(t *testing.T) {
	c := report.SelfCheck{Label: "claude-code", CompactionCheck: selfcheck.CompactionCheck{Call: 12, Trigger: "auto", PreTokens: 167_200, Fired: 12, Counted: 167_100}, Agrees: true}
	for _, tc := range []struct {
		agent string
		says  bool
	}{{"2.1.39", false}, {"2.0.76", false}, {"", false}, {"2.1.332", true}} {
		line := report.SelfCheckText(c, tc.agent)
		if !strings.HasPrefix(line, "self-check: Claude Code (") || !strings.Contains(line, "agrees (count -100)") {
			t.Errorf("%q: %s", tc.agent, line)
		}
		if got := strings.Contains(line, "replayed with 2.1.39's rules"); got != tc.says {
			t.Errorf("%q: says it is not modelled %v, want %v: %s", tc.agent, got, tc.says, line)
		}
	}
}

// TestAgentPolicyOnItsOwnFiles: the default set's agent policy replays,
// on each file, the policy of the agent that recorded it: claude-code on
// a Claude Code session (which codex replays otherwise), codex on a Codex
// rollout; replay and report default to the one set that holds it.
func TestAgentPolicyOnItsOwnFiles(t *testing.T) {
	row := func(out, policy string) string {
		for _, l := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(l, "| "+policy+" "); ok {
				return strings.TrimLeft(rest, " ")
			}
		}
		t.Fatalf("no row of %s in:\n%s", policy, out)
		return ""
	}
	claude := corpus + "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
	codex := corpus + "codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
	for file, own := range map[string]string{claude: "claude-code", codex: "codex"} {
		stdout, stderr, code := ctxbench("", "replay", "--policy", "agent", "--policy", "claude-code", "--policy", "codex", file)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", file, code, stderr)
		}
		if got, want := row(stdout, "agent"), row(stdout, own); got != want {
			t.Errorf("%s: agent replays\n%s\nnot %s's\n%s", file, got, own, want)
		}
	}
	stdout, _, _ := ctxbench("", "replay", "--policy", "claude-code", "--policy", "codex", claude)
	if row(stdout, "claude-code") == row(stdout, "codex") {
		t.Error("claude-code and codex replay the Claude Code session alike: the test tells nothing")
	}
	for _, cmd := range []string{"replay", "report"} {
		stdout, _, _ := ctxbench("", cmd, "--help")
		if flat := strings.Join(strings.Fields(stdout), " "); !strings.Contains(flat, "(default: "+strings.Join(defaultPolicies, ", ")+")") {
			t.Errorf("%s --help does not name the default set:\n%s", cmd, stdout)
		}
	}
}
