package report

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A RunRow is one policy's run of one transcript: a row of runs.parquet
// (or runs.jsonl), which docs/rows.md describes column by column. Money
// is in pico-dollars (exact) and, for the total, in dollars.
type RunRow struct {
	Session    string `parquet:"session_id" json:"session_id"`
	Transcript string `parquet:"transcript_id" json:"transcript_id"`
	File       string `parquet:"file" json:"file"`
	Agent      string `parquet:"agent" json:"agent"`
	Model      string `parquet:"model" json:"model"`
	Day        string `parquet:"day" json:"day"`
	Policy     string `parquet:"policy" json:"policy"`
	PolicyName string `parquet:"policy_name" json:"policy_name"`
	Params     string `parquet:"policy_params" json:"policy_params"`
	Calls      int64  `parquet:"calls" json:"calls"`
	// TokensSent is the estimate of what the calls sent (null: priced
	// from the bill alone, nothing counted).
	TokensSent *int64 `parquet:"tokens_sent,optional" json:"tokens_sent"`
	// Billed is what the calls were billed for.
	metric.Billed
	InputPUSD      int64   `parquet:"input_pusd" json:"input_pusd"`
	CacheReadPUSD  int64   `parquet:"cache_read_pusd" json:"cache_read_pusd"`
	CacheWritePUSD int64   `parquet:"cache_write_pusd" json:"cache_write_pusd"`
	OutputPUSD     int64   `parquet:"output_pusd" json:"output_pusd"`
	SummariesPUSD  int64   `parquet:"summaries_pusd" json:"summaries_pusd"`
	TotalPUSD      int64   `parquet:"total_pusd" json:"total_pusd"`
	TotalUSD       float64 `parquet:"total_usd" json:"total_usd"`
	CacheBreaks    int64   `parquet:"cache_breaks" json:"cache_breaks"`
	CacheBreakPUSD int64   `parquet:"cache_break_pusd" json:"cache_break_pusd"`
	CacheMisses    int64   `parquet:"cache_misses" json:"cache_misses"`
	CacheMissPUSD  int64   `parquet:"cache_miss_pusd" json:"cache_miss_pusd"`
	// Retention is the run's mean retention (null: not replayed).
	Retention *float64 `parquet:"retention,optional" json:"retention"`
	// ProbeScore is the share of the session's probes the run did not
	// lose, ProbesLost and Probes the counts it is made of (null: not
	// replayed).
	ProbeScore *float64 `parquet:"probe_score,optional" json:"probe_score"`
	ProbesLost *int64   `parquet:"probes_lost,optional" json:"probes_lost"`
	Probes     *int64   `parquet:"probes,optional" json:"probes"`
	// Metrics are the run's shown metrics by name (null, an empty map
	// in Parquet: not replayed).
	Metrics metric.Values `parquet:"metrics" json:"metrics"`
}

// A CallRow is one call of one policy's run of one transcript: a row of
// calls.parquet (or calls.jsonl).
type CallRow struct {
	Session    string `parquet:"session_id" json:"session_id"`
	Transcript string `parquet:"transcript_id" json:"transcript_id"`
	Policy     string `parquet:"policy" json:"policy"`
	// Call is the call's index in the transcript (0 the first), Time when
	// it was made (RFC 3339, UTC; "" unknown).
	Call       int64  `parquet:"call" json:"call"`
	Time       string `parquet:"time" json:"time"`
	TokensSent *int64 `parquet:"tokens_sent,optional" json:"tokens_sent"`
	// Billed is what the call was billed for.
	metric.Billed
	CostPUSD   int64    `parquet:"cost_pusd" json:"cost_pusd"`
	CacheBreak bool     `parquet:"cache_break" json:"cache_break"`
	CacheMiss  bool     `parquet:"cache_miss" json:"cache_miss"`
	Retention  *float64 `parquet:"retention,optional" json:"retention"`
	// ProbesAsked counts the probes about the messages the policy first
	// stopped sending at this call, ProbesKept those the context still
	// answered (null: not replayed).
	ProbesAsked *int64 `parquet:"probes_asked,optional" json:"probes_asked"`
	ProbesKept  *int64 `parquet:"probes_kept,optional" json:"probes_kept"`
}

// RunSteps are what a run's rows take from its replay, call by call:
// the estimate of what each call sent, its retention and its probes
// (empty: the run was priced from the bill, not replayed); and what the
// run lost of the session's probes.
type RunSteps struct {
	Tokens      []int
	Retention   []float64
	ProbesAsked []int
	ProbesKept  []int
	// Loss and Metrics are the run's, from its summary.
	Loss    probe.Loss
	Metrics metric.Values
}

