package transcript_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	. "github.com/ctxbench/ctxbench/transcript"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestWalkDirectory(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b/session.jsonl":      ccUser + "\n" + ccAsst + "\n",
		"a/notes.md":           "# notes\n",
		"a/empty.jsonl":        "",
		"a/image.png":          "\x89PNG\r\n\x1a\n\x00\x00",
		"c/convs.jsonl":        `{"messages":[{"role":"user","content":"a"}]}` + "\n" + `{"messages":[{"role":"user","content":"b"}]}` + "\n",
		".git/objects/x.jsonl": ccUser + "\n",
	})
	var got []string
	skipped, err := Walk([]string{dir}, Options{}, nil, func(tr *Transcript) error {
		got = append(got, strings.TrimPrefix(tr.File, dir+"/")+" "+tr.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b/session.jsonl s", "c/convs.jsonl convs:1", "c/convs.jsonl convs:2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcripts (-want +got):\n%s", diff)
	}
	for i := range skipped {
		skipped[i].File = strings.TrimPrefix(skipped[i].File, dir+"/")
	}
	wantSkipped := []SkippedFile{
		{"a/empty.jsonl", "empty"},
		{"a/image.png", "binary content (NUL bytes)"},
		{"a/notes.md", "not JSON or JSON Lines"},
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped files (-want +got):\n%s", diff)
	}
}

func TestWalkErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"notes.md":  "# notes\n",
		"bad.jsonl": ccUser + "\n{broken\n",
	})
	// A file named explicitly that holds no transcript is an error.
	_, err := Walk([]string{filepath.Join(dir, "notes.md")}, Options{}, nil, func(*Transcript) error { return nil })
	var nt *NotTranscriptError
	if !errors.As(err, &nt) {
		t.Errorf("explicit non-transcript: error %v, want a NotTranscriptError", err)
	}
	// A malformed record in a walked directory stops the walk, naming file and line.
	_, err = Walk([]string{dir}, Options{}, nil, func(*Transcript) error { return nil })
	if err == nil || err.Error() != filepath.Join(dir, "bad.jsonl")+":2: invalid JSON: invalid character 'b' looking for beginning of object key string" {
		t.Errorf("malformed record: error %v", err)
	}
	_, err = Walk([]string{filepath.Join(dir, "missing")}, Options{}, nil, func(*Transcript) error { return nil })
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing path: error %v, want not exist", err)
	}
	stop := errors.New("stop")
	_, err = Walk([]string{filepath.Join(corpusDir, "spotter")}, Options{}, nil, func(*Transcript) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("callback error: got %v, want it returned", err)
	}
}

