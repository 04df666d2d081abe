package replay

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// Retention measures what a policy keeps, as a proxy nobody can compute
// offline exactly (what the model would have needed is unknowable): at
// each call, the share of the artifacts seen so far in the full history
// that are still present in the context sent, summary text included.
//
// Artifacts are the things an agent's later work refers back to:
//
//   - file paths (in tool inputs and in text),
//   - shell commands (the command of a tool call),
//   - URLs,
//   - error lines (a line of a failed tool result, or a line with
//     "error", "exception", "traceback" or "failed" in a tool result),
//   - tool calls, as the tool name with its key argument (path, command,
//     pattern, url or query).
//
// An artifact is present when its text appears in a message sent — an
// original, a truncated copy or a summary. A run's retention is the mean
// over calls; 1 means nothing the history mentioned was lost.
func artifacts(m *transcript.Message) []string {
	set := map[string]bool{}
	add := func(kind, s string) {
		s = strings.TrimSpace(s)
		if len(s) >= 3 && len(s) <= 300 {
			set[kind+"\x00"+s] = true
		}
	}
	for _, b := range m.Blocks {
		switch b.Type {
		case transcript.BlockToolUse:
			var in map[string]any
			_ = json.Unmarshal(b.Input, &in)
			key := ""
			for _, k := range []string{"file_path", "path", "command", "cmd", "pattern", "url", "query"} {
				if v, ok := in[k].(string); ok && v != "" {
					key = v
					break
				}
			}
			if key != "" {
				add("tool", b.Name+" "+key)
			}
			for _, k := range []string{"command", "cmd"} {
				if v, ok := in[k].(string); ok {
					add("command", v)
				}
			}
			for _, k := range []string{"file_path", "path", "notebook_path"} {
				if v, ok := in[k].(string); ok {
					add("path", v)
				}
			}
		case transcript.BlockToolResult:
			for _, line := range strings.Split(b.Text, "\n") {
				l := strings.ToLower(line)
				if b.IsError || strings.Contains(l, "error") || strings.Contains(l, "exception") || strings.Contains(l, "traceback") || strings.Contains(l, "failed") {
					if len(strings.TrimSpace(line)) >= 8 {
						add("error", line)
					}
				}
			}
			textArtifacts(b.Text, add)
		case transcript.BlockText, transcript.BlockThinking:
			textArtifacts(b.Text, add)
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var (
	urlRe  = regexp.MustCompile(`https?://[^\s"'<>)\]]+`)
	pathRe = regexp.MustCompile(`(?:^|[\s"'(\x60])((?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)+)`)
)

func textArtifacts(s string, add func(kind, s string)) {
	for _, u := range urlRe.FindAllString(s, -1) {
		add("url", strings.TrimRight(u, ".,;:"))
	}
	for _, m := range pathRe.FindAllStringSubmatch(s, -1) {
		add("path", strings.TrimRight(m[1], ".,;:"))
	}
}

// retention tracks one run's artifacts.
type retention struct {
	t        *transcript.Transcript
	of       map[int][]string                 // artifacts of message i, computed once
	cut      map[*transcript.Message][]string // artifacts of truncated copies
	seen     map[string]bool                  // artifacts of every message appended so far
	appended int
}

func newRetention(t *transcript.Transcript) *retention {
	return &retention{t: t, of: map[int][]string{}, cut: map[*transcript.Message][]string{}, seen: map[string]bool{}}
}

func (r *retention) message(i int) []string {
	a, ok := r.of[i]
	if !ok {
		a = artifacts(&r.t.Messages[i])
		r.of[i] = a
	}
	return a
}

// step returns the retention of a context, after the messages before next
// have been seen.
func (r *retention) step(next int, sent []window.Item) float64 {
	for ; r.appended < next; r.appended++ {
		for _, a := range r.message(r.appended) {
			r.seen[a] = true
		}
	}
	if len(r.seen) == 0 {
		return 1
	}
	present := map[string]bool{}
	var synthetic []string
	for _, it := range sent {
		switch i := it.Index(); {
		case i >= 0 && !it.Truncated:
			for _, a := range r.message(i) {
				present[a] = true
			}
		case i >= 0:
			a, ok := r.cut[it.Msg]
			if !ok {
				a = artifacts(it.Msg)
				r.cut[it.Msg] = a
			}
			for _, x := range a {
				present[x] = true
			}
		default: // a summary paraphrases: look for each artifact's text in it
			synthetic = append(synthetic, it.Msg.Text())
		}
	}
	if len(synthetic) > 0 {
		text := strings.Join(synthetic, "\n")
		for a := range r.seen {
			if !present[a] && strings.Contains(text, a[strings.IndexByte(a, 0)+1:]) {
				present[a] = true
			}
		}
	}
	n := 0
	for a := range present {
		if r.seen[a] {
			n++
		}
	}
	return float64(n) / float64(len(r.seen))
}
