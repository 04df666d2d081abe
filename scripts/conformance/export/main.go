// Command export writes the histories the peers' real code is run on by
// make conformance (scripts/conformance.sh): every transcript of the
// corpus and a few generated ones, each message with its blocks and the
// index of the message of each call. The Go conformance tests read the
// same transcripts from the same sources.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/transcript"
)

type history struct {
	Source   string    `json:"source"`
	ID       string    `json:"id"`
	Model    string    `json:"model,omitempty"`
	Messages []message `json:"messages"`
	Calls    []int     `json:"calls"`
	// Prompts are the calls' billed prompts (input, cache reads and
	// writes; 0 where not recorded).
	Prompts []int64 `json:"prompts"`
}

type message struct {
	Role   transcript.Role `json:"role"`
	Name   string          `json:"name,omitempty"`
	Blocks []block         `json:"blocks"`
	// Content is the blocks as ctxbench measures a message's JSON
	// (transcript.ContentJSON, the Anthropic shape): what the seed
	// systems' JSON.stringify of the content counts.
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type  transcript.BlockType `json:"type"`
	Text  string               `json:"text,omitempty"`
	ID    string               `json:"id,omitempty"`
	Name  string               `json:"name,omitempty"`
	Input json.RawMessage      `json:"input,omitempty"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
}

func run() error {
	var out []history
	sources, err := conformance.Sources("fixtures/corpus")
	if err != nil {
		return err
	}
	for _, s := range sources {
		out = append(out, export(s.Name, s.Transcript))
	}
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"histories": out}); err != nil {
		return err
	}
	return w.Flush()
}

func export(source string, t *transcript.Transcript) history {
	h := history{Source: source, ID: t.ID, Messages: []message{}, Calls: []int{}, Prompts: []int64{}}
	if len(t.Models) > 0 {
		h.Model = t.Models[0]
	}
	for i, m := range t.Messages {
		msg := message{Role: m.Role, Name: m.Name, Blocks: []block{}, Content: transcript.ContentJSON(m.Blocks)}
		for _, b := range m.Blocks {
			msg.Blocks = append(msg.Blocks, block{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input})
		}
		h.Messages = append(h.Messages, msg)
		if m.Role == transcript.RoleAssistant {
			h.Calls = append(h.Calls, i)
			var prompt int64
			if m.Usage != nil {
				prompt = m.Usage.Prompt()
			}
			h.Prompts = append(h.Prompts, prompt)
		}
	}
	return h
}
