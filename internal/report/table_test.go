package report

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInt(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {-1000, "-1,000"},
		{123456, "123,456"}, {1234567, "1,234,567"}, {-9223372036854775808, "-9,223,372,036,854,775,808"},
	} {
		if got := Int(tc.in); got != tc.want {
			t.Errorf("Int(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTableText(t *testing.T) {
	var b strings.Builder
	tb := Table{Header: []string{"name", "p50_tokens"}, Right: []bool{false, true},
		Rows: [][]string{{"aidf", Int(12345)}, {"none", "7"}}}
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `+------+------------+
| name | p50_tokens |
+------+------------+
| aidf |     12,345 |
| none |          7 |
+------+------------+
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(name, func(w *bufio.Writer) error {
		w.WriteString("half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if got, _ := os.ReadFile(name); string(got) != "old" {
		t.Errorf("failed write changed the file to %q", got)
	}
	if err := WriteFile(name, func(w *bufio.Writer) error { _, err := w.WriteString("new"); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); string(got) != "new" {
		t.Errorf("file holds %q, want new", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want 1 (no temporary left)", len(entries))
	}
}
