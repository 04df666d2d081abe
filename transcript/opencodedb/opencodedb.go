// Package opencodedb lets package transcript read opencode's SQLite
// database (opencode.db, opencode 1.2 on). Import it for its effect:
//
//	import _ "github.com/ctxbench/ctxbench/transcript/opencodedb"
//
// It links an SQLite driver (modernc.org/sqlite), which a program that
// reads no opencode database need not; without it, reading a database
// is an error naming this import.
package opencodedb

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
	"github.com/ctxbench/ctxbench/transcript/internal/opencode"
	_ "modernc.org/sqlite"
)

func init() { opencode.RegisterDB(read) }

// openSQLite opens the database at path read-only. A database in WAL
// mode needs its -shm file; where that cannot be made (a read-only
// folder) it is opened as immutable, without the log's last writes.
func openSQLite(path string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	var last error
	for _, q := range []string{"mode=ro", "mode=ro&immutable=1"} {
		db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: abs, RawQuery: q}).String())
		if err == nil {
			if err = db.Ping(); err == nil {
				var n int
				if err = db.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&n); err == nil {
					return db, nil
				}
			}
			db.Close()
		}
		last = err
	}
	return nil, last
}

// read reads the sessions of opencode's SQLite database
// (opencode.db, opencode-<channel>.db; opencode 1.2 on): the session
// table's id, parent_id and version, the message table's rows (id,
// session_id, data: the message's info without its id and session id)
// in order of time_created and id, and the part table's (data: the part
// without its ids) in order of id. Each session is read as an export's
// messages are (opencode.Read); a session's transcript is a subagent's
// when it has a parent. Positions name the file and the message id, as
// a database has no lines.
func read(s *decode.Source) ([]*model.Transcript, error) {
	db, err := openSQLite(s.Db)
	if err != nil {
		return nil, &decode.NotTranscriptError{File: s.File, Reason: "an SQLite database that cannot be opened: " + err.Error()}
	}
	defer db.Close()
	tables := map[string]bool{}
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		tables[name] = true
	}
	rows.Close()
	if !tables["message"] || !tables["part"] {
		if tables["session_message"] {
			// opencode's next session model (SessionMessage in
			// @opencode-ai/sdk 1.19's v2 types), whose rows' layout
			// no published schema gives.
			return nil, &decode.NotTranscriptError{File: s.File, Reason: "opencode's session_message table without its message and part tables: a layout ctxbench does not read"}
		}
		return nil, &decode.NotTranscriptError{File: s.File, Reason: "an SQLite database without opencode's message and part tables"}
	}
	var out []*model.Transcript
	var sessions []opencodeDBSession
	if tables["session"] {
		sessions, err = dbSessions(db, "SELECT id, coalesce(parent_id, ''), coalesce(version, '') FROM session ORDER BY time_created, id")
	} else {
		sessions, err = dbSessions(db, "SELECT DISTINCT session_id, '', '' FROM message ORDER BY session_id")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	for _, ss := range sessions {
		t := &model.Transcript{ID: ss.id, Parent: ss.parent, AgentVersion: ss.version}
		if t.Parent != "" {
			t.Subagent = t.ID
		}
		if err := readDBSession(s, db, t); err != nil {
			return nil, err
		}
		if len(t.Messages) > 0 || len(t.Bad) > 0 {
			out = append(out, t)
		}
	}
	return out, nil
}

type opencodeDBSession struct{ id, parent, version string }

func dbSessions(db *sql.DB, query string) ([]opencodeDBSession, error) {
	rows, err := db.Query(query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []opencodeDBSession
	for rows.Next() {
		var ss opencodeDBSession
		if err := rows.Scan(&ss.id, &ss.parent, &ss.version); err != nil {
			return nil, err
		}
		out = append(out, ss)
	}
	return out, rows.Err()
}

// readDBSession reads the messages and parts of session t.ID into t.
func readDBSession(s *decode.Source, db *sql.DB, t *model.Transcript) error {
	parts := map[string][]json.RawMessage{}
	rows, err := db.Query("SELECT message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id", t.ID)
	if err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	for rows.Next() {
		var msg string
		var data []byte
		if err := rows.Scan(&msg, &data); err != nil {
			rows.Close()
			return fmt.Errorf("%s: %w", s.File, err)
		}
		parts[msg] = append(parts[msg], data)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	rows.Close()
	o := opencode.NewReader(s, t)
	o.Named = true
	rows, err = db.Query("SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", t.ID)
	if err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return fmt.Errorf("%s: %w", s.File, err)
		}
		var info opencode.Info
		if err := decode.Unmarshal(data, &info); err != nil {
			if err := s.Bad(t, 0, "message %s: %s", id, decode.DescribeJSONError(err, decode.Record{Raw: data})); err != nil {
				return err
			}
			continue
		}
		info.ID, info.SessionID = id, t.ID
		if err := o.Add(opencode.Entry{Info: &info, Parts: parts[id]}, 0); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	o.Finish()
	return nil
}
