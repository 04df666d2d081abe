package main

import "strings"

// commandExamples are two examples of each command, which its --help
// shows after its summary; TestDocExamples runs them.
var commandExamples = map[string][2]string{
	"inspect":   {"ctxbench inspect session.jsonl", "ctxbench inspect --json ~/.claude/projects"},
	"convert":   {"ctxbench convert --to openai-chat session.jsonl", "ctxbench convert --to otel -o session.otel.jsonl session.jsonl"},
	"probes":    {"ctxbench probes session.jsonl", "ctxbench probes --policy aidf:max_messages=10 session.jsonl"},
	"gen":       {"ctxbench gen --calls 20 --seed 1 -o synthetic.jsonl", "ctxbench gen --calls 5 --to openai-chat"},
	"tokens":    {"ctxbench tokens session.jsonl", "ctxbench tokens -e cl100k_base -e o200k_base session.jsonl"},
	"estimate":  {"ctxbench estimate session.jsonl", "ctxbench estimate --json ~/.claude/projects"},
	"summarize": {"ctxbench summarize session.jsonl", "ctxbench summarize --summarizer heuristic compacted.jsonl"},
	"policies":  {"ctxbench policies", "ctxbench policies --json"},
	"replay":    {"ctxbench replay session.jsonl", "ctxbench replay --policy none --policy aidf:max_messages=20,pair_safe=true --trace trace.jsonl session.jsonl"},
	"sweep":     {"ctxbench sweep --policy aidf:pair_safe=true --grid max_messages=10:40:10 session.jsonl", "ctxbench sweep --policy aidf --grid max_messages=20,40 --grid preserve_last_n=4,8 --csv sweep.csv ~/.claude/projects"},
	"cost":      {"ctxbench cost ~/.claude/projects", "ctxbench cost --policy recorded --policy aidf:max_messages=30 --sessions-per-day 200 session.jsonl"},
	"report":    {"ctxbench report ~/.claude/projects", "ctxbench report --policy none --policy prune --out session-report session.jsonl"},
	"check":     {"ctxbench check --config ctxbench.yaml", "ctxbench check --config ctxbench.yaml --format github --junit junit.xml"},
}

// examplesHelp is the Examples section of command's --help.
func examplesHelp(command string) string {
	var b strings.Builder
	b.WriteString("Examples:\n")
	for _, ex := range commandExamples[command] {
		b.WriteString("  $ " + ex + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (inspectCmd) Help() string   { return examplesHelp("inspect") }
func (convertCmd) Help() string   { return examplesHelp("convert") }
func (probesCmd) Help() string    { return examplesHelp("probes") }
func (genCmd) Help() string       { return examplesHelp("gen") }
func (tokensCmd) Help() string    { return examplesHelp("tokens") }
func (estimateCmd) Help() string  { return examplesHelp("estimate") }
func (summarizeCmd) Help() string { return examplesHelp("summarize") }
func (policiesCmd) Help() string  { return examplesHelp("policies") }
func (replayCmd) Help() string    { return examplesHelp("replay") }
func (sweepCmd) Help() string     { return examplesHelp("sweep") }
func (costCmd) Help() string      { return examplesHelp("cost") }
func (reportCmd) Help() string    { return examplesHelp("report") }
func (checkCmd) Help() string     { return examplesHelp("check") }
