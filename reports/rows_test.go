package reports

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRowsDocumented: docs/rows.md lists every column of runs and calls,
// in the order the rows hold them, and no other.
func TestRowsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/rows.md")
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
		rt := reflect.TypeOf(tc.row)
		for i := range rt.NumField() {
			tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("parquet"), ",")
			columns = append(columns, tag)
		}
		if !slices.Equal(documented, columns) {
			t.Errorf("%s: docs/rows.md lists %v; the rows hold %v", tc.section, documented, columns)
		}
	}
}
