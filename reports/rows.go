package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
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
	TokensSent          *int64  `parquet:"tokens_sent,optional" json:"tokens_sent"`
	CacheReadTokens     int64   `parquet:"cache_read_tokens" json:"cache_read_tokens"`
	CacheWriteTokens    int64   `parquet:"cache_write_tokens" json:"cache_write_tokens"`
	UncachedInputTokens int64   `parquet:"uncached_input_tokens" json:"uncached_input_tokens"`
	OutputTokens        int64   `parquet:"output_tokens" json:"output_tokens"`
	InputPUSD           int64   `parquet:"input_pusd" json:"input_pusd"`
	CacheReadPUSD       int64   `parquet:"cache_read_pusd" json:"cache_read_pusd"`
	CacheWritePUSD      int64   `parquet:"cache_write_pusd" json:"cache_write_pusd"`
	OutputPUSD          int64   `parquet:"output_pusd" json:"output_pusd"`
	SummariesPUSD       int64   `parquet:"summaries_pusd" json:"summaries_pusd"`
	TotalPUSD           int64   `parquet:"total_pusd" json:"total_pusd"`
	TotalUSD            float64 `parquet:"total_usd" json:"total_usd"`
	CacheBreaks         int64   `parquet:"cache_breaks" json:"cache_breaks"`
	CacheBreakPUSD      int64   `parquet:"cache_break_pusd" json:"cache_break_pusd"`
	CacheMisses         int64   `parquet:"cache_misses" json:"cache_misses"`
	CacheMissPUSD       int64   `parquet:"cache_miss_pusd" json:"cache_miss_pusd"`
	// Retention is the run's mean retention (null: not replayed).
	Retention *float64 `parquet:"retention,optional" json:"retention"`
}

// A CallRow is one call of one policy's run of one transcript: a row of
// calls.parquet (or calls.jsonl).
type CallRow struct {
	Session    string `parquet:"session_id" json:"session_id"`
	Transcript string `parquet:"transcript_id" json:"transcript_id"`
	Policy     string `parquet:"policy" json:"policy"`
	// Call is the call's index in the transcript (0 the first), Time when
	// it was made (RFC 3339, UTC; "" unknown).
	Call                int64    `parquet:"call" json:"call"`
	Time                string   `parquet:"time" json:"time"`
	TokensSent          *int64   `parquet:"tokens_sent,optional" json:"tokens_sent"`
	CacheReadTokens     int64    `parquet:"cache_read_tokens" json:"cache_read_tokens"`
	CacheWriteTokens    int64    `parquet:"cache_write_tokens" json:"cache_write_tokens"`
	UncachedInputTokens int64    `parquet:"uncached_input_tokens" json:"uncached_input_tokens"`
	OutputTokens        int64    `parquet:"output_tokens" json:"output_tokens"`
	CostPUSD            int64    `parquet:"cost_pusd" json:"cost_pusd"`
	CacheBreak          bool     `parquet:"cache_break" json:"cache_break"`
	CacheMiss           bool     `parquet:"cache_miss" json:"cache_miss"`
	Retention           *float64 `parquet:"retention,optional" json:"retention"`
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
// [RowsMarker], and a run that fails leaves it as it was.
type RowsWriter struct {
	dir, tmp string
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
