package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// writeResults writes results.json: the report as JSON indented by two
// spaces, what an encoding/json Encoder with that indent and no HTML
// escaping writes, but a run at a time: a long session's per-call series
// are never all encoded in memory at once (TestResultsStreamed holds the
// bytes equal).
func writeResults(w io.Writer, r *Report) error {
	if r.Transcripts == nil {
		s, err := indented(r, "")
		if err == nil {
			_, err = io.WriteString(w, s+"\n")
		}
		return err
	}
	top := *r
	top.Transcripts = []TranscriptResult{}
	head, tail, err := indentedAround(&top, `"transcripts": []`, "")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, head+`"transcripts": [`); err != nil {
		return err
	}
	for i := range r.Transcripts {
		sep := ","
		if i == 0 {
			sep = ""
		}
		tr, err := r.transcript(i)
		if err != nil {
			return err
		}
		if tr.Runs == nil {
			s, err := indented(&tr, "    ")
			if err != nil {
				return err
			}
			if _, err := io.WriteString(w, sep+"\n    "+s); err != nil {
				return err
			}
			continue
		}
		t := tr
		t.Runs = []PolicyResult{}
		thead, ttail, err := indentedAround(&t, `"runs": []`, "    ")
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, sep+"\n    "+thead+`"runs": [`); err != nil {
			return err
		}
		for k := range tr.Runs {
			run, err := indented(&tr.Runs[k], "        ")
			if err != nil {
				return err
			}
			sep := ","
			if k == 0 {
				sep = ""
			}
			if _, err := io.WriteString(w, sep+"\n        "+run); err != nil {
				return err
			}
		}
		end := "]"
		if len(tr.Runs) > 0 {
			end = "\n      ]"
		}
		if _, err := io.WriteString(w, end+ttail); err != nil {
			return err
		}
	}
	end := "]"
	if len(r.Transcripts) > 0 {
		end = "\n  ]"
	}
	_, err = io.WriteString(w, end+tail+"\n")
	return err
}

// indented returns v as JSON indented by two spaces, each line after the
// first starting with prefix, HTML not escaped.
func indented(v any, prefix string) (string, error) {
	var compact, out bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	if err := json.Indent(&out, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), prefix, "  "); err != nil {
		return "", err
	}
	return out.String(), nil
}

// indentedAround returns v indented (see indented) before and after mark,
// which it must hold once.
func indentedAround(v any, mark, prefix string) (string, string, error) {
	s, err := indented(v, prefix)
	if err != nil {
		return "", "", err
	}
	head, tail, ok := strings.Cut(s, mark)
	if !ok || strings.Contains(tail, mark) {
		return "", "", fmt.Errorf("results.json: %s not found once", mark)
	}
	return head, tail, nil
}
