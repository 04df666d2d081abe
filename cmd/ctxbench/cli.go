package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/ctxbench/ctxbench/internal/printable"
	"github.com/ctxbench/ctxbench/internal/recommend"
	"github.com/ctxbench/ctxbench/transcript"
)

// cli is the command-line grammar.
type cli struct {
	Version kong.VersionFlag `help:"Print the version and exit."`
	Indent  bool             `help:"Indent the --json document (default: one compact line)."`

	Inspect inspectCmd `cmd:"" help:"Summarize transcripts: messages, calls, tools, recorded usage, skipped events."`
	Convert convertCmd `cmd:"" help:"Convert transcripts to openai-chat, anthropic or otel JSON Lines."`
	Probes  probesCmd  `cmd:"" help:"Ask what a policy lost: probes about the messages it stopped sending, judged against what it sent."`
	Gen     genCmd     `cmd:"" help:"Write a deterministic synthetic transcript."`

	Tokens   tokensCmd   `cmd:"" help:"Count the tokens of text files or standard input."`
	Estimate estimateCmd `cmd:"" help:"Measure how far token heuristics are from exact counts and from billed usage."`

	Summarize summarizeCmd `cmd:"" help:"Summarize a transcript's messages with a summarization provider."`
	Policies  policiesCmd  `cmd:"" help:"List the context-window policies, their parameters, defaults and sources."`
	Replay    replayCmd    `cmd:"" help:"Replay transcripts through policies: what each call would have sent, and the invariants."`
	Sweep     sweepCmd     `cmd:"" help:"Replay a policy over a grid of parameters, in parallel."`
	Cost      costCmd      `cmd:"" help:"What each policy would have cost, prompt cache included, against the bill."`
	Report    reportCmd    `cmd:"" help:"The main job: replay, cost and plots of every policy in one folder with an index page."`
	Check     checkCmd     `cmd:"" help:"Regression-test trimming in CI: invariants, budgets and a baseline."`
}

// env is what commands read from and write to, and the context that
// cancels them (Ctrl-C).
type env struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// hinted are the hints already printed: each is printed once.
	hinted map[string]bool
	// indent says to indent --json documents.
	indent bool
}

// Exit statuses.
const (
	exitOK      = 0
	exitVerdict = 1 // a check failed
	exitError   = 2 // a usage or input error
)

// errVerdict marks an error that is a failed verdict (exit 1) rather than
// a usage or input error (exit 2).
var errVerdict = errors.New("verdict failed")

// hinted is an error with what to do about it, printed after it as
// "ctxbench: hint: …". Library errors say what went wrong; the command
// knows which of its flags mends it.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

// withHint attaches hint to err (nothing when hint is "").
func withHint(err error, hint string) error {
	if err == nil || hint == "" {
		return err
	}
	return &hinted{err, hint}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: printable.Writer(stdout)}
	code := runEnv(args, &env{ctx: ctx, stdin: os.Stdin, stdout: out, stderr: printable.Writer(stderr), getenv: os.Getenv})
	if out.err != nil && code != exitError {
		fmt.Fprintf(stderr, "ctxbench: error: writing standard output: %v\n", out.err)
		return exitError
	}
	return code
}

// A checkedWriter keeps the first error writing to w: output that could
// not be written (a full disk, a closed pipe) fails the command instead
// of being lost with exit 0.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.err = err
	return n, err
}

// maxFlags bounds the flags of a command line. The parser keeps the
// arguments left after each flag (github.com/alecthomas/kong's Path), so
// its memory grows with their square: 2,000 flags take about 128 MB of
// it, 10,000 took 4.4 GB. Paths, which are not flags, are not bounded.
const maxFlags = 2000

// countFlags counts the flags in args, up to a "--".
func countFlags(args []string) int {
	n := 0
	for _, a := range args {
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' {
			n++
		}
	}
	return n
}

func runEnv(args []string, e *env) int {
	if e.ctx == nil {
		e.ctx = context.Background()
	}
	if e.getenv == nil {
		e.getenv = func(string) string { return "" }
	}
	var c cli
	exited := -1
	parser, err := kong.New(&c,
		kong.Name("ctxbench"),
		kong.Description("Replay recorded LLM-agent transcripts through context-window policies."),
		kong.Writers(e.stdout, e.stderr),
		kong.Exit(func(code int) {
			if exited < 0 {
				exited = code
			}
		}),
		kong.Vars{"version": versionLine(), "formats": formatNames(), "default_policies": strings.Join(defaultPolicies, ", "),
			"min_probe_score": strconv.FormatFloat(recommend.DefaultMinProbeScore, 'g', -1, 64)},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.ExplicitGroups([]kong.Group{
			{Key: "input", Title: "Reading transcripts:"},
			{Key: "summarizer", Title: "Summarizer (for the policies that summarize):"},
		}),
		kong.ValueFormatter(helpWithDefault),
	)
	if err != nil {
		fmt.Fprintf(e.stderr, "ctxbench: error: %v\n", err)
		return exitError
	}
	if n := countFlags(args); n > maxFlags {
		fmt.Fprintf(e.stderr, "ctxbench: error: %d flags, more than the %d ctxbench reads (the parser's memory grows with their square); to try many settings of one policy, use sweep\n", n, maxFlags)
		return exitError
	}
	ctx, err := parser.Parse(args)
	if exited >= 0 { // --help or --version
		return exited
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "ctxbench: error: %v\n", err)
		fmt.Fprintf(e.stderr, "ctxbench: hint: run '%s --help' for usage\n", helpCommand(err))
		return exitError
	}
	e.indent = c.Indent
	if err := ctx.Run(e); err != nil {
		if errors.Is(err, errVerdict) {
			return exitVerdict
		}
		if errors.Is(err, context.Canceled) && e.ctx.Err() != nil {
			fmt.Fprintln(e.stderr, "ctxbench: error: interrupted")
			return exitError
		}
		fmt.Fprintf(e.stderr, "ctxbench: error: %s\n", printable.String(err.Error()))
		var h *hinted
		if errors.As(err, &h) {
			fmt.Fprintf(e.stderr, "ctxbench: hint: %s\n", printable.String(h.hint))
		}
		return exitError
	}
	return exitOK
}

