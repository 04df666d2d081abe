package report

import (
	"io"
	"strconv"
)

// A TokenCount is a text's size and its tokens by estimator, as `ctxbench
// tokens` counts them.
type TokenCount struct {
	File       string         `json:"file"`
	Bytes      int            `json:"bytes"`
	Characters int            `json:"characters"`
	Tokens     map[string]int `json:"tokens"`
}

// WriteTokenCounts writes `ctxbench tokens`' table: each text's bytes and
// its tokens by each estimator named, then their totals when there are
// several texts.
func WriteTokenCounts(w io.Writer, counts []TokenCount, estimators []string) error {
	t := Table{Header: []string{"file", "bytes"}, Right: []bool{false, true}}
	for _, est := range estimators {
		t.Header = append(t.Header, est)
		t.Right = append(t.Right, true)
	}
	total := make([]int, len(estimators))
	totalBytes := 0
	for _, in := range counts {
		row := []string{in.File, Int(in.Bytes)}
		for k, est := range estimators {
			row = append(row, Int(in.Tokens[est]))
			total[k] += in.Tokens[est]
		}
		totalBytes += in.Bytes
		t.Rows = append(t.Rows, row)
	}
	if len(counts) > 1 {
		row := []string{"total (" + strconv.Itoa(len(counts)) + " files)", Int(totalBytes)}
		for k := range estimators {
			row = append(row, Int(total[k]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t.WriteText(w)
}
