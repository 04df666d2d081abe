package opencode

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// IsStorage reports whether dir is opencode's storage directory
// (opencode before 1.2 kept its sessions there; 1.2 moved them into
// opencode.db): it holds message and part directories.
func IsStorage(dir string) bool {
	for _, sub := range []string{"message", "part"} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// DBBeside names the opencode database in the directory that
// holds the storage directory dir, or returns "": opencode 1.2 copied
// the storage's sessions into it, so a walk reads them once, from the
// database. With no database reader linked ([RegisterDB]) it returns "":
// the storage is what can be read.
func DBBeside(dir string) string {
	if readDB == nil {
		return ""
	}
	parent := filepath.Dir(filepath.Clean(dir))
	entries, err := os.ReadDir(parent)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(n, "opencode") && strings.HasSuffix(n, ".db") {
			return filepath.Join(parent, n)
		}
	}
	return ""
}

// TreeSize returns the bytes of the regular files under dir.
func TreeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// readOpencodeStorage reads the sessions of opencode's storage directory
// s.storage: each directory message/<session id> holds a session's
// messages (a message's info, a JSON file each), part/<message id> a
// message's parts, and session/<project id>/<session id>.json the
// session's info (its parent and version), where it is kept. Sessions
// are read in order of creation (those without their info after, by
// id), messages in order of creation and id, parts in order of id, each
// session as an export's messages are ([Read]). A file that is
// not JSON is bad input at its path; files not named .json are not
// opencode's and are passed over.
func readOpencodeStorage(s *decode.Source) ([]*model.Transcript, error) {
	dir := s.Storage
	infos, err := storageSessions(s, filepath.Join(dir, "session"))
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, "message"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	type session struct {
		id   string
		info opencodeStorageSession
	}
	var sessions []session
	for _, e := range entries {
		if e.IsDir() {
			sessions = append(sessions, session{e.Name(), infos[e.Name()]})
		}
	}
	slices.SortFunc(sessions, func(a, b session) int {
		ka, kb := a.info.Time.Created, b.info.Time.Created
		if (ka == 0) != (kb == 0) { // those without info last
			return cmp.Compare(kb, ka)
		}
		return cmp.Or(cmp.Compare(ka, kb), strings.Compare(a.id, b.id))
	})
	var out []*model.Transcript
	for _, ss := range sessions {
		t := &model.Transcript{ID: ss.id, Parent: ss.info.ParentID, AgentVersion: ss.info.Version}
		if t.Parent != "" {
			t.Subagent = t.ID
		}
		if err := readStorageSession(s, dir, t); err != nil {
			return nil, err
		}
		if len(t.Messages) > 0 || len(t.Bad) > 0 {
			out = append(out, t)
		}
	}
	return out, nil
}

// opencodeStorageSession is what a session's info in storage/session
// gives the reader.
type opencodeStorageSession struct {
	ID       string `json:"id"`
	ParentID string `json:"parentID"`
	Version  string `json:"version"`
	Time     struct {
		Created int64 `json:"created"`
	} `json:"time"`
}

// storageSessions reads the sessions' infos under dir (by project), by
// session id; a missing dir holds none.
func storageSessions(s *decode.Source, dir string) (map[string]opencodeStorageSession, error) {
	out := map[string]opencodeStorageSession{}
	projects, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		files, err := jsonFiles(filepath.Join(dir, p.Name()))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		for _, f := range files {
			var info opencodeStorageSession
			raw, err := readSmall(f, s.Opt)
			if err == nil {
				err = decode.Unmarshal(raw, &info)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if info.ID == "" {
				info.ID = strings.TrimSuffix(filepath.Base(f), ".json")
			}
			out[info.ID] = info
		}
	}
	return out, nil
}

// readStorageSession reads session t.ID's messages and their parts.
func readStorageSession(s *decode.Source, dir string, t *model.Transcript) error {
	files, err := jsonFiles(filepath.Join(dir, "message", t.ID))
	if err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	type message struct {
		file string
		info Info
	}
	var msgs []message
	for _, f := range files {
		m := message{file: f}
		raw, err := readSmall(f, s.Opt)
		if err == nil {
			err = decode.Unmarshal(raw, &m.info)
			if err != nil {
				err = fmt.Errorf("%s", decode.DescribeJSONError(err, decode.Record{Raw: raw}))
			}
		}
		if err != nil {
			if err := s.Bad(t, 0, "%s: %v", f, err); err != nil {
				return err
			}
			continue
		}
		if m.info.ID == "" {
			m.info.ID = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		m.info.SessionID = t.ID
		msgs = append(msgs, m)
	}
	slices.SortStableFunc(msgs, func(a, b message) int {
		return cmp.Or(cmp.Compare(a.info.Time.Created, b.info.Time.Created), strings.Compare(a.info.ID, b.info.ID))
	})
	o := NewReader(s, t)
	o.Named = true
	for _, m := range msgs {
		parts, err := storageParts(s, t, filepath.Join(dir, "part", m.info.ID))
		if err != nil {
			return err
		}
		info := m.info
		if err := o.Add(Entry{Info: &info, Parts: parts}, 0); err != nil {
			return err
		}
	}
	o.Finish()
	return nil
}

// storageParts reads a message's parts from dir, in order of id (a
// message without a part directory has none).
func storageParts(s *decode.Source, t *model.Transcript, dir string) ([]json.RawMessage, error) {
	files, err := jsonFiles(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.File, err)
	}
	var out []json.RawMessage
	for _, f := range files {
		raw, err := readSmall(f, s.Opt)
		if err == nil && !json.Valid(raw) {
			err = fmt.Errorf("%s", decode.DescribeJSONError(decode.Unmarshal(raw, new(any)), decode.Record{Raw: raw}))
		}
		if err != nil {
			if err := s.Bad(t, 0, "%s: %v", f, err); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, raw)
	}
	return out, nil
}

// jsonFiles lists the .json files of dir, sorted by name.
func jsonFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// readSmall reads a storage file, refusing one over the read limit.
func readSmall(name string, opt decode.Options) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	maxBytes := opt.MaxBytes
	if maxBytes <= 0 {
		maxBytes = decode.DefaultMaxBytes
	}
	b, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err == nil && int64(len(b)) > maxBytes {
		err = fmt.Errorf("larger than %d bytes", maxBytes)
	}
	return b, err
}