// warn prints a warning on standard error, and its hint the first time.
func (e *env) warn(err error) {
	fmt.Fprintf(e.stderr, "ctxbench: warning: %s\n", printable.String(err.Error()))
	var h *hinted
	if errors.As(err, &h) && !e.hinted[h.hint] {
		if e.hinted == nil {
			e.hinted = map[string]bool{}
		}
		e.hinted[h.hint] = true
		fmt.Fprintf(e.stderr, "ctxbench: hint: %s\n", printable.String(h.hint))
	}
}

func formatNames() string {
	var names []string
	for _, f := range transcript.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ",")
}

// inputFlags are the flags of every command that reads transcripts.
type inputFlags struct {
	Lenient bool   `help:"Skip malformed records (counted and listed) instead of stopping at the first."`
	Format  string `help:"Read every input as this format instead of detecting it (${formats})." placeholder:"F"`
	Samples bool   `help:"Read the sample transcripts embedded in ctxbench instead of a PATH."`
	// measure reads the content measured, not kept
	// (transcript.Options.Measure): what a command that only counts sets.
	measure bool
	// selectFile reads only the inputs of a shard
	// (transcript.Options.Select).
	selectFile func(path string) bool
	// replaced are the folders the command writes by replacing them
	// whole (--out, --parquet, --jsonl): a transcript read from inside
	// one, found by a walk of a folder that holds it, stops the read, as
	// refuseInput refuses one named there before it.
	replaced []outFolder
}

// An outFolder is a folder a flag names for output.
type outFolder struct{ flag, path string }

// replaces refuses out, the folder flag names, which the command writes
// by replacing it whole, when it is or holds one of the inputs named
// (refuseInput), and has the read refuse a transcript found in it; ""
// names none.
func (f *inputFlags) replaces(flag, out string, inputs []string) error {
	if out == "" {
		return nil
	}
	if err := refuseInput(flag, out, inputs); err != nil {
		return err
	}
	f.replaced = append(f.replaced, outFolder{flag, out})
	return nil
}

func (f inputFlags) options() (transcript.Options, error) {
	opt := transcript.Options{Lenient: f.Lenient, Measure: f.measure, Select: f.selectFile}
	if f.Format != "" {
		var err error
		if opt.Format, err = parseFormat(f.Format); err != nil {
			return opt, fmt.Errorf("--format: %w", err)
		}
	}
	return opt, nil
}

// errNoSessions is what a command with no PATH says when Claude Code's
// sessions are not found: it never reads the embedded samples in their
// place, which only --samples asks for.
var errNoSessions = errors.New("no sessions found in ~/.claude/projects (or $CLAUDE_CONFIG_DIR/projects); pass a PATH, or --samples for the embedded samples")

// defaultPaths returns paths; none given, Claude Code's sessions where
// they are found; nil when --samples asks for the embedded samples, or
// when none is found.
func (f inputFlags) defaultPaths(e *env, paths []string) []string {
	if len(paths) > 0 || f.Samples {
		return paths
	}
	return claudeProjects(e)
}

// claudeProjects returns Claude Code's sessions folder
// (~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects) when it exists,
// and says on e.stderr that it reads it; else nothing.
func claudeProjects(e *env) []string {
	dir := e.getenv("CLAUDE_CONFIG_DIR")
	if dir == "" && e.getenv("HOME") != "" {
		dir = filepath.Join(e.getenv("HOME"), ".claude")
	}
	projects := filepath.Join(dir, "projects")
	if fi, err := os.Stat(projects); dir != "" && err == nil && fi.IsDir() {
		fmt.Fprintf(e.stderr, "ctxbench: reading Claude Code's sessions in %s (pass a PATH for others, --samples for the embedded samples)\n", projects)
		return []string{projects}
	}
	return nil
}

