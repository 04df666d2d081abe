package report

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/printable"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/recommend"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
)

// Report is what `ctxbench report` shows: every transcript replayed under
// every policy, with costs where the model is priced, the estimators'
// accuracy and a sweep.
type Report struct {
	Estimator   string             `json:"estimator"`
	Policies    []string           `json:"policies"`
	Transcripts []TranscriptResult `json:"transcripts"`
	// Sweep is a two-key sweep for the heatmap (nil: none).
	Sweep *replay.SweepResult `json:"sweep,omitempty"`
	Notes []string            `json:"notes"`
	// MinProbeScore is the least probe score a recommended policy keeps
	// ([Report.Recommendation]; 0: [recommend.DefaultMinProbeScore]).
	MinProbeScore float64 `json:"min_probe_score,omitempty"`
	// Detail says which sessions the report draws and lists one by one
	// (the zero Detail: every one).
	Detail Detail `json:"-"`
	// ProjectionErr is how close the projection lands on the sessions
	// ([Report.ProjectionError]), set when a Builder finishes.
	ProjectionErr *projection.ProjectionError `json:"projection_error,omitempty"`
	// costFacts feed the cost section (nil: made of Transcripts).
	costFacts *costFacts
	// counts feed the estimator plots (nil: none drawn).
	counts *PlotCounts
	// tally is the Builder's sums over the transcripts (nil: made of
	// Transcripts when asked).
	tally *tally
	// spool holds the transcripts when a Builder spooled them
	// (Builder.SpoolTranscripts), Transcripts then only their headers;
	// nil: Transcripts holds them.
	spool *transcriptSpool
}

// TranscriptResult is one transcript's replays.
type TranscriptResult struct {
	File string `json:"file"`
	ID   string `json:"id"`
	// Parent is the ID of the session a subagent's transcript is part
	// of ("": a session of its own).
	Parent string            `json:"parent,omitempty"`
	Format transcript.Format `json:"format"`
	Calls  int               `json:"calls"`
	// Model is the priced model ("" when not priced) and BilledUSD the
	// recorded usage at its prices (nil without usage).
	Model     string   `json:"model,omitempty"`
	BilledUSD *float64 `json:"billed_usd,omitempty"`
	// Models are the models the transcript's calls record; NotPriced
	// says why it is not priced ("model X", "no model recorded"; "" when
	// it is).
	Models    []string `json:"models,omitempty"`
	NotPriced string   `json:"not_priced,omitempty"`
	// Start and End are the times of its first and last calls (zero:
	// none recorded).
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// CacheMisses sums the calls at which the provider's cache held less
	// than an ideal one (Misses lists them); nil without a bill.
	CacheMisses *cost.CacheMisses `json:"cache_misses,omitempty"`
	Misses      []cost.CacheMiss  `json:"cache_miss_events,omitempty"`
	// Notes are what the page says of the session: its cache misses and
	// its runs' cache breaks.
	Notes  []string  `json:"notes,omitempty"`
	Billed []float64 `json:"billed_per_call_usd,omitempty"`
	// ProjectionErrorPct is the cross-check's error when the transcript
	// counts in the projection error ([cost.CrossCheck.SessionError]).
	ProjectionErrorPct *float64       `json:"projection_error_pct,omitempty"`
	Runs               []PolicyResult `json:"runs"`
}

// PolicyResult is one replay, with its per-call series.
type PolicyResult struct {
	Label       string         `json:"label"`
	Summary     replay.Summary `json:"summary"`
	ShareOfNone float64        `json:"share_of_none"`
	CostUSD     *float64       `json:"cost_usd,omitempty"`
	// MessageCap is the policy's cap on messages (0: none).
	MessageCap int       `json:"message_cap,omitempty"`
	Messages   []int     `json:"messages_per_call"`
	Tokens     []int     `json:"tokens_per_call"`
	Retention  []float64 `json:"retention_per_call"`
	// ProbesAsked and ProbesKept are each call's probes
	// ([replay.Step.ProbesAsked]).
	ProbesAsked []int     `json:"probes_asked_per_call"`
	ProbesKept  []int     `json:"probes_kept_per_call"`
	Cost        []float64 `json:"cost_per_call_usd,omitempty"`
	// CacheBreaks are the run's cache breaks, weighed (nil: not priced);
	// CacheRead and CacheWrite are each call's simulated cache reads and
	// writes, and Events the calls (0-based) at which the policy changed
	// what was sent before: evicted, truncated or summarized.
	CacheBreaks *cost.CacheBreaks `json:"cache_breaks,omitempty"`
	Breaks      []cost.CacheBreak `json:"cache_break_events,omitempty"`
	CacheRead   []int64           `json:"cache_read_per_call,omitempty"`
	CacheWrite  []int64           `json:"cache_write_per_call,omitempty"`
	Events      []int             `json:"policy_event_calls,omitempty"`
}

