package opencode

import (
	"fmt"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// dbImport is the package that reads opencode's SQLite databases.
const dbImport = "github.com/ctxbench/ctxbench/transcript/opencodedb"

// readDB reads the sessions of an opencode SQLite database, s.Db; nil
// until [RegisterDB] is called.
var readDB func(s *decode.Source) ([]*model.Transcript, error)

// RegisterDB makes read the reader of opencode's SQLite databases.
// Package transcript/opencodedb calls it from its init, so that only a
// program that imports it links an SQLite driver. It is not safe to call
// while inputs are read.
func RegisterDB(read func(s *decode.Source) ([]*model.Transcript, error)) { readDB = read }

// readDatabase reads the database s.Db with the registered reader; with
// none, it is no transcript this program reads (a walk passes it over,
// counted), and the error names the package to import for one.
func readDatabase(s *decode.Source) ([]*model.Transcript, error) {
	if readDB == nil {
		return nil, &decode.NotTranscriptError{File: s.File, Reason: fmt.Sprintf("an SQLite database: reading opencode's needs its reader, linked by importing %q", dbImport)}
	}
	return readDB(s)
}
