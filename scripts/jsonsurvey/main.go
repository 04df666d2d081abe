// Command jsonsurvey measures JSON decoders on Claude Code sessions: each
// line decoded into the structs ctxbench's reader uses (a line, its
// message, the message's content blocks), against scanning the bytes.
// It is a module of its own, so that the decoders it compares are not
// ctxbench's dependencies.
//
//	cd scripts/jsonsurvey && go run . ../../fixtures/corpus/spotter ../../fixtures/corpus/codemie-code/tests/integration/session/fixtures
//	GOEXPERIMENT=jsonv2 go run . …   # adds encoding/json/v2 (and encoding/json built on it)
package main

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"
	"github.com/minio/simdjson-go"
)

type usage struct {
	Input      int64 `json:"input_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
	Output     int64 `json:"output_tokens"`
}

type line struct {
	Type       string             `json:"type"`
	Subtype    string             `json:"subtype"`
	Message    stdjson.RawMessage `json:"message"`
	SessionID  string             `json:"sessionId"`
	UUID       string             `json:"uuid"`
	ParentUUID string             `json:"parentUuid"`
	RequestID  string             `json:"requestId"`
	AgentID    string             `json:"agentId"`
	Sidechain  bool               `json:"isSidechain"`
	Version    string             `json:"version"`
	Timestamp  string             `json:"timestamp"`
	Usage      *usage             `json:"usage"`
}

type message struct {
	ID      string             `json:"id"`
	Role    string             `json:"role"`
	Model   string             `json:"model"`
	Content stdjson.RawMessage `json:"content"`
	Usage   *usage             `json:"usage"`
}

type block struct {
	Type      string             `json:"type"`
	Text      string             `json:"text"`
	Thinking  string             `json:"thinking"`
	ID        string             `json:"id"`
	Name      string             `json:"name"`
	Input     stdjson.RawMessage `json:"input"`
	ToolUseID string             `json:"tool_use_id"`
	Content   stdjson.RawMessage `json:"content"`
	IsError   bool               `json:"is_error"`
}

type decoder struct {
	name string
	fn   func([]byte, any) error
}

func decodeAll(lines [][]byte, un func([]byte, any) error) (int, error) {
	n := 0
	for _, l := range lines {
		var ln line
		if err := un(l, &ln); err != nil {
			return n, err
		}
		if len(ln.Message) == 0 {
			continue
		}
		var m message
		if err := un(ln.Message, &m); err != nil {
			return n, err
		}
		if len(m.Content) > 0 && m.Content[0] == '[' {
			var bs []block
			if err := un(m.Content, &bs); err != nil {
				return n, err
			}
			n += len(bs)
		} else {
			n++
		}
	}
	return n, nil
}

func best(reps int, f func()) time.Duration {
	var b time.Duration
	for i := range reps {
		t0 := time.Now()
		f()
		if d := time.Since(t0); i == 0 || d < b {
			b = d
		}
	}
	return b
}

func main() {
	var files []string
	for _, dir := range os.Args[1:] {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".jsonl" {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	var data [][]byte
	size := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		data = append(data, b)
		size += len(b)
	}
	var lines [][]byte
	for _, b := range data {
		for _, l := range bytes.Split(b, []byte{'\n'}) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
	}
	mb := float64(size) / 1e6
	fmt.Printf("%d files, %.1f MB, %d lines\n", len(files), mb, len(lines))
	report := func(name string, d time.Duration, extra string) {
		fmt.Printf("%-34s %7.1f ms %7.0f MB/s %s\n", name, d.Seconds()*1000, mb/d.Seconds(), extra)
	}
	reps := 7
	// Baselines: how close decoding gets to scanning the bytes.
	report("newline scan (bytes.Count)", best(reps, func() {
		for _, b := range data {
			bytes.Count(b, []byte{'\n'})
		}
	}), "")
	report("encoding/json Valid (per line)", best(reps, func() {
		for _, l := range lines {
			stdjson.Valid(l)
		}
	}), "")
	if simdjson.SupportedCPU() {
		var pj *simdjson.ParsedJson
		report("simdjson-go ParseND (tape, no decode)", best(reps, func() {
			for _, b := range data {
				var err error
				pj, err = simdjson.ParseND(b, pj)
				if err != nil {
					panic(err)
				}
			}
		}), "")
	} else {
		fmt.Println("simdjson-go: CPU not supported")
	}
	for _, dc := range append([]decoder{
		{"encoding/json Unmarshal", stdjson.Unmarshal},
		{"goccy/go-json Unmarshal", gojson.Unmarshal},
		{"bytedance/sonic Unmarshal", sonic.Unmarshal},
		{"bytedance/sonic ConfigStd", sonic.ConfigStd.Unmarshal},
	}, extra...) {
		var n int
		var err error
		d := best(reps, func() { n, err = decodeAll(lines, dc.fn) })
		if err != nil {
			fmt.Println(dc.name, "error:", err)
			continue
		}
		report(dc.name+" (structs)", d, fmt.Sprintf("%d blocks", n))
	}
}