func TestWalkStdin(t *testing.T) {
	var got []*Transcript
	_, err := Walk([]string{"-"}, Options{}, strings.NewReader(ccUser+"\n"+ccAsst+"\n"), func(tr *Transcript) error {
		got = append(got, tr)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].File != "<stdin>" || len(got[0].Messages) != 2 {
		t.Errorf("stdin: got %d transcripts, file %q", len(got), got[0].File)
	}
}

// TestWalkReadsAheadInOrder: files read ahead on several goroutines come
// to fn in the walk's order, skipped files listed where they stand, and a
// stop (fn's error, or a bad file) ends the walk where reading one file
// at a time would: nothing after it is given or listed.
func TestWalkReadsAheadInOrder(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		name := filepath.Join(string(rune('a'+i/10)), string(rune('a'+i%10))+".jsonl")
		switch {
		case i%7 == 3:
			files[name] = "# not a transcript\n"
		default:
			files[name] = strings.ReplaceAll(ccUser, `"s"`, `"s`+name+`"`) + "\n"
		}
	}
	dir := writeFiles(t, files)
	var all []string
	skipped, err := Walk([]string{dir, filepath.Join(dir, "b")}, Options{}, nil, func(tr *Transcript) error {
		all = append(all, strings.TrimPrefix(tr.File, dir+"/"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 40-6+10-2 || len(skipped) != 6+2 {
		t.Fatalf("%d transcripts and %d skipped, want 42 and 8", len(all), len(skipped))
	}
	for i := 1; i < 34; i++ {
		if all[i] <= all[i-1] {
			t.Fatalf("transcript %d, %s, after %s", i, all[i], all[i-1])
		}
	}
	// Stopping at the 12th: the same first 12, and only the files skipped
	// before it.
	stop := errors.New("stop")
	var got []string
	skippedBefore, err := Walk([]string{dir}, Options{}, nil, func(tr *Transcript) error {
		got = append(got, strings.TrimPrefix(tr.File, dir+"/"))
		if len(got) == 12 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !slices.Equal(got, all[:12]) {
		t.Fatalf("stopped with %v after %v", err, got)
	}
	for _, s := range skippedBefore {
		if strings.TrimPrefix(s.File, dir+"/") > got[11] {
			t.Errorf("%s, after the stop, is listed as skipped", s.File)
		}
	}
	// A bad file in the middle: the walk gives what comes before it.
	if err := os.WriteFile(filepath.Join(dir, "b", "e.jsonl"), []byte(ccUser+"\n{broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = nil
	_, err = Walk([]string{dir}, Options{}, nil, func(tr *Transcript) error {
		got = append(got, strings.TrimPrefix(tr.File, dir+"/"))
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "b/e.jsonl:2:") || len(got) == 0 || got[len(got)-1] >= "b/e.jsonl" {
		t.Errorf("bad file: %v after %v", err, got)
	}
}

// TestLargest: the bytes of the largest file a walk reads — of a
// directory's, .git's left out, and of a file named — without reading
// them.
func TestLargest(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.jsonl": "12345", "sub/b.jsonl": "123", ".git/objects/x": "1234567890"})
	if got := Largest([]string{dir}); got != 5 {
		t.Errorf("Largest(dir) = %d, want 5", got)
	}
	if got := Largest([]string{filepath.Join(dir, "sub", "b.jsonl"), "-"}); got != 3 {
		t.Errorf("Largest(b.jsonl, stdin) = %d, want 3", got)
	}
	if got := Largest([]string{filepath.Join(dir, "missing")}); got != 0 {
		t.Errorf("Largest(missing) = %d, want 0", got)
	}
}

// TestWalkPrepared: prepare sees every transcript Walk gives, once, before
// fn does, and none of a file that fails to read or holds no transcript;
// fn sees what Walk gives it without prepare, in the same order, each
// with what prepare made of it.
func TestWalkPrepared(t *testing.T) {
	files := map[string]string{
		"a/notes.md":    "# notes\n",
		"c/convs.jsonl": `{"messages":[{"role":"user","content":"a"}]}` + "\n" + `{"messages":[{"role":"user","content":"b"}]}` + "\n",
	}
	for i := range 40 {
		files[fmt.Sprintf("b/s%02d.jsonl", i)] = ccUser + "\n" + ccAsst + "\n"
	}
	dir := writeFiles(t, files)
	var plain []string
	skippedPlain, err := Walk([]string{dir}, Options{}, nil, func(tr *Transcript) error {
		plain = append(plain, tr.File+" "+tr.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	prepared := map[*Transcript]int{}
	var got []string
	skipped, err := WalkPrepared([]string{dir}, Options{}, nil, func(tr *Transcript) *Transcript {
		mu.Lock()
		prepared[tr]++
		mu.Unlock()
		return tr
	}, func(tr *Transcript, made *Transcript) error {
		mu.Lock()
		n := prepared[tr]
		mu.Unlock()
		if n != 1 || made != tr {
			t.Errorf("%s %s: prepared %d times before fn, fn given what prepare made of another (%v)", tr.File, tr.ID, n, made != tr)
		}
		got = append(got, tr.File+" "+tr.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, got); diff != "" {
		t.Errorf("transcripts (-Walk +WalkPrepared):\n%s", diff)
	}
	if diff := cmp.Diff(skippedPlain, skipped); diff != "" {
		t.Errorf("skipped (-Walk +WalkPrepared):\n%s", diff)
	}
	if len(prepared) != len(got) || len(got) != 42 {
		t.Errorf("%d transcripts prepared, %d given", len(prepared), len(got))
	}
}

// TestWalkSelect: Select sees every input a walk would read, in order,
// before any is read; the inputs it declines are neither read nor
// skipped, and the transcripts of the others keep the names the whole
// walk gives them (two trajectory.json tell apart by their folders).
func TestWalkSelect(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a/trajectory.json": `{"messages":[{"role":"user","content":"a"}]}`,
		"b/trajectory.json": `{"messages":[{"role":"user","content":"b"}]}`,
		"c/notes.md":        "# notes\n",
		"d/bad.jsonl":       "{not json\n",
	})
	var offered []string
	read := 0
	opt := Options{Select: func(p string) bool {
		if read > 0 {
			t.Errorf("Select(%s) after a transcript was given", p)
		}
		offered = append(offered, strings.TrimPrefix(p, dir+"/"))
		return !strings.HasPrefix(p, dir+"/a/") && !strings.HasPrefix(p, dir+"/d/")
	}}
	var got []string
	skipped, err := Walk([]string{dir}, opt, nil, func(tr *Transcript) error {
		read++
		got = append(got, strings.TrimPrefix(tr.File, dir+"/")+" "+tr.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err) // d/bad.jsonl, not selected, is not read
	}
	if want := []string{"a/trajectory.json", "b/trajectory.json", "c/notes.md", "d/bad.jsonl"}; !slices.Equal(offered, want) {
		t.Errorf("Select was offered %q, want %q", offered, want)
	}
	if want := []string{"b/trajectory.json b/trajectory:1"}; !slices.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
	if len(skipped) != 1 || !strings.HasSuffix(skipped[0].File, "c/notes.md") {
		t.Errorf("skipped %v, want c/notes.md alone", skipped)
	}
}

// TestWalkSkipsForeignJSONL: another program's JSON Lines in a walked
// folder (a log whose lines a chat reader takes for messages with no
// role, concatenated arrays) holds no transcript: it is skipped, counted
// with the record that failed, and the walk reads on; a transcript with a
// malformed record still stops the walk, and a foreign file named
// explicitly is still an error.
func TestWalkSkipsForeignJSONL(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"p/a-log.jsonl":     `{"level":"info","msg":"started","time":"2025-01-01"}` + "\n" + `{"level":"info","msg":"done","role":"user"}` + "\n",
		"p/b-arrays.jsonl":  "[1,2]\n[3]\n",
		"p/c-session.jsonl": ccUser + "\n" + ccAsst + "\n",
	})
	var got []string
	skipped, err := Walk([]string{dir}, Options{}, nil, func(tr *Transcript) error {
		got = append(got, strings.TrimPrefix(tr.File, dir+"/"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"p/c-session.jsonl"}, got); diff != "" {
		t.Errorf("transcripts (-want +got):\n%s", diff)
	}
	for i := range skipped {
		skipped[i].File = strings.TrimPrefix(skipped[i].File, dir+"/")
	}
	want := []SkippedFile{
		{"p/a-log.jsonl", "no message in it reads (line 1: message has no role (its fields: level, msg, time))"},
		{"p/b-arrays.jsonl", "no message in it reads (line 2: invalid JSON: invalid character '[' after top-level value)"},
	}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	var se *SyntaxError
	if _, err := Walk([]string{filepath.Join(dir, "p/a-log.jsonl")}, Options{}, nil, func(*Transcript) error { return nil }); !errors.As(err, &se) {
		t.Errorf("foreign file named explicitly: error %v, want its syntax error", err)
	}
	damaged := writeFiles(t, map[string]string{"chat.jsonl": `{"role":"user","content":"hi"}` + "\n" + `{"foo":1}` + "\n"})
	if _, err := Walk([]string{damaged}, Options{}, nil, func(*Transcript) error { return nil }); !errors.As(err, &se) || se.Line != 2 {
		t.Errorf("damaged transcript: error %v, want its line 2", err)
	}
}
