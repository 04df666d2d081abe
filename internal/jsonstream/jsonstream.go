// Package jsonstream writes a JSON document whose large arrays are not in
// memory: each is a [Stream] in the document, written by its own function
// when the document is, element by element, compact or indented as
// encoding/json would write the whole.
package jsonstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// A Stream is an array written by Each: it calls emit with each
// element's compact JSON, in order.
type Stream struct {
	Each   func(emit func(elem []byte) error) error
	marker string
}

// A Document is a value to write, with the streams its values hold.
type Document struct {
	streams []*Stream
	nonce   string
}

// Stream returns a value that stands for the array each writes, to put in
// the document's value where the array goes.
func (d *Document) Stream(each func(emit func(elem []byte) error) error) *Stream {
	if d.nonce == "" {
		d.nonce = strconv.FormatUint(rand.Uint64(), 36)
	}
	s := &Stream{Each: each, marker: marker(d.nonce, len(d.streams))}
	d.streams = append(d.streams, s)
	return s
}

// marker is what a stream encodes as, found again in the encoding: NULs
// (never unescaped in JSON text) around the document's random nonce and
// the stream's number, which no string of a document holds by chance.
func marker(nonce string, id int) string {
	return "\x00jsonstream:" + nonce + ":" + strconv.Itoa(id) + "\x00"
}

// MarshalJSON encodes the stream's marker.
func (s *Stream) MarshalJSON() ([]byte, error) { return json.Marshal(s.marker) }

// Write writes v — whose streams d made — to w, indented by two spaces
// when indent (as an Encoder with SetIndent("", "  ")), HTML not escaped,
// with a final newline.
func (d *Document) Write(w io.Writer, v any, indent bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	text := b.Bytes()
	for {
		at, id := d.nextMarker(text)
		if at < 0 {
			_, err := w.Write(text)
			return err
		}
		if _, err := w.Write(text[:at]); err != nil {
			return err
		}
		// The element's lines are prefixed as the array's own line is,
		// one level deeper.
		prefix := ""
		if indent {
			line := text[bytes.LastIndexByte(text[:at], '\n')+1 : at]
			prefix = string(line[:len(line)-len(bytes.TrimLeft(line, " "))])
		}
		if err := d.writeArray(w, d.streams[id], indent, prefix); err != nil {
			return err
		}
		text = text[at+len(quoted(d.streams[id].marker)):]
	}
}

// quoted is a marker as the encoder writes it.
func quoted(m string) []byte {
	b, _ := json.Marshal(m)
	return b
}

// nextMarker finds the first marker of d's in text: its offset and
// stream, or −1.
func (d *Document) nextMarker(text []byte) (int, int) {
	head := []byte(`"\u0000jsonstream:` + d.nonce + ":")
	at := bytes.Index(text, head)
	if at < 0 {
		return -1, 0
	}
	rest := text[at+len(head):]
	end := bytes.IndexByte(rest, '\\')
	if end < 0 {
		return -1, 0
	}
	id, err := strconv.Atoi(string(rest[:end]))
	if err != nil || id < 0 || id >= len(d.streams) {
		return -1, 0
	}
	return at, id
}

// writeArray writes a stream's array.
func (d *Document) writeArray(w io.Writer, s *Stream, indent bool, prefix string) error {
	n := 0
	emit := func(elem []byte) error {
		sep := ","
		if n == 0 {
			sep = ""
		}
		n++
		if !indent {
			if _, err := io.WriteString(w, sep); err != nil {
				return err
			}
			_, err := w.Write(elem)
			return err
		}
		var b bytes.Buffer
		if err := json.Indent(&b, elem, prefix+"  ", "  "); err != nil {
			return fmt.Errorf("jsonstream: %w", err)
		}
		if _, err := io.WriteString(w, sep+"\n"+prefix+"  "); err != nil {
			return err
		}
		_, err := w.Write(b.Bytes())
		return err
	}
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	if s.Each != nil {
		if err := s.Each(emit); err != nil {
			return err
		}
	}
	end := "]"
	if indent && n > 0 {
		end = "\n" + prefix + "]"
	}
	_, err := io.WriteString(w, end)
	return err
}