// Add adds a step's series.
func (r *RunSteps) Add(s *replay.Step, est string) {
	r.Tokens = append(r.Tokens, s.Tokens[est])
	r.Retention = append(r.Retention, s.Retention)
	r.ProbesAsked = append(r.ProbesAsked, s.ProbesAsked)
	r.ProbesKept = append(r.ProbesKept, s.ProbesKept)
}

// RowsOf returns t's rows: one per policy, pols[k] priced at costs[k]
// and replayed as steps[k] says, and one per policy and call. misses are
// the recorded calls that missed the cache, totals their sums (nil: no
// bill).
func RowsOf(t *transcript.Transcript, pols []window.Labeled, costs []*cost.RunCost, steps []RunSteps, misses []cost.CacheMiss, totals *cost.CacheMisses) ([]RunRow, []CallRow) {
	times := t.CallTimes()
	day := ""
	for _, at := range times {
		if !at.IsZero() {
			day = at.UTC().Format(time.DateOnly)
			break
		}
	}
	missed := map[int]bool{}
	for _, m := range misses {
		missed[m.Call] = true
	}
	var nMisses, missCost int64
	if totals != nil {
		nMisses, missCost = int64(totals.Calls), int64(totals.Cost)
	}
	session := cmp.Or(t.Parent, t.ID)
	var runs []RunRow
	var calls []CallRow
	for k, rc := range costs {
		var st RunSteps
		if k < len(steps) && len(steps[k].Tokens) == len(rc.PerStep) && len(steps[k].Retention) == len(rc.PerStep) &&
			len(steps[k].ProbesAsked) == len(rc.PerStep) && len(steps[k].ProbesKept) == len(rc.PerStep) {
			st = steps[k]
		}
		replayed := len(st.Tokens) > 0
		run := RunRow{Session: session, Transcript: t.ID, File: t.File, Agent: string(t.Format), Model: rc.Model, Day: day,
			Policy: pols[k].Label, PolicyName: pols[k].Policy.Name(), Params: paramString(pols[k].Policy.Params()), Calls: int64(len(rc.PerStep)),
			Billed:    billed(rc.Usage),
			InputPUSD: int64(rc.Calls.Input), CacheReadPUSD: int64(rc.Calls.CacheRead), CacheWritePUSD: int64(rc.Calls.CacheWrite), OutputPUSD: int64(rc.Calls.Output),
			SummariesPUSD: int64(rc.Summaries.Total()), TotalPUSD: int64(rc.Total), TotalUSD: rc.Total.USD(),
			CacheBreaks: int64(rc.BreakTotals.Breaks), CacheBreakPUSD: int64(rc.BreakTotals.Cost), CacheMisses: nMisses, CacheMissPUSD: missCost}
		breaks := map[int]bool{}
		for _, b := range rc.Breaks {
			breaks[b.Step] = true
		}
		var sent int64
		var kept float64
		for i, c := range rc.PerStep {
			var u transcript.Usage
			if i < len(rc.PerStepUsage) {
				u = rc.PerStepUsage[i]
			}
			row := CallRow{Session: session, Transcript: t.ID, Policy: pols[k].Label, Call: int64(i),
				Billed: billed(u), CostPUSD: int64(c), CacheBreak: breaks[i], CacheMiss: missed[i]}
			if i < len(times) && !times[i].IsZero() {
				row.Time = times[i].UTC().Format(time.RFC3339)
			}
			if replayed {
				n, ret, asked, answered := int64(st.Tokens[i]), st.Retention[i], int64(st.ProbesAsked[i]), int64(st.ProbesKept[i])
				row.TokensSent, row.Retention, row.ProbesAsked, row.ProbesKept = &n, &ret, &asked, &answered
				sent += n
				kept += ret
			}
			calls = append(calls, row)
		}
		if replayed {
			mean := kept / float64(len(st.Tokens))
			run.TokensSent, run.Retention = &sent, &mean
			lost, of := st.Loss.Totals()
			score, lost64, of64 := st.Loss.Score(), int64(lost), int64(of)
			run.ProbeScore, run.ProbesLost, run.Probes = &score, &lost64, &of64
			run.Metrics = st.Metrics
		}
		runs = append(runs, run)
	}
	return runs, calls
}

// billed is what usage u bills for, as a row holds it.
func billed(u transcript.Usage) metric.Billed {
	return metric.Billed{CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite, UncachedInputTokens: u.Input, OutputTokens: u.Output}
}

