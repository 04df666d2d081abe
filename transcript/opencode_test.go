package transcript

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript/internal/opencode"
	_ "github.com/ctxbench/ctxbench/transcript/opencodedb"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestOpencode holds the opencode reader to what opencode sends and
// records (MessageV2.toModelMessages, SessionProcessor, getUsage) on the
// spec-built export file.
func TestOpencode(t *testing.T) {
	ts, err := ReadFile(filepath.Join("testdata", "opencode", "export.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	if tr.ID != "ses_4f1c2a7e9ffeQz3kLm8NpR2tVx" || tr.AgentVersion != "1.18.33" || tr.Calls != 6 || tr.Parent != "" {
		t.Errorf("id %s version %s calls %d parent %q", tr.ID, tr.AgentVersion, tr.Calls, tr.Parent)
	}
	checkOpencodeSteps(t, tr.Messages)
	// The user's text/plain file part is sent as the synthetic text parts
	// before it; the agent part is not sent.
	if len(tr.Messages[0].Blocks) != 3 || tr.Skipped["opencode part file (sent as its text parts)"] != 1 || tr.Skipped["opencode part agent"] != 1 {
		t.Errorf("first user message %d blocks, skipped %v", len(tr.Messages[0].Blocks), tr.Skipped)
	}
	checkOpencodeEdits(t, tr)
	if tr.ReportedCostUSD < 0.08122 || tr.ReportedCostUSD > 0.08123 {
		t.Errorf("reported cost %v, want the messages' 0.081221", tr.ReportedCostUSD)
	}
}

// checkOpencodeSteps holds the export's steps: each its call, its usage, its
// time and its tool results.
func checkOpencodeSteps(t *testing.T, m []Message) {
	t.Helper()
	// The first assistant message has two steps: two calls, each with its
	// step-finish tokens and followed by its tool results.
	if m[1].Role != RoleAssistant || m[3].Role != RoleAssistant || m[1].CallID != m[3].CallID {
		t.Fatalf("steps: %s %s", m[1].Role, m[3].Role)
	}
	if m[1].Usage.CacheWrite != 6120 || m[3].Usage.CacheRead != 6120 || m[3].Usage.Input != 310 {
		t.Errorf("step usage %+v, %+v", *m[1].Usage, *m[3].Usage)
	}
	if got := m[3].Time.UnixMilli() - m[1].Time.UnixMilli(); got != 4000 {
		t.Errorf("second step %d ms after the first, want 4000 (the first at the message, the second at its tool call)", got)
	}
	if r := m[4].Blocks[1]; !r.IsError || !strings.HasPrefix(r.Text, "Error: npm ERR!") {
		t.Errorf("failed tool call: %+v", r)
	}
	// Gemini counts reasoning apart: it is added to output.
	if u := m[7].Usage; m[7].Model != "gemini-2.5-pro" || u.Output != 470 || u.Reasoning != 410 {
		t.Errorf("gemini step %s %+v", m[7].Model, *u)
	}
	if r := m[8].Blocks[0]; r.Text != opencode.OpencodeInterrupted || !r.IsError {
		t.Errorf("running tool call: %+v", r)
	}
}

// checkOpencodeEdits holds the export's edits of its history: a tool output
// cleared, and a compaction.
func checkOpencodeEdits(t *testing.T, tr *Transcript) {
	t.Helper()
	if len(tr.Clearings) != 1 || tr.Clearings[0].Index != 6 || !slices.Equal(tr.Clearings[0].ToolIDs, []string{"toolu_01A"}) {
		t.Errorf("clearings %+v, want toolu_01A's output cleared before message 6", tr.Clearings)
	}
	if tr.Messages[9].Text() != opencode.OpencodeCompactionRequest {
		t.Errorf("compaction request %q", tr.Messages[9].Text())
	}
	if len(tr.Compactions) != 1 {
		t.Fatalf("%d compactions", len(tr.Compactions))
	}
	c := tr.Compactions[0]
	if c.Index != 11 || c.Trigger != "auto" || !slices.Equal(c.Kept, []int{6, 7, 8}) ||
		c.Summary == nil || c.Summary.Role != RoleAssistant || !strings.HasPrefix(c.Summary.Text(), "## Goal") {
		t.Errorf("compaction %+v", c)
	}
}

// TestOpencodeAPIMessages: the older shape of the API's messages records
// the system prompt on assistant messages: it comes first. OpenAI's
// output includes its reasoning.
func TestOpencodeAPIMessages(t *testing.T) {
	ts, err := ReadFile(filepath.Join("testdata", "opencode", "api-messages.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	if tr.ID != "ses_5a0b1c2d3ffeChildAgentAAAAA" || tr.Messages[0].Role != RoleSystem || tr.Messages[1].Role != RoleSystem {
		t.Errorf("id %s, first roles %s %s", tr.ID, tr.Messages[0].Role, tr.Messages[1].Role)
	}
	if u := tr.Messages[3].Usage; u.Output != 300 || u.Reasoning != 256 {
		t.Errorf("openai step %+v, want output 300 holding reasoning 256", *u)
	}
}

// opencodeSchema is the tables of opencode.db that hold sessions
// (opencode 1.2's migration: session, message, part), with the columns
// the reader reads.
const opencodeSchema = "CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);" +
	"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);" +
	"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);"

// An opencodeExportFile is an `opencode export` file as raw values,
// which keep the nested objects' keys in their order.
type opencodeExportFile struct {
	Info     map[string]json.RawMessage `json:"info"`
	Messages []struct {
		Info  map[string]json.RawMessage   `json:"info"`
		Parts []map[string]json.RawMessage `json:"parts"`
	} `json:"messages"`
}

// readExport reads the export file f.
func readExport(t *testing.T, f string) opencodeExportFile {
	t.Helper()
	raw, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var exp opencodeExportFile
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	return exp
}

// str is a raw JSON string's value ("" for anything else).
func str(raw json.RawMessage) string {
	var v string
	json.Unmarshal(raw, &v)
	return v
}

// writeOpencodeDB writes the sessions of opencode export files into an
// opencode.db at path, as opencode stores them: ids in columns, the rest
// of each message and part in data. With wal, it writes in WAL mode (as
// opencode does) and never checkpoints: until the returned connection
// is closed, the rows are in the -wal file only.
func writeOpencodeDB(t *testing.T, path string, wal bool, exports ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if wal {
		if _, err := db.Exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(opencodeSchema); err != nil {
		t.Fatal(err)
	}
	for _, f := range exports {
		exp := readExport(t, f)
		created := func(m map[string]json.RawMessage) int64 {
			var tm struct{ Created int64 }
			json.Unmarshal(m["time"], &tm)
			return tm.Created
		}
		si := exp.Info
		if _, err := db.Exec("INSERT INTO session VALUES (?, 'p', nullif(?, ''), 's', '/', 't', ?, ?, ?)", str(si["id"]), str(si["parentID"]), str(si["version"]), created(si), created(si)); err != nil {
			t.Fatal(err)
		}
		for _, m := range exp.Messages {
			id, sess := str(m.Info["id"]), str(m.Info["sessionID"])
			delete(m.Info, "id")
			delete(m.Info, "sessionID")
			data, _ := json.Marshal(m.Info)
			if _, err := db.Exec("INSERT INTO message VALUES (?, ?, ?, ?, ?)", id, sess, created(m.Info), created(m.Info), data); err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Parts {
				pid := str(p["id"])
				delete(p, "id")
				delete(p, "messageID")
				delete(p, "sessionID")
				data, _ := json.Marshal(p)
				if _, err := db.Exec("INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)", pid, id, sess, data); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return db
}

// readExports reads the opencode exports' sessions in order of
// creation, as the database and the storage directory list them (the
// fixtures' ids grow backwards: the 1.0 export's first).
func readExports(t *testing.T, exports ...string) []*Transcript {
	t.Helper()
	var want []*Transcript
	for _, f := range exports {
		ts, err := ReadFile(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ts...)
	}
	slices.SortFunc(want, func(a, b *Transcript) int { return strings.Compare(b.ID, a.ID) })
	return want
}

// noPos compares transcripts read from other places: positions and file
// names differ.
var noPos = cmp.Options{cmpopts.IgnoreFields(Message{}, "Pos"), cmpopts.IgnoreFields(Compaction{}, "Pos"),
	cmpopts.IgnoreFields(Clearing{}, "Pos"), cmpopts.IgnoreFields(Transcript{}, "File")}

// TestOpencodeDB: the sessions of opencode.db read as the exports of the
// same sessions do, but for positions (a database has no lines).
func TestOpencodeDB(t *testing.T) {
	exports := []string{filepath.Join("testdata", "opencode", "export.json"), filepath.Join("testdata", "opencode", "export-1.0.json")}
	path := filepath.Join(t.TempDir(), "opencode.db")
	writeOpencodeDB(t, path, false, exports...).Close()
	got, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := readExports(t, exports...)
	if diff := cmp.Diff(want, got, noPos); diff != "" {
		t.Errorf("opencode.db (-exports +db):\n%s", diff)
	}
	if got[0].Format != FormatOpencode || got[0].File != path {
		t.Errorf("read as %s from %s", got[0].Format, got[0].File)
	}
	// Through a reader that is not a file (standard input), the same.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	piped, err := Read(struct{ io.Reader }{bytes.NewReader(raw)}, "<stdin>", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, piped, noPos); diff != "" {
		t.Errorf("opencode.db from a pipe (-exports +db):\n%s", diff)
	}
	if _, err := ReadFile(path, Options{Format: FormatClaudeCode}); err == nil || !strings.Contains(err.Error(), "read as opencode only") {
		t.Errorf("read as claude-code: %v", err)
	}
	// opencode writes in WAL mode: what it wrote since the last
	// checkpoint is in opencode.db-wal, and is read.
	live := filepath.Join(t.TempDir(), "opencode.db")
	writeOpencodeDB(t, live, true, exports...)
	if st, err := os.Stat(live + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("no write-ahead log: %v", err)
	}
	got, err = ReadFile(live, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, noPos); diff != "" {
		t.Errorf("opencode.db with its -wal (-exports +db):\n%s", diff)
	}
	// The files beside it are named, not read as transcripts.
	for suffix, want := range map[string]string{"-wal": "an SQLite write-ahead log", "-shm": "an SQLite shared-memory index"} {
		_, err := ReadFile(live+suffix, Options{})
		var nt *NotTranscriptError
		if !errors.As(err, &nt) || !strings.Contains(nt.Reason, want) {
			t.Errorf("%s: %v, want %q", suffix, err, want)
		}
	}
}

// TestSQLiteNotOpencode: another SQLite database is not a transcript.
func TestSQLiteNotOpencode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE message (id text)"); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(path, Options{})
	var nt *NotTranscriptError
	if !errors.As(err, &nt) || !strings.Contains(err.Error(), "without opencode's message and part tables") {
		t.Errorf("error %v", err)
	}
	// opencode's next session table alone is named.
	if _, err := db.Exec("CREATE TABLE session_message (id text, session_id text, type text, data text)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err = ReadFile(path, Options{}); !errors.As(err, &nt) || !strings.Contains(err.Error(), "session_message") {
		t.Errorf("session_message: %v", err)
	}
}