// readInputs calls fn with every transcript of paths; when paths is empty
// and samples is true, of Claude Code's sessions ([claudeProjects]), or
// of the embedded samples with --samples; with neither found, it fails
// with [errNoSessions]. It warns on e.stderr
// about the files it skipped (in no known format) and the malformed
// records a lenient read skipped.
func readInputs(e *env, paths []string, f inputFlags, samples bool, fn func(*transcript.Transcript) error) ([]transcript.SkippedFile, error) {
	return readPrepared(e, paths, f, samples, nil, func(t *transcript.Transcript, _ struct{}) error { return fn(t) })
}

// readPrepared is readInputs, with prepare (when not nil) called on each
// transcript by the goroutine that read it, ahead of fn, and what it made
// given to fn ([transcript.WalkPrepared]); the embedded samples are
// prepared just before fn.
func readPrepared[P any](e *env, paths []string, f inputFlags, samples bool, prepare func(*transcript.Transcript) P, fn func(*transcript.Transcript, P) error) ([]transcript.SkippedFile, error) {
	opt, err := f.options()
	if err != nil {
		return nil, err
	}
	type held struct {
		outFolder
		fi os.FileInfo
	}
	var outs []held
	for _, o := range f.replaced {
		if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			outs = append(outs, held{o, fi})
		}
	}
	each := func(t *transcript.Transcript, p P) error {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		for _, o := range outs {
			if inFolder(t.File, o.fi) {
				return holdsInput(o.flag, o.path, t.File)
			}
		}
		if n := t.BadRecords; n > 0 {
			lines := make([]string, 0, min(n, 10))
			for _, b := range t.Bad[:min(len(t.Bad), 10)] {
				lines = append(lines, fmt.Sprint(b.Line))
			}
			more := ""
			if n > 10 {
				more = ", …"
			}
			e.warn(fmt.Errorf("%s: skipped %d malformed record(s) (line %s%s)", t.File, n, strings.Join(lines, ", "), more))
		}
		return fn(t, p)
	}
	if f.Samples && len(paths) > 0 {
		return nil, fmt.Errorf("--samples and %s: give one", strings.Join(paths, " "))
	}
	if samples && !f.Samples {
		if paths = f.defaultPaths(e, paths); len(paths) == 0 {
			return nil, errNoSessions
		}
	}
	if len(paths) == 0 {
		if !samples {
			return nil, errors.New("no PATH given")
		}
		return nil, readSamples(opt, func(t *transcript.Transcript) error {
			var p P
			if prepare != nil {
				p = prepare(t)
			}
			return each(t, p)
		})
	}
	limitMemory(paths)
	read := 0
	skipped, err := transcript.WalkPrepared(paths, opt, e.stdin, prepare, func(t *transcript.Transcript, p P) error {
		read++
		return each(t, p)
	})
	for _, s := range skipped {
		e.warn(fmt.Errorf("skipped %s: %s", s.File, s.Reason))
	}
	// Nothing read is no result: never an empty report with exit 0.
	switch {
	case err != nil || read > 0 || f.selectFile != nil: // a shard's: the merge's to say
	case len(skipped) > 0:
		err = fmt.Errorf("no transcript read from %s: all %d files were skipped", strings.Join(paths, ", "), len(skipped))
	default:
		err = fmt.Errorf("no transcript found in %s", strings.Join(paths, ", "))
	}
	var bad *transcript.SyntaxError
	var none *transcript.NotTranscriptError
	switch {
	case errors.As(err, &bad) && !f.Lenient:
		err = withHint(err, "pass --lenient to skip malformed records (each counted, the first lines listed) and read the rest")
	case errors.As(err, &none) && f.Format != "":
		err = withHint(err, fmt.Sprintf("--format %s read no message of it; without --format, the format is detected from the content", f.Format))
	}
	return skipped, err
}

// writeJSON writes v to standard output as one JSON document: one line,
// or indented with --indent.
func (e *env) writeJSON(v any) error {
	bw := bufio.NewWriterSize(e.stdout, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if e.indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	return bw.Flush()
}

// helpCommand is the command whose --help answers a usage error: the
// subcommand the error is in ("ctxbench replay"), else ctxbench.
func helpCommand(err error) string {
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		for n := pe.Context.Selected(); n != nil; n = n.Parent {
			if n.Type == kong.CommandNode {
				return n.FullPath()
			}
		}
	}
	return "ctxbench"
}

// helpWithDefault is a flag's help with its default value, where it has
// one that neither its help nor its placeholder shows: "--out=DIR …
// (default: ctxbench-report)".
func helpWithDefault(v *kong.Value) string {
	help := kong.DefaultHelpValueFormatter(v)
	if v.Default == "" || v.Tag == nil || v.Tag.PlaceHolder == "" || strings.Contains(help, "default") {
		return help
	}
	return strings.TrimSuffix(help, ".") + " (default: " + v.Default + ")."
}

// parseFormat returns the format named s, or an error that lists the
// known ones.
func parseFormat(s string) (transcript.Format, error) {
	names := make([]string, 0, len(transcript.Formats()))
	for _, f := range transcript.Formats() {
		if string(f) == s {
			return f, nil
		}
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown format %q (known: %s)", s, strings.Join(names, ", "))
}
