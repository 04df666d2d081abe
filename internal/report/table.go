package report

import (
	"bufio"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/ctxbench/ctxbench/internal/dollars"
	"github.com/ctxbench/ctxbench/internal/printable"
)

// Int formats n with comma thousands separators: 1234567 → "1,234,567".
func Int[T ~int | ~int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// USD formats dollars to 4 decimals with thousands separators:
// 1234.56789 → "$1,234.5679", -1.5 → "-$1.5000" ([dollars.Format]).
func USD(v float64) string { return dollars.Format(v) }

// A Table is a header and rows of cells already formatted as text; Align
// says, per column, whether it is right-aligned (numbers).
type Table struct {
	Header []string
	Rows   [][]string
	Right  []bool
}

// WriteText renders t as an ASCII table with the header as given (no
// automatic upper-casing), buffered: the renderer writes a line at a
// time, a system call each on an unbuffered file.
func (t *Table) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if err := t.render(bw); err != nil {
		return err
	}
	return bw.Flush()
}

func (t *Table) render(w io.Writer) error {
	aligns := make([]tw.Align, len(t.Header))
	for i := range aligns {
		aligns[i] = tw.AlignLeft
		if i < len(t.Right) && t.Right[i] {
			aligns[i] = tw.AlignRight
		}
	}
	tbl := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	tbl.Header(anySlice(t.Header)...)
	for _, r := range t.Rows {
		if err := tbl.Append(anySlice(printableRow(r))...); err != nil {
			return err
		}
	}
	return tbl.Render()
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// printableRow returns r with each cell's control characters escaped
// (a name from a transcript must not drive the terminal).
func printableRow(r []string) []string {
	out := r
	for i, c := range r {
		if p := printable.String(c); p != c {
			if &out[0] == &r[0] {
				out = slices.Clone(r)
			}
			out[i] = p
		}
	}
	return out
}

// violationText lists violations by invariant: "none", or "cap 3, tool_pairing 12".
func violationText(v map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if v[k] > 0 {
			parts = append(parts, k+" "+Int(v[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// violationTotal is the violations of every invariant.
func violationTotal(v map[string]int) int {
	n := 0
	for _, c := range v {
		n += c
	}
	return n
}
