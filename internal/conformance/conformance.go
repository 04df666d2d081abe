// Package conformance names the transcripts the peers' real code is run
// on (make conformance) and ctxbench's policies are compared on: the
// corpus's and a few generated ones, each by the name the peer
// conformance goldens know it by; and reads the corpus ([Corpus]) and
// generated sessions ([Generated]) for the tests of the packages that
// replay them.
package conformance

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/transcript"
)

// A Source is a transcript and the name it is known by in the peer
// conformance goldens.
type Source struct {
	Name       string
	Transcript *transcript.Transcript
}

// conformanceGen are the generated transcripts the goldens add to the
// corpus: tool-heavy, Japanese-heavy, and in OpenAI's chat format.
var conformanceGen = []fixtures.GenOptions{
	{Calls: 150, Seed: 7, ToolRatio: 0.8, NonASCII: 0.1, Format: transcript.FormatClaudeCode},
	{Calls: 100, Seed: 8, ToolRatio: 0.5, NonASCII: 0.6, Format: transcript.FormatClaudeCode},
	{Calls: 150, Seed: 9, ToolRatio: 0.7, NonASCII: 0.05, Format: transcript.FormatOpenAIChat},
}

// Sources returns the transcripts the peers' real code is run
// on (make conformance) and ctxbench's policies are compared on: every
// transcript of the corpus in dir, named corpus:PATH#ID (PATH under dir),
// then the generated ones, named gen:OPTIONS.
func Sources(dir string) ([]Source, error) {
	var out []Source
	_, err := transcript.Walk([]string{dir}, transcript.Options{}, nil, func(t *transcript.Transcript) error {
		rel := t.File
		if r, ok := strings.CutPrefix(filepath.ToSlash(t.File), filepath.ToSlash(dir)+"/"); ok {
			rel = r
		}
		out = append(out, Source{Name: "corpus:" + rel + "#" + t.ID, Transcript: t})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, o := range conformanceGen {
		t, err := Generated(o)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("gen:calls=%d,seed=%d,tool-ratio=%g,non-ascii=%g,to=%s", o.Calls, o.Seed, o.ToolRatio, o.NonASCII, o.Format)
		out = append(out, Source{Name: name, Transcript: t})
	}
	out = append(out, Source{Name: "gen:big-outputs", Transcript: bigOutputs()})
	out = append(out, Source{Name: "gen:interrupted", Transcript: interrupted()})
	return out, nil
}

// interrupted is a Claude Code session whose user interrupted the agent
// while it was thinking, four times: each interrupted call left an
// assistant message of nothing but thinking, followed by Claude Code's
// "[Request interrupted by user]" and a new prompt. The session opens
// with a message that is only a pasted screenshot. Agents that strip
// thoughts hold these messages as empty turns, or drop them and merge
// the user turns on either side; the corpus has none.
func interrupted() *transcript.Transcript {
	const model = "claude-sonnet-4-5"
	t := &transcript.Transcript{ID: "interrupted", File: "gen:interrupted", Format: transcript.FormatClaudeCode, Models: []string{model}}
	add := func(role transcript.Role, blocks ...transcript.Block) {
		m := transcript.Message{Role: role, Blocks: blocks}
		if role == transcript.RoleAssistant {
			m.Model = model
		}
		t.Messages = append(t.Messages, m)
	}
	text := func(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }
	thinking := func(s string) transcript.Block { return transcript.Block{Type: transcript.BlockThinking, Text: s} }
	add(transcript.RoleUser, transcript.Block{Type: transcript.BlockImage})
	add(transcript.RoleUser, text("The settings page in the screenshot renders twice on load. Find out why and fix it."))
	files := []string{"src/pages/Settings.tsx", "src/hooks/useSettings.ts", "src/store/settings.ts", "src/api/client.ts", "src/App.tsx", "src/pages/Profile.tsx"}
	for k := range 36 {
		if k%9 == 4 {
			add(transcript.RoleAssistant, thinking(fmt.Sprintf("The render count doubled after step %d; maybe the effect depends on an object recreated on every render. Let me look at", k)))
			add(transcript.RoleUser, text("[Request interrupted by user]"))
			add(transcript.RoleUser, text(fmt.Sprintf("Stop: before that, check whether %s is mounted under StrictMode.", files[k%len(files)])))
			continue
		}
		id := fmt.Sprintf("toolu_int_%02d", k)
		file := files[k%len(files)]
		add(transcript.RoleAssistant,
			thinking(fmt.Sprintf("Step %d: read %s.", k, file)),
			text(fmt.Sprintf("Reading %s.", file)),
			transcript.Block{Type: transcript.BlockToolUse, ID: id, Name: "Read", Input: []byte(fmt.Sprintf(`{"file_path":"/repo/%s"}`, file))})
		var b strings.Builder
		for n := range 12 + (k*37)%90 {
			fmt.Fprintf(&b, "%4d\tconst v%d = useMemo(() => compute(%q, %d), [deps%d]);\n", n+1, n, file, n*k, n%5)
		}
		add(transcript.RoleUser, transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: b.String()})
		if k%5 == 2 {
			add(transcript.RoleAssistant, text(fmt.Sprintf("%s subscribes to the store twice; the second subscription comes from the effect at line %d.", file, 10+k)))
			add(transcript.RoleUser, text("Go on."))
		}
	}
	add(transcript.RoleAssistant, text("The settings effect depended on an options object rebuilt on every render; memoizing it leaves one render on load."))
	return t
}

// bigOutputs is a session whose tool outputs run from 20,000 to 150,000
// characters, some of them Japanese: the outputs agents' budgets and
// truncations act on, which the corpus has few of.
func bigOutputs() *transcript.Transcript {
	t := &transcript.Transcript{ID: "big-outputs", File: "gen:big-outputs", Format: transcript.FormatClaudeCode, Models: []string{"claude-sonnet-4-5"}}
	add := func(m transcript.Message) { t.Messages = append(t.Messages, m) }
	text := func(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }
	add(transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{text("Find why the nightly export is slow; read the logs and the exporter.")}})
	sizes := []int{20_000, 48_000, 90_000, 150_000, 30_000}
	for k := range 40 {
		id := fmt.Sprintf("toolu_big_%02d", k)
		add(transcript.Message{Role: transcript.RoleAssistant, Model: "claude-sonnet-4-5", Blocks: []transcript.Block{
			{Type: transcript.BlockThinking, Text: fmt.Sprintf("Step %d: read the next log.", k)},
			text(fmt.Sprintf("Reading log %d.", k)),
			{Type: transcript.BlockToolUse, ID: id, Name: "read_file", Input: []byte(fmt.Sprintf(`{"path":"/var/log/export/%02d.log","limit":5000}`, k))},
		}})
		var b strings.Builder
		for n := 0; b.Len() < sizes[k%len(sizes)]; n++ {
			if k%7 == 3 && n%3 == 0 {
				fmt.Fprintf(&b, "%05d 書き出しが遅い: バッチ %d を待機中\n", n, n%97)
			} else {
				fmt.Fprintf(&b, "%05d INFO exporter: wrote batch %d of table events (%d rows) in %dms\n", n, n%97, 1000+n%500, 20+n%300)
			}
		}
		add(transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockToolResult, ID: id, Text: b.String()}}})
		if k%6 == 5 {
			add(transcript.Message{Role: transcript.RoleAssistant, Model: "claude-sonnet-4-5", Blocks: []transcript.Block{text(fmt.Sprintf("So far: %d logs read, the slow batches cluster at night.", k+1))}})
			add(transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{text(fmt.Sprintf("Keep going; check log %d next.", k+1))}})
		}
	}
	add(transcript.Message{Role: transcript.RoleAssistant, Model: "claude-sonnet-4-5", Blocks: []transcript.Block{text("The exporter waits on a lock held by the nightly vacuum.")}})
	return t
}

// Corpus reads every transcript under dir — the repository's
// fixtures/corpus, for the tests of the packages that replay it — in walk
// order, leaving out the files in no known format (licenses, notes).
func Corpus(dir string) ([]*transcript.Transcript, error) {
	var out []*transcript.Transcript
	_, err := transcript.Walk([]string{dir}, transcript.Options{}, nil, func(t *transcript.Transcript) error {
		out = append(out, t)
		return nil
	})
	return out, err
}

// Generated generates a session as [fixtures.Generate] does and reads it
// back: the transcript tests and benchmarks replay.
func Generated(o fixtures.GenOptions) (*transcript.Transcript, error) {
	var b bytes.Buffer
	if err := fixtures.Generate(&b, o); err != nil {
		return nil, err
	}
	ts, err := transcript.Parse(b.Bytes(), "gen.jsonl", transcript.Options{})
	if err != nil {
		return nil, err
	}
	return ts[0], nil
}
