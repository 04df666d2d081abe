// Command perf measures ctxbench's five performance ratios (issue
// "Performance") and prints them as Markdown; with -o it writes the whole
// of docs/performance.md, figures and profile findings.
//
//	go run ./scripts/perf                        # print the figures
//	go run ./scripts/perf -o docs/performance.md # rewrite the document
//
// Every ratio compares two measurements made in the same run, on the same
// machine, since absolute times on shared machines are noise. Replay,
// sweep and memory figures time the ctxbench binary itself (built once
// into a temporary directory), as a user runs it; the tokenizer figure is
// measured on the text of every message of the public corpus
// (fixtures/corpus), ctxbench counting once per fresh process (its piece
// cache empty), against pkoukk/tiktoken-go's Encode.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

var (
	out    = flag.String("o", "", "write docs/performance.md here (atomically) instead of printing the figures")
	reps   = flag.Int("reps", 5, "repetitions of each timing; the fastest counts")
	corpus = flag.String("corpus", "fixtures/corpus", "the public corpus")
	cold   = flag.String("cold-count", "", "internal: count the corpus text once with this encoding, in this fresh process, and print the time and the counts as JSON")
	launch = flag.String("launch", "", "internal: run the command after the flags and write its wall time (ns) and peak RSS (bytes) to this file")
)

// The eight policies of the replay figure: every policy whose window is
// bounded (none, recorded and prune send the whole growing history).
var policies = []string{
	"aidf:max_messages=100", "two-tier", "cross-turn", "compress",
	"langchain-trim:max_tokens=30000", "opencode", "codex", "gemini-cli",
}

func main() {
	flag.Parse()
	run := run
	switch {
	case *cold != "":
		run = coldCount
	case *launch != "":
		run = launchCmd
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(1)
	}
}

type figure struct {
	name, measured, target string
	ok                     bool
	commands               []string
}