// paramString is a policy's parameters as key=value, sorted by key.
func paramString(v window.Values) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(v)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + v[k])
	}
	return b.String()
}

// RowsMarker marks a folder of rows, which a later run may replace.
const RowsMarker = ".ctxbench-rows"

// The row formats a RowsWriter writes.
const (
	RowsParquet = "parquet"
	RowsJSONL   = "jsonl"
)

// A RowsWriter writes runs and calls rows into a folder as they come:
// runs.parquet and calls.parquet, or runs.jsonl and calls.jsonl. It
// writes into a new folder beside the one named and swaps it in at
// [RowsWriter.Close]: a folder that exists is replaced only if it holds
// [RowsMarker], and a run that fails leaves it as it was. It removes
// the folders of earlier runs killed while they wrote the same one,
// untouched for 10 minutes, and touches its own at least once a minute
// while rows come, however long the rows wait in its buffers.
type RowsWriter struct {
	dir, tmp string
	touched  time.Time // when tmp was last touched
	files    []*os.File
	bufs     []*bufio.Writer
	// parquet
	runs  *parquet.GenericWriter[RunRow]
	calls *parquet.GenericWriter[CallRow]
	// jsonl
	runsJSON, callsJSON *json.Encoder
}

// CheckRowsDir returns nil when rows may be written into dir: it does not
// exist, or rows were written there before (it holds RowsMarker).
func CheckRowsDir(dir string) error { return checkMarked(dir, RowsMarker) }

// NewRowsWriter starts writing rows of format (RowsParquet or RowsJSONL)
// for dir.
func NewRowsWriter(dir, format string) (*RowsWriter, error) {
	if format != RowsParquet && format != RowsJSONL {
		return nil, fmt.Errorf("rows: unknown format %q", format)
	}
	if err := CheckRowsDir(dir); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	removeStale(parent, filepath.Base(dir))
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp*")
	if err != nil {
		return nil, err
	}
	w := &RowsWriter{dir: dir, tmp: tmp}
	open := func(name string) (*bufio.Writer, error) {
		f, err := os.Create(filepath.Join(tmp, name))
		if err != nil {
			return nil, err
		}
		b := bufio.NewWriterSize(f, 256<<10)
		w.files, w.bufs = append(w.files, f), append(w.bufs, b)
		return b, nil
	}
	runs, err := open("runs." + format)
	if err == nil {
		var calls *bufio.Writer
		if calls, err = open("calls." + format); err == nil {
			if format == RowsParquet {
				// A row group every 2¹⁸ rows: what the writer holds
				// does not grow with the sessions.
				opts := []parquet.WriterOption{parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(1 << 18)}
				w.runs = parquet.NewGenericWriter[RunRow](runs, opts...)
				w.calls = parquet.NewGenericWriter[CallRow](calls, opts...)
			} else {
				w.runsJSON, w.callsJSON = json.NewEncoder(runs), json.NewEncoder(calls)
			}
		}
	}
	if err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// Add writes one transcript's rows.
func (w *RowsWriter) Add(runs []RunRow, calls []CallRow) error {
	if now := time.Now(); now.Sub(w.touched) >= time.Minute {
		if err := os.Chtimes(w.tmp, now, now); err != nil {
			return err
		}
		w.touched = now
	}
	if w.runs != nil {
		if _, err := w.runs.Write(runs); err != nil {
			return err
		}
		_, err := w.calls.Write(calls)
		return err
	}
	for i := range runs {
		if err := w.runsJSON.Encode(&runs[i]); err != nil {
			return err
		}
	}
	for i := range calls {
		if err := w.callsJSON.Encode(&calls[i]); err != nil {
			return err
		}
	}
	return nil
}

// Close finishes the files and swaps the folder in.
func (w *RowsWriter) Close() (err error) {
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	if w.runs != nil {
		if err := w.runs.Close(); err != nil {
			return err
		}
		if err := w.calls.Close(); err != nil {
			return err
		}
	}
	for i, f := range w.files {
		if err := w.bufs[i].Flush(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	w.files = nil
	if err := os.WriteFile(filepath.Join(w.tmp, RowsMarker), []byte("rows written by ctxbench; a later run may replace this folder\n"), 0o644); err != nil {
		return err
	}
	if err := os.Chmod(w.tmp, 0o755); err != nil {
		return err
	}
	return swapDir(w.tmp, w.dir)
}

// Abort removes what was written; the folder named is left as it was.
func (w *RowsWriter) Abort() {
	for _, f := range w.files {
		f.Close()
	}
	w.files = nil
	os.RemoveAll(w.tmp)
}
