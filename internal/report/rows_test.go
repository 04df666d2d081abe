package report

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/parquet-go/parquet-go"

	"github.com/ctxbench/ctxbench/internal/metric"
)

// TestRowsDocumented: docs/rows.md lists every column of runs and calls,
// in the order the rows hold them, and no other.
func TestRowsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/rows.md")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile("`([a-z_]+)`")
	for _, tc := range []struct {
		section string
		row     any
	}{{"## runs", RunRow{}}, {"## calls", CallRow{}}} {
		_, rest, ok := strings.Cut(string(doc), "\n"+tc.section+"\n")
		if !ok {
			t.Fatalf("docs/rows.md has no %q", tc.section)
		}
		rest, _, _ = strings.Cut(rest, "\n## ")
		var documented []string
		for _, line := range strings.Split(rest, "\n") {
			cells := strings.Split(line, "|")
			if len(cells) < 4 || strings.Contains(cells[1], "---") {
				continue
			}
			for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
				documented = append(documented, m[1])
			}
		}
		var columns []string
		for _, f := range reflect.VisibleFields(reflect.TypeOf(tc.row)) {
			if f.Anonymous {
				continue
			}
			tag, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
			columns = append(columns, tag)
		}
		if !slices.Equal(documented, columns) {
			t.Errorf("%s: docs/rows.md lists %v; the rows hold %v", tc.section, documented, columns)
		}
	}
}

// TestRowsReadBack: runs and calls rows written as Parquet read back as
// they were written, a null column null and the billed tokens in place.
func TestRowsReadBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rows")
	w, err := NewRowsWriter(dir, RowsParquet)
	if err != nil {
		t.Fatal(err)
	}
	sent, ret := int64(7), 0.5
	bill := metric.Billed{CacheReadTokens: 1, CacheWriteTokens: 2, UncachedInputTokens: 3, OutputTokens: 4}
	runs := []RunRow{{Session: "a", Calls: 1, Billed: bill, TotalPUSD: 9},
		{Session: "b", Calls: 1, TokensSent: &sent, Retention: &ret, Metrics: metric.Values{"worst_retention": 0.25}}}
	calls := []CallRow{{Session: "a", Billed: bill, CostPUSD: 9}, {Session: "b", TokensSent: &sent, Retention: &ret}}
	if err := w.Add(runs, calls); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	gotRuns, err := parquet.ReadFile[RunRow](filepath.Join(dir, "runs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	gotCalls, err := parquet.ReadFile[CallRow](filepath.Join(dir, "calls.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(runs, gotRuns, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("runs read back (-written +read):\n%s", diff)
	}
	if diff := cmp.Diff(calls, gotCalls, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("calls read back (-written +read):\n%s", diff)
	}
}
