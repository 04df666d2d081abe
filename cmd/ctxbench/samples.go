package main

import (
	"path"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/transcript"
)

// sampleFiles are the embedded transcripts (fixtures.Samples), in the
// order --samples and a run given no path read them.
var sampleFiles = []string{
	"spotter/tool_heavy.jsonl",
	"ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt",
	"codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl",
	"codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json",
	"mini-swe-agent/output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json",
	"OpenHands/tests/runtime/trajs/basic_gui_mode.json",
	"cline/sdk/packages/core/fixtures/session/session.messages.json",
}

// stdinPath is the path that names standard input, as transcript.Walk
// reads it.
const stdinPath = "-"

// samplePrefix starts the name of every embedded sample, so that output
// never mistakes one for a file on disk.
const samplePrefix = "embedded:"

// readSamples reads each embedded sample and calls fn with its
// transcripts, in order. Their File is the sample's path prefixed with
// samplePrefix.
func readSamples(opt transcript.Options, fn func(*transcript.Transcript) error) error {
	fsys := fixtures.Samples()
	for _, name := range sampleFiles {
		f, err := fsys.Open(name)
		if err != nil {
			return err
		}
		ts, err := transcript.Read(f, samplePrefix+path.Clean(name), opt)
		f.Close()
		if err != nil {
			return err
		}
		for _, t := range ts {
			if err := fn(t); err != nil {
				return err
			}
		}
	}
	return nil
}