// ErrNotAReport is the error of writing a report over a folder that
// ctxbench did not make: it is never replaced.
var ErrNotAReport = errors.New("it was not made by ctxbench")

// MarkerFile marks a folder as a ctxbench report, which a later report may
// replace.
const MarkerFile = ".ctxbench-report"

// CheckDir returns nil when a report may be written into dir: it does not
// exist, or it is a folder a report made (it holds MarkerFile); else the
// error WriteReport would return, [ErrNotAReport] for a folder ctxbench
// did not make. A command checks it before the work that WriteReport
// ends.
func CheckDir(dir string) error { return checkMarked(dir, MarkerFile) }

// checkMarked returns nil when dir does not exist or holds marker: a
// folder ctxbench made, which it may replace.
func checkMarked(dir, marker string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s exists and is not a folder", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
		return fmt.Errorf("not replacing %s: %w (no %s in it)", dir, ErrNotAReport, marker)
	}
	return nil
}

// WriteReport writes the report into dir: index.html, report.md,
// results.json, summary.csv, steps.csv, sweep.csv and the plots. It builds
// everything in a new folder beside dir and swaps it in at the end; an
// existing dir is replaced only if it holds MarkerFile. The folders of
// earlier runs killed while they built dir's, untouched for 10 minutes,
// are removed first ([removeStale]). It returns the index page's path.
func WriteReport(dir string, r *Report) (string, error) {
	if err := CheckDir(dir); err != nil {
		return "", err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	removeStale(parent, filepath.Base(dir))
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp*")
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	if err := build(tmp, r); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := swapDir(tmp, dir); err != nil {
		return "", err
	}
	ok = true
	return filepath.Join(dir, "index.html"), nil
}

// swapDir puts the folder tmp in dir's place, and removes what dir held.
func swapDir(tmp, dir string) error {
	if _, err := os.Stat(dir); err == nil {
		old := tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		defer os.RemoveAll(old)
	}
	return os.Rename(tmp, dir)
}

// figure is a plot in the report: of one session (its index) or, with
// session −1, of them all.
type figure struct {
	file, caption string
	session       int
}

func build(dir string, r *Report) error {
	if err := r.Detail.Check(r.Policies); err != nil {
		return err
	}
	show := r.detailed(r.Detail)
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), []byte("made by ctxbench report\n"), 0o644); err != nil {
		return err
	}
	var figs figureList
	labels := uniqueLabels(r.Transcripts)
	for i := range r.Transcripts {
		if r.Transcripts[i].Calls < 2 || !show[i] {
			continue // a line needs two calls: the page says so
		}
		t, err := r.transcript(i)
		if err != nil {
			return err
		}
		if err := sessionFigures(dir, r.Estimator, &figs, i, &t, labels[i]); err != nil {
			return err
		}
	}
	if err := summaryFigures(dir, r, &figs); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		write func(w *bufio.Writer) error
	}{
		{"results.json", func(w *bufio.Writer) error { return writeResults(w, r) }},
		{"summary.csv", func(w *bufio.Writer) error { return writeSummaryCSV(w, r) }},
		{"steps.csv", func(w *bufio.Writer) error { return writeSteps(w, r) }},
		{"report.md", func(w *bufio.Writer) error { return writeMarkdown(w, r, figs.figs, show) }},
		{"index.html", func(w *bufio.Writer) error { return writeHTML(w, r, figs.figs, show) }},
	} {
		if err := WriteFile(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	if r.Sweep != nil {
		return WriteFile(filepath.Join(dir, "sweep.csv"), func(w *bufio.Writer) error { return WriteCSV(w, SweepCSV(r.Sweep)) })
	}
	return nil
}

// A figureList collects the report's plots, in the order drawn.
type figureList struct{ figs []figure }

// add(caption, session)(files, err) records a plot's PNG under its
// caption, for one session (its index) or, with −1, for them all.
func (l *figureList) add(caption string, session int) func([]string, error) error {
	return func(files []string, err error) error {
		if err != nil {
			return err
		}
		l.figs = append(l.figs, figure{filepath.Base(files[0]), caption, session})
		return nil
	}
}

// sessionFigures draws session i's plots (t, called name on them):
// messages and tokens sent per call, cumulative cost beside the bill,
// and cache traffic.
func sessionFigures(dir, estimator string, figs *figureList, i int, t *TranscriptResult, name string) error {
	var msgs, toks, cost []Series
	var caps []Level
	cache := cacheSeries(t)
	for k, p := range t.Runs {
		msgs = append(msgs, Series{Label: p.Label, Key: k, Y: ints(p.Messages)})
		toks = append(toks, Series{Label: p.Label, Key: k, Y: ints(p.Tokens)})
		if p.Cost != nil {
			cost = append(cost, Series{Label: p.Label, Key: k, Y: cumulative(p.Cost)})
		}
		if p.MessageCap > 0 {
			caps = append(caps, Level{fmt.Sprintf("cap of %s (%s)", p.Label, Int(p.MessageCap)), float64(p.MessageCap), p.Label})
		}
	}
	n := strconv.Itoa(i + 1)
	if err := figs.add("Messages sent per call, "+t.File, i)(LineChart(dir, "growth-messages-"+n, "Messages sent per call: "+name, "messages", msgs, caps)); err != nil {
		return err
	}
	if err := figs.add("Tokens sent per call, "+t.File, i)(LineChart(dir, "growth-tokens-"+n, "Tokens sent per call: "+name, estimator+" tokens", toks, nil)); err != nil {
		return err
	}
	if len(cost) > 0 {
		if t.Billed != nil {
			bill := Series{Label: "billed (recorded usage)", Y: cumulative(t.Billed), Reference: true, MarkLabel: "cache miss (the provider's)"}
			for _, m := range t.Misses {
				bill.Marks = append(bill.Marks, m.Call)
			}
			cost = append(cost, bill)
		}
		if err := figs.add("Cumulative cost, "+t.File+unplottedCost(t), i)(LineChart(dir, "cost-"+n, "Cumulative cost: "+name+" ("+t.Model+")", "USD", cost, nil)); err != nil {
			return err
		}
	}
	if len(cache) > 0 && !cacheUnused(t) {
		return figs.add("Cache reads and writes per call, policy events and cache breaks marked, "+t.File, i)(CacheChart(dir, "cache-"+n, "Cache traffic per call, policies that changed what was sent: "+name, cache))
	}
	return nil
}

// cacheSeries are the cache traffic of t's runs that changed what was
// sent (a policy event) and whose cache breaks were weighed; each Key is
// the run's policy's place in the report.
func cacheSeries(t *TranscriptResult) []CacheSeries {
	var cache []CacheSeries
	for k, p := range t.Runs {
		if p.CacheBreaks != nil && len(p.Events) > 0 {
			cs := CacheSeries{Label: p.Label, Key: k, Read: p.CacheRead, Write: p.CacheWrite, Events: p.Events}
			for _, b := range p.Breaks {
				cs.Break = append(cs.Break, b.Step)
			}
			cache = append(cache, cs)
		}
	}
	return cache
}

// cacheUnused reports whether t has cache traffic to draw and none of it
// is a read or a write: no prompt cache in the bill, so no cache plot.
func cacheUnused(t *TranscriptResult) bool {
	cache := cacheSeries(t)
	for _, s := range cache {
		if slices.ContainsFunc(s.Read, func(v int64) bool { return v != 0 }) || slices.ContainsFunc(s.Write, func(v int64) bool { return v != 0 }) {
			return false
		}
	}
	return len(cache) > 0
}

// summaryFigures draws the plots of all the sessions: the Pareto chart,
// the estimates against exact counts, and the sweep's heatmap.
func summaryFigures(dir string, r *Report, figs *figureList) error {
	if pts := r.tallied().paretoPoints(); len(pts) > 1 {
		if err := figs.add("Cost against probe score, the Pareto front dashed", -1)(ParetoChart(dir, "pareto", pts)); err != nil {
			return err
		}
	}
	if r.counts != nil && r.counts.added > 0 {
		if _, err := r.counts.Plot(dir); err != nil {
			return err
		}
		figs.figs = append(figs.figs, figure{"estimate-scatter.png", "Token estimates against exact counts", -1}, figure{"estimate-error.png", "Relative error of the estimates", -1})
	}
	if s := r.Sweep; s != nil && len(s.Grid) == 2 {
		return sweepFigures(dir, r, s, figs)
	}
	return nil
}

// sweepFigures draws the sweep's heatmaps, probe score and, when its
// points are priced, cost, the recommended cell ([replay.SweepResult.Answer])
// outlined in each.
func sweepFigures(dir string, r *Report, s *replay.SweepResult, figs *figureList) error {
	a := recommend.Answer(s, r.MinProbeScore)
	best := -1
	if a.BestIndex < len(s.Points) {
		best = a.BestIndex
	}
	xs, ys, z, mark, err := sweepGrid(s, best, func(p *replay.Point) float64 { return p.ProbeScore * 100 })
	if err != nil {
		return nil // a grid of values that are not numbers: no heatmap
	}
	title := "Sweep of " + s.Policy + baseText(s.Base) + " over the transcripts"
	caption := sweepCaption(s, &a, best)
	if err := figs.add("Sweep of "+s.Policy+": probe score"+caption, -1)(heatmap(dir, "sweep-heatmap", title+": probes not lost", s.Grid[0].Key, s.Grid[1].Key, "probe score (%)", xs, ys, z, heatOptions{mark: mark, prec: 1})); err != nil {
		return err
	}
	if !s.Costed || len(s.Points) == 0 || s.Points[0].Priced == 0 {
		return nil
	}
	_, _, z, _, _ = sweepGrid(s, best, func(p *replay.Point) float64 { return p.CostUSD })
	return figs.add("Sweep of "+s.Policy+": cost"+caption, -1)(heatmap(dir, "sweep-cost", title+": cost (USD, of the "+Count(s.Points[0].Priced, "transcript", "transcripts")+" priced)", s.Grid[0].Key, s.Grid[1].Key, "cost (USD)", xs, ys, z, heatOptions{mark: mark, prec: 2}))
}

// sweepCaption says which cell is recommended, or what is recommended
// instead.
func sweepCaption(s *replay.SweepResult, a *recommend.SweepAnswer, best int) string {
	if best >= 0 {
		p := s.Points[best]
		return fmt.Sprintf(", the recommended cell (%s=%s, %s=%s) outlined", s.Grid[0].Key, p.Params[s.Grid[0].Key], s.Grid[1].Key, p.Params[s.Grid[1].Key])
	}
	floor := recommend.Percent(a.MinProbeScore)
	if a.BestIndex >= 0 {
		return fmt.Sprintf(", no cell recommended: %s keeps %s of the probes for less", a.Best.Label, floor)
	}
	return fmt.Sprintf(", no cell recommended: none keeps %s of the probes with no invariant broken", floor)
}

func ints(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// unplottedCost says, for a caption, what the cumulative cost curves of
// t leave out: what the log records but attributes to no call (output
// not streamed, calls it shows no record of), which every policy's total
// holds and none of its calls; "" when nothing is. It is read off a run
// that made no summary (a summary call is in its total, not its calls).
func unplottedCost(t *TranscriptResult) string {
	for _, p := range t.Runs {
		if p.CostUSD == nil || p.Cost == nil || p.Summary.Summaries > 0 {
			continue
		}
		var calls float64
		for _, c := range p.Cost {
			calls += c
		}
		if gap := *p.CostUSD - calls; gap >= 0.00005 {
			return fmt.Sprintf(" (the curves end %s below the table's totals: what the log records but attributes to no call, in the totals only)", USD(gap))
		}
		return ""
	}
	return ""
}

func cumulative(v []float64) []float64 {
	out := make([]float64, len(v))
	s := 0.0
	for i, x := range v {
		s += x
		out[i] = s
	}
	return out
}

func shortLabel(p string) string { return shortPath(strings.TrimPrefix(p, "embedded:")) }

func sweepGrid(s *replay.SweepResult, best int, value func(*replay.Point) float64) (xs, ys []float64, z [][]float64, mark [2]int, err error) {
	mark = [2]int{-1, -1}
	parse := func(v []string) ([]float64, error) {
		out := make([]float64, len(v))
		for i, x := range v {
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	}
	if xs, err = parse(s.Grid[0].Values); err != nil {
		return
	}
	if ys, err = parse(s.Grid[1].Values); err != nil {
		return
	}
	z = make([][]float64, len(ys))
	for i := range z {
		z[i] = make([]float64, len(xs))
		for j := range z[i] {
			z[i][j] = math.NaN() // an invalid combination: no cell
		}
	}
	for k := range s.Points {
		p := &s.Points[k]
		for i, y := range s.Grid[1].Values {
			for j, x := range s.Grid[0].Values {
				if p.Params[s.Grid[0].Key] == x && p.Params[s.Grid[1].Key] == y {
					z[i][j] = value(p)
					if k == best {
						mark = [2]int{i, j}
					}
				}
			}
		}
	}
	return
}

// A csvWriter writes CSV each cell of which a spreadsheet takes for text
// or a number, never for a formula ([printable.CSVCell]): every CSV
// ctxbench writes is written with one.
type csvWriter struct {
	w   *csv.Writer
	row []string
}

func newCSVWriter(w io.Writer) *csvWriter { return &csvWriter{w: csv.NewWriter(w)} }

// Write writes a row.
func (c *csvWriter) Write(row []string) error {
	c.row = c.row[:0]
	for _, cell := range row {
		c.row = append(c.row, printable.CSVCell(cell))
	}
	return c.w.Write(c.row)
}

// Flush writes what is buffered and returns the first error of any
// write.
func (c *csvWriter) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// WriteCSV writes rows as CSV, no cell of which a spreadsheet takes for
// a formula ([printable.CSVCell]).
func WriteCSV(w io.Writer, rows [][]string) error {
	cw := newCSVWriter(w)
	for _, row := range rows {
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	return cw.Flush()
}

// summaryRows is the summary table; human formats numbers for people.
func summaryRows(r *Report, human bool, show []bool) ([][]string, error) {
	var rows [][]string
	err := eachSummaryRow(r, human, show, func(row []string) error {
		rows = append(rows, row)
		return nil
	})
	return rows, err
}

// writeSummaryCSV writes summary.csv, a session at a time.
func writeSummaryCSV(w io.Writer, r *Report) error {
	cw := newCSVWriter(w)
	if err := eachSummaryRow(r, false, nil, cw.Write); err != nil {
		return err
	}
	return cw.Flush()
}

// eachSummaryRow calls f with each row of the summary table, the header
// first, reading one transcript at a time: of every transcript, or those
// show says (nil: every one).
func eachSummaryRow(r *Report, human bool, show []bool, f func(row []string) error) error {
	if err := f(summaryHeader()); err != nil {
		return err
	}
	return r.each(show, func(_ int, t *TranscriptResult) error {
		for k := range t.Runs {
			if err := f(summaryRow(t, &t.Runs[k], r.Estimator, human)); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeSteps writes steps.csv, one row per call of every run, a row at
// a time: a long session's rows are never all in memory.
func writeSteps(w io.Writer, r *Report) error {
	cw := newCSVWriter(w)
	if err := cw.Write([]string{"transcript", "policy", "call", "messages", "tokens", "retention", "probes asked", "probes kept", "cost (USD)"}); err != nil {
		return err
	}
	row := make([]string, 9)
	err := r.each(nil, func(_ int, t *TranscriptResult) error {
		for _, p := range t.Runs {
			for i := range p.Messages {
				cost := ""
				if i < len(p.Cost) {
					cost = strconv.FormatFloat(p.Cost[i], 'f', 6, 64)
				}
				row[0], row[1], row[2], row[3] = shortLabel(t.File), p.Label, strconv.Itoa(i+1), strconv.Itoa(p.Messages[i])
				row[4], row[5], row[8] = strconv.Itoa(p.Tokens[i]), strconv.FormatFloat(p.Retention[i], 'f', 4, 64), cost
				row[6], row[7] = "", ""
				if i < len(p.ProbesAsked) && i < len(p.ProbesKept) {
					row[6], row[7] = strconv.Itoa(p.ProbesAsked[i]), strconv.Itoa(p.ProbesKept[i])
				}
				if err := cw.Write(row); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return cw.Flush()
}

func writeMarkdown(w io.Writer, r *Report, figs []figure, show []bool) error {
	fmt.Fprintf(w, "# ctxbench report\n\n%s replayed under %s; tokens are %s counts.\n\n", printable.Markdown(overviewText(r.Overview())), Count(len(r.Policies), "policy", "policies"), printable.Markdown(r.Estimator))
	// The answer first, as on the page: the recommendation, then the
	// policies over every session and what they cost.
	totals := r.Totals()
	if rec := recommendation(totals, r.MinProbeScore, new(r.ProjectionError())); rec != "" {
		fmt.Fprintf(w, "**%s**\n\n", printable.Markdown(rec))
	}
	fmt.Fprint(w, "## Policies over all sessions\n\n")
	writeMarkdownTotals(w, totals)
	fmt.Fprintln(w)
	if len(totals) > 0 && len(totals[0].NotPriced) > 0 {
		fmt.Fprintf(w, "Not priced (no cost is counted for them, never $0): %s.\n\n", printable.Markdown(strings.Join(totals[0].NotPriced, "; ")))
	}
	for _, g := range costTables(r) {
		align := "|---" + strings.Repeat("|--:", len(g.header)-1)
		if g.lastText {
			align = strings.TrimSuffix(align, "--:") + "---"
		}
		fmt.Fprintf(w, "### %s\n\n| %s |\n%s|\n", g.title, strings.Join(mdCells(g.header), " | "), align)
		for _, row := range g.rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(mdCells(row), " | "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s. In the tables, %s.\n\n## Sessions\n\n", paretoNote, ProbeNote)
	if n := countTrue(show); n < len(show) {
		fmt.Fprintf(w, "%s. Every session is in summary.csv, steps.csv and results.json.\n\n", detailText(n, len(show), r.Detail.By))
	}
	rows, err := markdownSessionRows(r, show)
	if err != nil {
		return err
	}
	aligns := make([]tw.Align, len(rows[0]))
	for i := range aligns {
		aligns[i] = tw.AlignRight
		if i < 2 {
			aligns[i] = tw.AlignLeft
		}
	}
	tbl := tablewriter.NewTable(w, tablewriter.WithRenderer(renderer.NewMarkdown()), tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone), tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: aligns}))
	tbl.Header(anySlice(mdCells(rows[0]))...)
	for _, row := range rows[1:] {
		if err := tbl.Append(anySlice(mdCells(row))...); err != nil {
			return err
		}
	}
	if err := tbl.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "- %s\n", printable.Markdown(n))
	}
	err = r.each(show, func(_ int, t *TranscriptResult) error {
		for _, n := range t.Notes {
			fmt.Fprintf(w, "- %s, %s\n", printable.Markdown(shortLabel(t.File)), printable.Markdown(n))
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, f := range figs {
		fmt.Fprintf(w, "![%s](%s)\n\n", printable.Markdown(f.caption), f.file)
	}
	return nil
}

// markdownSessionRows are the rows of report.md's table of sessions: the
// header, then each shown session's runs followed by its subagents',
// each subagent named under its session as on the page ([subagents]);
// a subagent whose session is not shown names that session.
func markdownSessionRows(r *Report, show []bool) ([][]string, error) {
	rows := [][]string{summaryHeader()}
	under, inner := subagents(r.Transcripts, show)
	add := func(i int, inside bool) error {
		t, err := r.transcript(i)
		if err != nil {
			return err
		}
		label := shortLabel(t.File)
		if inside {
			label = "└ " + subagentName(&t)
		} else if t.Parent != "" {
			label += " (a subagent of session " + t.Parent + ")"
		}
		for k := range t.Runs {
			row := summaryRow(&t, &t.Runs[k], r.Estimator, true)
			row[0] = label
			rows = append(rows, row)
		}
		return nil
	}
	for i := range r.Transcripts {
		if !show[i] || inner[i] {
			continue
		}
		if err := add(i, false); err != nil {
			return nil, err
		}
		for _, j := range under[i] {
			if err := add(j, true); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// mdCells are cells of a Markdown table ([mdCell]).
func mdCells(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = mdCell(c)
	}
	return out
}

// mdCell is c, text that may come from an input, in a cell of a
// Markdown table: its markup written as text ([printable.Markdown]) and
// its | escaped.
func mdCell(c string) string { return strings.ReplaceAll(printable.Markdown(c), "|", `\|`) }

// baseText renders a sweep's fixed parameters: " (k=v, …)", or "".
func baseText(base map[string]string) string {
	if len(base) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(base))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + base[k]
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