func run() error {
	tmp, err := os.MkdirTemp("", "ctxbench-perf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "ctxbench")
	if err := sh("go", "build", "-o", bin, "./cmd/ctxbench"); err != nil {
		return err
	}
	pr := &perfRun{bin: bin, tmp: tmp}
	// one is a figure maker of one figure, given the binary and the
	// temporary folder or not.
	one := func(f func() (figure, error)) func() ([]figure, error) {
		return func() ([]figure, error) {
			fig, err := f()
			return []figure{fig}, err
		}
	}
	withBin := func(f func(bin, tmp string) (figure, error)) func() (figure, error) {
		return func() (figure, error) { return f(bin, tmp) }
	}
	var figs []figure
	for _, measure := range []func() ([]figure, error){
		one(tokenizer),                        // 1
		pr.replay,                             // 2, 3, 4
		pr.memory,                             // 5
		pr.cost,                               // 6, 7
		pr.trace,                              // 8
		pr.commands50k,                        // 9
		one(withBin(againstCcusage)),          // 10
		one(withBin(policiesAgainstCounting)), // 11
		one(outOfSample),                      // 12
		one(withBin(apiEditsMemory)),          // 13
		pr.fleets,                             // 14, 15, 16
		one(withBin(longRuns)),                // 17
		one(withBin(clearToolUsesTime)),       // 18
	} {
		f, err := measure()
		if err != nil {
			return err
		}
		figs = append(figs, f...)
	}

	var b bytes.Buffer
	table(&b, figs, *reps)
	if *out == "" {
		_, err := os.Stdout.Write(b.Bytes())
		return err
	}
	doc, err := os.ReadFile(*out)
	if err != nil {
		return err
	}
	spliced, err := splice(string(doc), b.String())
	if err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	return writeAtomic(*out, []byte(spliced))
}

// The markers between which make perf writes its figures in
// docs/performance.md: the rest of the document is written by hand.
const (
	beginFigures = "<!-- begin figures: written by make perf -->\n"
	endFigures   = "<!-- end figures -->\n"
)

// splice returns doc with what lies between its figure markers replaced
// by figures.
func splice(doc, figures string) (string, error) {
	head, rest, ok := strings.Cut(doc, beginFigures)
	if !ok {
		return "", fmt.Errorf("no line %q", strings.TrimSpace(beginFigures))
	}
	_, tail, ok := strings.Cut(rest, endFigures)
	if !ok {
		return "", fmt.Errorf("no line %q after %q", strings.TrimSpace(endFigures), strings.TrimSpace(beginFigures))
	}
	return head + beginFigures + figures + endFigures + tail, nil
}

// corpusTexts returns the text of every block of the corpus, and its size.
func corpusTexts() ([]string, int, error) {
	var texts []string
	size := 0
	// Walk reads every transcript of the corpus and lists the other files
	// (the manifest, licenses) as skipped.
	_, err := transcript.Walk([]string{*corpus}, transcript.Options{}, nil, func(t *transcript.Transcript) error {
		for _, m := range t.Messages {
			for _, bl := range m.Blocks {
				for _, s := range []string{bl.Text, bl.Name, string(bl.Input)} {
					if s != "" {
						texts = append(texts, s)
						size += len(s)
					}
				}
			}
		}
		return nil
	})
	return texts, size, err
}

// coldResult is what a -cold-count process prints.
type coldResult struct {
	Seconds float64 `json:"seconds"`
	Counts  []int   `json:"counts"`
}

// coldCount counts the corpus text once, in a process that has counted
// nothing before: ctxbench's piece cache starts empty, so the time is
// that of a first pass, as a user's run pays it.
func coldCount() error {
	texts, _, err := corpusTexts()
	if err != nil {
		return err
	}
	e, err := estimate.New(*cold, estimate.OverheadNone)
	if err != nil {
		return err
	}
	var res coldResult
	t0 := time.Now()
	for _, s := range texts {
		res.Counts = append(res.Counts, e.Count(s))
	}
	res.Seconds = time.Since(t0).Seconds()
	return json.NewEncoder(os.Stdout).Encode(res)
}

// tokenizer times ctxbench's exact counters and pkoukk's Encode on every
// text of the corpus, and checks that the counts agree. ctxbench counts
// in a fresh process each time (cold piece cache); pkoukk, which has no
// cache, in this one.
func tokenizer() (figure, error) {
	texts, size, err := corpusTexts()
	if err != nil {
		return figure{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return figure{}, err
	}
	// pkoukk/tiktoken-go reads the ranks the loader embeds, never the network.
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	var parts []string
	ok := true
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		ref, err := tiktoken.GetEncoding(enc)
		if err != nil {
			return figure{}, err
		}
		var oursN, refN []int
		var tOurs time.Duration
		for i := range max(*reps, 1) {
			cmd := exec.Command(self, "-corpus", *corpus, "-cold-count", enc)
			cmd.Stderr = os.Stderr
			outb, err := cmd.Output()
			if err != nil {
				return figure{}, fmt.Errorf("cold count: %w", err)
			}
			var res coldResult
			if err := json.Unmarshal(outb, &res); err != nil {
				return figure{}, err
			}
			if d := time.Duration(res.Seconds * float64(time.Second)); i == 0 || d < tOurs {
				tOurs = d
			}
			oursN = res.Counts
		}
		tRef := best(*reps, func() {
			refN = refN[:0]
			for _, s := range texts {
				refN = append(refN, len(ref.Encode(s, nil, nil)))
			}
		})
		if !slices.Equal(oursN, refN) {
			return figure{}, fmt.Errorf("%s: counts differ from pkoukk's on the corpus", enc)
		}
		r := tRef.Seconds() / tOurs.Seconds()
		ok = ok && r >= 2
		parts = append(parts, fmt.Sprintf("%s %.1f× (%.1f MB/s against %.1f MB/s)", enc, r,
			float64(size)/1e6/tOurs.Seconds(), float64(size)/1e6/tRef.Seconds()))
	}
	return figure{
		name:     fmt.Sprintf("Exact token counts: throughput against pkoukk/tiktoken-go's Encode on the corpus text (%d texts, %.1f MB; every count equal; ctxbench's first pass in a fresh process, its piece cache empty)", len(texts), float64(size)/1e6),
		measured: strings.Join(parts, "; "),
		target:   "≥ 2×", ok: ok,
		commands: []string{"go run ./scripts/perf (pkoukk in process; ctxbench in a fresh process per pass: perf -cold-count ENC)"},
	}, nil
}

func best(n int, f func()) time.Duration {
	var b time.Duration
	for i := range max(n, 1) {
		t0 := time.Now()
		f()
		if d := time.Since(t0); i == 0 || d < b {
			b = d
		}
	}
	return b
}

// timeCmd runs the command n times and returns its fastest wall time and
// its largest peak RSS in bytes. Exit status 1 (a verdict, such as
// invariant violations) is not an error; 2 is.
func timeCmd(n int, name string, args ...string) (time.Duration, int64, error) {
	d, rss, err := timeRounds(n, append([]string{name}, args...))
	if err != nil {
		return 0, 0, err
	}
	return d[0], rss[0], nil
}

// launchCmd runs the command given after the flags as a child of this
// small process, and writes its wall time and peak RSS to *launch; it
// exits with the command's status. A child's peak RSS counts its
// parent's peak until it execs (Linux records the shared memory's high
// water mark at exec, and Go starts children with vfork), so a command
// started by the measuring process, which has read the corpus and run
// the tokenizer figure, was measured at that process's peak (about 100
// MB) when it took less.
func launchCmd() error {
	args := flag.Args()
	if len(args) == 0 {
		return fmt.Errorf("-launch: no command")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	var rss int64
	if cmd.ProcessState != nil {
		if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = u.Maxrss << 10
		}
	}
	if werr := os.WriteFile(*launch, fmt.Appendf(nil, "%d %d\n", d.Nanoseconds(), rss), 0o644); werr != nil {
		return werr
	}
	if ee, ok := err.(*exec.ExitError); ok {
		os.Exit(ee.ExitCode())
	}
	return err
}

// timeRounds runs the commands n times in turn, one of each per round,
// and returns each one's fastest time and largest peak RSS: on a machine
// whose speed drifts, the commands of a ratio are timed under the same
// conditions. Exit status 1 (violations found) is not an error.
func timeRounds(n int, cmds ...[]string) ([]time.Duration, []int64, error) {
	best := make([]time.Duration, len(cmds))
	rss := make([]int64, len(cmds))
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	measured, err := os.CreateTemp("", "perf-launch-*")
	if err != nil {
		return nil, nil, err
	}
	measured.Close()
	defer os.Remove(measured.Name())
	for i := range max(n, 1) {
		for k, c := range cmds {
			// Through the launcher: see launchCmd.
			cmd := exec.Command(self, append([]string{"-launch", measured.Name(), "--"}, c...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
				err = nil
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v: %s", strings.Join(c, " "), err, stderr.String())
			}
			var ns, peak int64
			if b, err := os.ReadFile(measured.Name()); err != nil {
				return nil, nil, err
			} else if _, err := fmt.Sscan(string(b), &ns, &peak); err != nil {
				return nil, nil, fmt.Errorf("%s: the launcher's measure: %v", strings.Join(c, " "), err)
			}
			d := time.Duration(ns)
			rss[k] = max(rss[k], peak)
			if i == 0 || d < best[k] {
				best[k] = d
			}
		}
	}
	return best, rss, nil
}

func sh(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

func table(b *bytes.Buffer, figs []figure, reps int) {
	fmt.Fprintf(b, "Each time is the fastest of %d runs; the commands of a ratio are run in\n"+
		"turn, one of each per round, so that both meet the machine in the same\n"+
		"state (the memory figure: one run).\n\n", reps)
	fmt.Fprintf(b, "| # | Figure | Measured | Target | Met |\n|---|---|---|---|---|\n")
	for i, f := range figs {
		met := "yes"
		if !f.ok {
			met = "**no**"
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s |\n", i+1, f.name, f.measured, f.target, met)
	}
	fmt.Fprintf(b, "\nCommands behind each figure:\n\n")
	for i, f := range figs {
		fmt.Fprintf(b, "%d. `%s`\n", i+1, strings.Join(f.commands, "` · `"))
	}
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".perf-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ccusageVersion is the ccusage the reading figure compares with: its
// native build for linux-x64, installed with npm into .bin.
const ccusageVersion = "20.0.24"

// ccusage returns the path of the pinned ccusage binary, installing it
// with npm when it is not there yet; "" (and why) when it cannot be had.
func ccusage() (string, string) {
	dir, err := filepath.Abs(filepath.Join(".bin", "ccusage-"+ccusageVersion))
	if err != nil {
		return "", err.Error()
	}
	bin := filepath.Join(dir, "node_modules", "@ccusage", "ccusage-linux-x64", "bin", "ccusage")
	if _, err := os.Stat(bin); err == nil {
		return bin, ""
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", "ccusage's native build is pinned for linux-x64 only"
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", "npm is not installed: the figure needs ccusage " + ccusageVersion + " from npm"
	}
	if err := sh("npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", dir, "@ccusage/ccusage-linux-x64@"+ccusageVersion); err != nil {
		return "", "npm install failed: " + err.Error()
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return "", err.Error()
	}
	return bin, ""
}

// againstCcusage times ccusage's per-session usage and cost, ctxbench
// inspect and ctxbench cost --policy recorded on the same folders of real
// Claude Code sessions: the corpus's, 4 times over and 32 times over
// (ccusage reads ~/.claude/projects/<project>/*.jsonl). The figure is met
// when both ratios are at most 1 on both folders.
func againstCcusage(bin, tmp string) (figure, error) {
	name := "Reading real Claude Code sessions: `ctxbench inspect` and `ctxbench cost --policy recorded` against `ccusage claude session --json --offline` (" + ccusageVersion + ", native)"
	cc, why := ccusage()
	if cc == "" {
		fmt.Fprintln(os.Stderr, "perf: the ccusage figure is skipped:", why)
		return figure{name: name, measured: "not measured: " + why, target: "≤ 1.0×", commands: []string{"make bench (installs ccusage into .bin with npm)"}}, nil
	}
	var measured []string
	ok := true
	for _, copies := range []int{4, 32} {
		root := filepath.Join(tmp, fmt.Sprintf("claude%d", copies))
		size, err := claudeProjects(filepath.Join(root, "projects"), copies)
		if err != nil {
			return figure{}, err
		}
		home := filepath.Join(tmp, "home")
		if err := os.MkdirAll(home, 0o755); err != nil {
			return figure{}, err
		}
		projects := filepath.Join(root, "projects")
		ccCmd := []string{"env", "CLAUDE_CONFIG_DIR=" + root, "HOME=" + home, "TZ=UTC", cc, "claude", "session", "--json", "--offline"}
		times, _, err := timeRounds(max(*reps, 7), ccCmd, []string{bin, "inspect", "--json", projects}, []string{bin, "cost", "--json", "--policy", "recorded", projects})
		if err != nil {
			return figure{}, err
		}
		ri, rc := times[1].Seconds()/times[0].Seconds(), times[2].Seconds()/times[0].Seconds()
		ok = ok && ri <= 1 && rc <= 1
		measured = append(measured, fmt.Sprintf("%.1f MB: inspect %.2f×, cost %.2f× (%.2f s and %.2f s against %.2f s)", float64(size)/1e6, ri, rc,
			times[1].Seconds(), times[2].Seconds(), times[0].Seconds()))
	}
	return figure{
		name: name, measured: strings.Join(measured, "; "), target: "≤ 1.0×", ok: ok,
		commands: []string{"the corpus's Claude Code sessions (spotter, codemie-code's session fixtures) copied into claudeN/projects N = 4 and 32 times",
			"CLAUDE_CONFIG_DIR=claudeN ccusage claude session --json --offline", "ctxbench inspect --json claudeN/projects",
			"ctxbench cost --json --policy recorded claudeN/projects"},
	}, nil
}

// policiesAgainstCounting times ctxbench cost pricing three policies
// against ctxbench estimate of the same folder plus the bill alone
// (ctxbench cost with no policy), on copies of the folders of figure 10.
// The figure is met when the ratio is at most 1.2 on both.
func policiesAgainstCounting(bin, tmp string) (figure, error) {
	pols := []string{"--policy", "none", "--policy", "aidf:max_messages=30", "--policy", "claude-code"}
	var measured []string
	ok := true
	for _, copies := range []int{4, 32} {
		projects := filepath.Join(tmp, fmt.Sprintf("policies%d", copies), "projects")
		size, err := claudeProjects(projects, copies)
		if err != nil {
			return figure{}, err
		}
		times, _, err := timeRounds(max(*reps, 5), slices.Concat([]string{bin, "cost", "--json"}, pols, []string{projects}),
			[]string{bin, "estimate", "--json", projects}, []string{bin, "cost", "--json", projects})
		if err != nil {
			return figure{}, err
		}
		r := times[0].Seconds() / (times[1].Seconds() + times[2].Seconds())
		ok = ok && r <= 1.2
		measured = append(measured, fmt.Sprintf("%.1f MB: %.2f× (%.2f s against %.2f s + %.2f s)", float64(size)/1e6, r,
			times[0].Seconds(), times[1].Seconds(), times[2].Seconds()))
	}
	return figure{
		name:     "Pricing three policies against counting the content: `ctxbench cost --policy none --policy aidf:max_messages=30 --policy claude-code` against `ctxbench estimate` plus `ctxbench cost` (the bill alone)",
		measured: strings.Join(measured, "; "), target: "≤ 1.2×", ok: ok,
		commands: []string{"the folders of figure 10, copied to policiesN", "ctxbench cost --json --policy none --policy aidf:max_messages=30 --policy claude-code policiesN/projects",
			"ctxbench estimate --json policiesN/projects", "ctxbench cost --json policiesN/projects"},
	}, nil
}

// outOfSample runs the cost package's out-of-sample tests, which price
// the recorded run of every session of 20 calls or more fitted on its
// first half: the validation set's (TestValidation with -validate,
// what make validate prints: fixtures/validation, which nothing is
// fitted on), the corpus's (TestOutOfSample) and the public Claude
// Code sessions outside it (TestOutOfSampleUnseen). It reads their
// distributions off the tests' logs ([outOfSampleFigure]).
func outOfSample() (figure, error) {
	cmd := exec.Command("go", "test", "-count=1", "-run", "^(TestOutOfSample(Unseen)?|TestValidation)$", "-v", "./cost", "-validate")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return figure{}, fmt.Errorf("go test ./cost -run 'TestOutOfSample|TestValidation': %v\n%s", err, out.String())
	}
	return outOfSampleFigure(out.String())
}

// outOfSampleFigure is figure 12 read off log, the out-of-sample tests'
// verbose log: the validation set's total (median, p90, worst: the line
// make validate prints), the corpus's sessions and distribution, the
// sessions outside it, and all of the corpus's and those together. The
// figure is met at a median |error| of at most 5% and a worst of 15%, on
// the validation set, on the corpus and on all the corpus's and
// outside sessions together.
func outOfSampleFigure(log string) (figure, error) {
	var corpus, unseen []string
	var n, all, valN int
	var med, worst, allMed, allWorst, valMed, valP90, valWorst float64
	for _, line := range strings.Split(log, "\n") {
		if _, err := fmt.Sscanf(line, "total %d sessions: median %f%%, p90 %f%%, worst %f%%", &valN, &valMed, &valP90, &valWorst); err == nil {
			continue
		}
		_, text, ok := strings.Cut(line, ".go:")
		if !ok {
			continue
		}
		_, text, _ = strings.Cut(text, ": ")
		text = strings.TrimSpace(text)
		if _, err := fmt.Sscanf(text, "cost: %d sessions, median |error| %f%%, worst %f%%", &n, &med, &worst); err == nil {
			continue
		}
		if _, err := fmt.Sscanf(text, "with the corpus: %d sessions, median |error| %f%%, worst %f%%", &all, &allMed, &allWorst); err == nil {
			continue
		}
		pct, file, ok := strings.Cut(text, "% ")
		switch {
		case ok && strings.HasPrefix(file, "../fixtures/corpus/"):
			corpus = append(corpus, fmt.Sprintf("%s %s%%", filepath.Base(file), pct))
		case ok && strings.HasPrefix(file, "../fixtures/compactions/"):
			unseen = append(unseen, fmt.Sprintf("%s %s%%", strings.TrimSuffix(filepath.Base(file), ".gz"), pct))
		}
	}
	if n == 0 || all == 0 || valN == 0 {
		return figure{}, fmt.Errorf("go test ./cost -run 'TestOutOfSample|TestValidation': no distribution in its log:\n%s", log)
	}
	return figure{
		name: "Out of sample: the recorded run of each session of 20 calls or more, fitted on its first half, its second half priced without its bill, against that bill: the validation set's (fixtures/validation, nothing fitted on it), and beside it the corpus's and the public Claude Code sessions outside it (fixtures/compactions)",
		measured: fmt.Sprintf("validation, %d sessions: median absolute error %.1f%%, p90 %.1f%%, worst %.1f%%; corpus, %d sessions: median %.1f%%, worst %.1f%% (%s); outside it: %s; corpus and outside, %d: median %.1f%%, worst %.1f%%",
			valN, valMed, valP90, valWorst, n, med, worst, strings.Join(corpus, ", "), strings.Join(unseen, ", "), all, allMed, allWorst),
		target: "median ≤ 5%, worst ≤ 15%", ok: valMed <= 5 && valWorst <= 15 && med <= 5 && worst <= 15 && allMed <= 5 && allWorst <= 15,
		commands: []string{"make validate (go test ./cost -run '^TestValidation$' -validate -v)", "go test ./cost -run 'TestOutOfSample(Unseen)?' -v (ctxbench cost --fit-calls N, N half the calls, on each)"},
	}, nil
}

// claudeProjects copies the corpus's Claude Code sessions into projects,
// copies times (a project folder per copy and source), and returns the
// bytes copied.
func claudeProjects(projects string, copies int) (int64, error) {
	var size int64
	for i := 1; i <= copies; i++ {
		for _, src := range []string{"spotter", "codemie-code/tests/integration/session/fixtures"} {
			dst := filepath.Join(projects, fmt.Sprintf("p%d-%s", i, filepath.Base(src)))
			err := filepath.WalkDir(filepath.Join(*corpus, src), func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || filepath.Ext(p) != ".jsonl" {
					return err
				}
				rel, err := filepath.Rel(filepath.Join(*corpus, src), p)
				if err != nil {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				size += int64(len(b))
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
			})
			if err != nil {
				return 0, err
			}
		}
	}
	return size, nil
}

// apiEdits are the policies that edit what the API is sent on its side
// (the whole history is sent each call and edited there).
var apiEdits = []string{"anthropic-clear-tool-uses", "anthropic-clear-thinking", "anthropic-compaction"}

// apiEditsMemory measures the peak RSS of each API-edit policy's replay
// of a tool-heavy generated session (every call calls tools) of 4,000
// calls against 1,000: 3,000 calls took 3.8 GB when each request copied
// every message. The figure is met when each ratio is at most 4.5×
// (linear in the calls, with the process's floor).
func apiEditsMemory(bin, tmp string) (figure, error) {
	files, err := toolSessions(bin, tmp)
	if err != nil {
		return figure{}, err
	}
	var parts []string
	ok := true
	for _, p := range apiEdits {
		var peak [2]int64
		var took [2]time.Duration
		for k, f := range files {
			d, rss, err := timeCmd(1, bin, "replay", "--policy", p, f)
			if err != nil {
				return figure{}, err
			}
			took[k], peak[k] = d, rss
		}
		r := float64(peak[1]) / float64(peak[0])
		ok = ok && r <= 4.5
		parts = append(parts, fmt.Sprintf("%s %.2f× (%d MB against %d MB; %.1f s against %.1f s)", p, r, peak[1]>>20, peak[0]>>20, took[1].Seconds(), took[0].Seconds()))
	}
	return figure{
		name:     "Peak RSS of the API-edit policies' replay of a tool-heavy session: 4,000 calls against 1,000",
		measured: strings.Join(parts, "; "),
		target:   "≤ 4.5× each", ok: ok,
		commands: []string{"ctxbench gen --calls 4000 --tool-ratio 1 -o tools4000.jsonl (and 1000)",
			"ctxbench replay --policy P tools4000.jsonl, P each of " + strings.Join(apiEdits, ", ")},
	}, nil
}

// toolSessions returns the tool-heavy generated sessions (every call
// calls tools) of 1,000 and 4,000 calls of figures 13 and 18, made in tmp
// by the first to ask.
func toolSessions(bin, tmp string) ([2]string, error) {
	var files [2]string
	for k, calls := range []string{"1000", "4000"} {
		files[k] = filepath.Join(tmp, "tools"+calls+".jsonl")
		if _, err := os.Stat(files[k]); err == nil {
			continue
		}
		if err := sh(bin, "gen", "--calls", calls, "--tool-ratio", "1", "-o", files[k]); err != nil {
			return files, err
		}
	}
	return files, nil
}

// A fleet is a folder of generated sessions for the fleet figures.
type fleet struct {
	name            string
	sessions, calls int
}

// fleets are the folders of figure 14: a few long sessions, and many
// short ones.
var fleets = []fleet{{"16 sessions of 20,000 calls", 16, 20000}, {"2,000 sessions of 200 calls", 2000, 200}}

// shardFleet is the fleet of figure 15, split into shards.
const shardFleet = 2000

// A fleetRun is a fleet's folder and report, and the report's time and
// peak RSS.
type fleetRun struct {
	dir, report string
	reportTime  time.Duration
	reportPeak  int64
}

// threePolicies are the fleet figures' policies.
var threePolicies = []string{"--policy", "none", "--policy", "aidf:max_messages=30", "--policy", "prune"}

// fleetShards measures what a fleet costs to report: the report's peak
// RSS and files over the fleet against a tenth of it (the first
// sessions, hard links), cost --json and report against estimate of
// the same folder, and both split in 4 shards and merged: each shard's
// time against one run's, and the merge's output against one run's,
// byte for byte.
func fleetShards(bin, tmp string, fl fleetRun) (figure, error) {
	names, err := os.ReadDir(fl.dir)
	if err != nil {
		return figure{}, err
	}
	tenth := filepath.Join(tmp, "fleet-tenth")
	defer os.RemoveAll(tenth)
	if err := os.MkdirAll(tenth, 0o755); err != nil {
		return figure{}, err
	}
	for _, n := range names[:len(names)/10] {
		if err := os.Link(filepath.Join(fl.dir, n.Name()), filepath.Join(tenth, n.Name())); err != nil {
			return figure{}, err
		}
	}
	tenthReport := filepath.Join(tmp, "fleet-tenth-report")
	defer os.RemoveAll(tenthReport)
	_, tenthPeak, err := timeCmd(1, bin, slices.Concat([]string{"report", "--out", tenthReport}, threePolicies, []string{tenth})...)
	if err != nil {
		return figure{}, err
	}
	files, tenthFiles := countFiles(fl.report), countFiles(tenthReport)
	estimateTime, _, err := timeCmd(1, bin, "estimate", fl.dir)
	if err != nil {
		return figure{}, err
	}
	costJSON := filepath.Join(tmp, "fleet-cost.json")
	defer os.Remove(costJSON)
	costTime, err := timeToFile(costJSON, bin, slices.Concat([]string{"cost", "--json"}, threePolicies, []string{fl.dir})...)
	if err != nil {
		return figure{}, err
	}
	const n = 4
	split := func(command string, args []string, whole time.Duration, merged func([]string) (time.Duration, bool, error)) (string, bool, error) {
		var parts []string
		var slowest time.Duration
		for k := 1; k <= n; k++ {
			p := filepath.Join(tmp, fmt.Sprintf("%s-part%d.jsonl", command, k))
			defer os.Remove(p)
			d, _, err := timeCmd(1, bin, slices.Concat([]string{command}, args, []string{"--shard", fmt.Sprintf("%d/%d", k, n), "--partial", p, fl.dir})...)
			if err != nil {
				return "", false, err
			}
			parts, slowest = append(parts, p), max(slowest, d)
		}
		d, same, err := merged(parts)
		if err != nil {
			return "", false, err
		}
		verdict := "the same bytes"
		if !same {
			verdict = "**different bytes**"
		}
		r := slowest.Seconds() / whole.Seconds()
		return fmt.Sprintf("%s: one run %.0f s, the slowest of %d shards %.0f s (%.2f×), the merge %.1f s, %s", command, whole.Seconds(), n, slowest.Seconds(), r, d.Seconds(), verdict),
			same && r <= 0.35, nil
	}
	costText, costOK, err := split("cost", append([]string{"--json"}, threePolicies...), costTime, func(parts []string) (time.Duration, bool, error) {
		out := filepath.Join(tmp, "fleet-cost-merged.json")
		defer os.Remove(out)
		d, err := timeToFile(out, bin, slices.Concat([]string{"cost", "--json"}, threePolicies, []string{"--merge"}, parts)...)
		if err != nil {
			return 0, false, err
		}
		a, err1 := os.ReadFile(costJSON)
		b, err2 := os.ReadFile(out)
		return d, err1 == nil && err2 == nil && bytes.Equal(a, b), errors.Join(err1, err2)
	})
	if err != nil {
		return figure{}, err
	}
	reportArgs := slices.Concat([]string{"--out", filepath.Join(tmp, "fleet-report-unused")}, threePolicies)
	reportText, reportOK, err := split("report", reportArgs, fl.reportTime, func(parts []string) (time.Duration, bool, error) {
		out := filepath.Join(tmp, "fleet-report-merged")
		defer os.RemoveAll(out)
		d, _, err := timeCmd(1, bin, slices.Concat([]string{"report", "--out", out}, threePolicies, []string{"--merge"}, parts)...)
		if err != nil {
			return 0, false, err
		}
		same, err := sameTree(fl.report, out)
		return d, same, err
	})
	if err != nil {
		return figure{}, err
	}
	grow := float64(fl.reportPeak)/float64(tenthPeak) - 1
	return figure{
		name: fmt.Sprintf("A fleet of %d sessions of 200 calls: the report against a tenth of it; cost and report against estimate, and split in %d shards", len(names), n),
		measured: fmt.Sprintf("report peak RSS %d MB, over %s sessions %d MB (%+.0f%%); files written %d and %d; estimate %.0f s, cost --json %.0f s (%.1f×), report %.0f s (%.1f×); %s; %s",
			fl.reportPeak>>20, fmt.Sprint(len(names)/10), tenthPeak>>20, grow*100, files, tenthFiles,
			estimateTime.Seconds(), costTime.Seconds(), costTime.Seconds()/estimateTime.Seconds(), fl.reportTime.Seconds(), fl.reportTime.Seconds()/estimateTime.Seconds(), costText, reportText),
		target: "report RSS within 10% of a tenth's; the same files; shards merged to the same bytes, the slowest ≤ 0.35× one run",
		ok:     grow <= 0.10 && files == tenthFiles && costOK && reportOK,
		commands: []string{"ctxbench report --out R (the policies of figure 14) fleet, and fleet-tenth (its first 200 sessions)",
			"ctxbench estimate fleet", "ctxbench cost --json (the same policies) fleet",
			fmt.Sprintf("ctxbench cost --json … --shard K/%d --partial part-K.jsonl fleet, K = 1 to %d", n, n), "ctxbench cost --json … --merge part-1.jsonl … (against cost's bytes)",
			"ctxbench report … --shard K/4, then --merge (against the report folder, diff -r)"},
	}, nil
}

// countFiles counts the files under dir.
func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// sameTree reports whether the folders a and b hold the same files with
// the same bytes.
func sameTree(a, b string) (bool, error) {
	var names []string
	err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(a, p)
			names = append(names, rel)
		}
		return err
	})
	if err != nil || countFiles(b) != len(names) {
		return false, err
	}
	for _, n := range names {
		x, err1 := os.ReadFile(filepath.Join(a, n))
		y, err2 := os.ReadFile(filepath.Join(b, n))
		if err := errors.Join(err1, err2); err != nil {
			return false, err
		}
		if !bytes.Equal(x, y) {
			return false, nil
		}
	}
	return true, nil
}

// timeToFile runs a command once with its standard output to path and
// returns its wall time.
func timeToFile(path, name string, args ...string) (time.Duration, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, io.Discard
	t0 := time.Now()
	err = cmd.Run()
	return time.Since(t0), err
}

// fleetMemory measures the peak RSS of each command over a folder of
// generated sessions, against 3 × the largest session + 100 MB (figure
// 9's bound for one session): a command holds a session, and what it
// keeps of the others, not the folder. Each session is its own seed.
// The report spools each session's results to a temporary file and
// keeps their sums and each session's name; the estimator plots' counts
// spill to another past 64 K counts.
//
// It returns the folder and the report, which the caller removes.
func fleetMemory(bin, tmp string, f fleet) (figure, fleetRun, error) {
	dir := filepath.Join(tmp, fmt.Sprintf("fleet%d", f.sessions))
	fl := fleetRun{dir: dir, report: filepath.Join(tmp, "fleet-report")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return figure{}, fl, err
	}
	var total, largest int64
	for i := range f.sessions {
		path := filepath.Join(dir, fmt.Sprintf("s%04d.jsonl", i))
		if err := sh(bin, "gen", "--calls", fmt.Sprint(f.calls), "--seed", fmt.Sprint(i+1), "-o", path); err != nil {
			return figure{}, fl, err
		}
		st, err := os.Stat(path)
		if err != nil {
			return figure{}, fl, err
		}
		total += st.Size()
		largest = max(largest, st.Size())
	}
	suite := filepath.Join(tmp, "fleet.yaml")
	if err := os.WriteFile(suite, []byte(fmt.Sprintf("transcripts: [%q]\npolicies: [none, \"aidf:max_messages=30\", prune]\n", filepath.Join(filepath.Base(dir), "*.jsonl"))), 0o644); err != nil {
		return figure{}, fl, err
	}
	limit := 3*largest + 100<<20
	var parts []string
	ok := true
	for _, c := range []struct {
		name string
		args []string
	}{
		{"inspect", []string{"inspect", dir}},
		{"replay", slices.Concat([]string{"replay"}, threePolicies, []string{dir})},
		{"cost", slices.Concat([]string{"cost"}, threePolicies, []string{dir})},
		{"check", []string{"check", "--update", "--accept", "--config", suite}},
		{"sweep", []string{"sweep", "--policy", "aidf", "--grid", "max_messages=10,30", dir}},
		{"report", slices.Concat([]string{"report", "--out", fl.report}, threePolicies, []string{dir})},
	} {
		d, peak, err := timeCmd(1, bin, c.args...)
		if err != nil {
			return figure{}, fl, err
		}
		parts = append(parts, fmt.Sprintf("%s %d MB (%.0f s)", c.name, peak>>20, d.Seconds()))
		if c.name == "report" {
			fl.reportTime, fl.reportPeak = d, peak
		}
		ok = ok && peak < limit
	}
	return figure{
		name:     fmt.Sprintf("Peak RSS of each command over %s (%.0f MB; the largest %.1f MB)", f.name, float64(total)/(1<<20), float64(largest)/(1<<20)),
		measured: strings.Join(parts, "; "),
		target:   fmt.Sprintf("< 3 × largest + 100 MB = %d MB", limit>>20), ok: ok,
		commands: []string{fmt.Sprintf("ctxbench gen --calls %d --seed N -o fleet/sN.jsonl, N = 1 to %d", f.calls, f.sessions),
			"ctxbench inspect fleet", "ctxbench replay --policy none --policy aidf:max_messages=30 --policy prune fleet", "ctxbench cost (the same policies)",
			"ctxbench check --update --accept --config fleet.yaml (the same policies)", "ctxbench sweep --policy aidf --grid max_messages=10,30 fleet",
			"ctxbench report --out fleet-report (the same policies) fleet"},
	}, fl, nil
}
