// Command reftexts writes the texts whose reference token counts the
// estimate tests compare against (estimate/testdata/reference-texts.json):
// hand-picked hard cases, then every block text of a few real transcripts.
// With -invalid it writes, base64-encoded, byte strings that are not valid
// UTF-8 (estimate/testdata/reference-invalid.json).
// scripts/reference-counts.sh runs it, then counts the texts with OpenAI's
// tiktoken.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
)

// hard are texts on which tokenizers are known to disagree.
var hard = []string{
	"",
	"hello world",
	"\n \n",
	"\n \n \n  \n   \n",
	"a  \n\n  b\t\t\n\r\n c",
	"    indented\n\t\ttabs\n",
	"\ufeffBOM at the start",
	"zero\u200bwidth\u200djoiner",
	"日本語のテキストです。トークン数は多い。",
	"中文文本，标点符号。",
	"한국어 텍스트",
	"emoji 🎉🚀👍🏽 and 👨‍👩‍👧‍👦 family",
	"<|endoftext|> is text here, as are <|fim_prefix|> and <|endofprompt|>",
	"I'm sure you'll see they've done it, he'd say; I'M SURE YOU'LL",
	"12345678901234567890 3.14159 1,000,000",
	"func main() {\n\tfmt.Println(\"héllo, 世界\")\n}\n",
	"https://example.com/path?q=1&r=2#frag",
	"/home/user/project/src/very_long_file_name_with_underscores.go:123:45",
	strings.Repeat("a", 100_000),
	strings.Repeat("ab", 20_000),
	strings.Repeat(" ", 5_000),
	strings.Repeat("\n", 3_000),
	strings.Repeat("日本", 3_000),
	base64Blob(30_000),
}

// base64Blob returns n characters that look like base64 data (a fixed
// pattern, so the file is reproducible).
func base64Blob(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = alphabet[x%64]
	}
	return string(b)
}

// samples are corpus files whose block texts are added, capped per file.
var samples = []struct {
	file string
	max  int
}{
	{"fixtures/corpus/spotter/tool_heavy.jsonl", 200},
	{"fixtures/corpus/ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt", 200},
	{"fixtures/corpus/codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json", 200},
	{"fixtures/corpus/mini-swe-agent/output/deepseek_reasoner_dev/sqlfluff__sqlfluff-1517/sqlfluff__sqlfluff-1517.traj.json", 200},
	{"fixtures/corpus/codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl", 120},
}

// invalid are byte strings that are not valid UTF-8: truncated sequences,
// lone continuation bytes, overlong forms, surrogates, bytes never valid,
// and text around them; then random ones, drawn from the bytes where the
// decoder's cases meet (a fixed seed: the file is reproducible).
func invalid() []string {
	out := []string{
		"\xff", "\xfe\xff", "\x80", "\x80\x80\x80", "\xc0\xaf", "\xc2", "\xc2 ", "\xe2\x82", "\xe2\x82 tail", "\xe0\x80\x80",
		"\xed\xa0\x80", "\xed\x9f\xbf", "\xf0\x90\x80", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xf5\x80", "\xf1\x80\x80\xc2\x80",
		"hello \xe2\x82 world", "日本\xe6\x97語", "emoji \xf0\x9f\x8e tail", "<|endoftext|>\xff", "    \xa0\xa0  \n\xc3\x28",
		"a\xe2\x28\xa1b", "\xef\xbf\xbd\xef\xbf", strings.Repeat("\xc3", 50), strings.Repeat("ok\x9f", 300),
	}
	parts := []string{"\x80", "\xbf", "\xc0", "\xc2", "\xdf", "\xe0", "\xe0\xa0", "\xed", "\xed\xa0", "\xef", "\xf0", "\xf0\x90", "\xf4", "\xf4\x90",
		"\xf5", "\xff", "a", " ", "\n", "é", "日", "🎉", "'s", "123"}
	x := uint32(88172645)
	for range 2000 {
		var b strings.Builder
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		for range 1 + x%12 {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b.WriteString(parts[x%uint32(len(parts))])
		}
		out = append(out, b.String())
	}
	return out
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-invalid" {
		var b64 []string
		for _, s := range invalid() {
			b64 = append(b64, base64.StdEncoding.EncodeToString([]byte(s)))
		}
		if err := json.NewEncoder(os.Stdout).Encode(b64); err != nil {
			fmt.Fprintln(os.Stderr, "reftexts:", err)
			os.Exit(1)
		}
		return
	}
	texts := append([]string(nil), hard...)
	for _, s := range samples {
		ts, err := transcript.ReadFile(s.file, transcript.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "reftexts:", err)
			os.Exit(1)
		}
		n := 0
		for _, m := range ts[0].Messages {
			for _, b := range m.Blocks {
				for _, t := range []string{b.Text, b.Name, string(b.Input)} {
					if t != "" && n < s.max {
						texts = append(texts, t)
						n++
					}
				}
			}
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(texts); err != nil {
		fmt.Fprintln(os.Stderr, "reftexts:", err)
		os.Exit(1)
	}
}
