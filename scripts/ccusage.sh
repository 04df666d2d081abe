#!/usr/bin/env bash
# Regenerates cost/testdata/ccusage-sessions.json: what ccusage, the tool
# users check their Claude Code bills with, reports for the corpus's Claude
# Code sessions (claude session --json --offline, its embedded prices), and
# cost/testdata/ccusage-copilot.json: what it reports for the GitHub
# Copilot CLI OpenTelemetry file in transcript/testdata/otel (copilot
# session), cost/testdata/ccusage-codex.json for the Codex rollouts with
# token counts in transcript/testdata (codex session), and
# cost/testdata/ccusage-gemini.json for the corpus's Gemini CLI session
# (gemini session), and cost/testdata/ccusage-opencode.json for the
# opencode sessions in transcript/testdata/opencode, written out as
# opencode's storage directory (opencode session), and
# cost/testdata/ccusage-copilot-events.json for the Copilot CLI event log
# in transcript/testdata/copilot (copilot session). The Go tests hold ctxbench's bill to them and need
# neither node nor ccusage.
set -euo pipefail
cd "$(dirname "$0")/.."
CCUSAGE_VERSION=20.0.24
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm install --silent --no-audit --no-fund --no-save "@ccusage/ccusage-linux-x64@$CCUSAGE_VERSION" >/dev/null)
# ccusage reads ~/.claude/projects/<project>/<session>.jsonl and rolls
# <session>/subagents/*.jsonl into the session.
mkdir -p "$tmp/claude/projects/spotter" "$tmp/claude/projects/codemie"
cp fixtures/corpus/spotter/*.jsonl "$tmp/claude/projects/spotter/"
cp -r fixtures/corpus/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20 "$tmp/claude/projects/spotter/"
cp fixtures/corpus/codemie-code/tests/integration/session/fixtures/*.jsonl "$tmp/claude/projects/codemie/"
chmod +x "$tmp/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage"
CLAUDE_CONFIG_DIR="$tmp/claude" HOME="$tmp/home" TZ=UTC \
	"$tmp/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage" claude session --json --offline |
	node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);j.ccusage=process.argv[1];console.log(JSON.stringify(j,null,1))})' "$CCUSAGE_VERSION" \
	> cost/testdata/ccusage-sessions.json
echo "wrote cost/testdata/ccusage-sessions.json"
# ccusage reads ${COPILOT_HOME:-~/.copilot}/otel/*.jsonl and the file
# COPILOT_OTEL_FILE_EXPORTER_PATH names.
COPILOT_OTEL_FILE_EXPORTER_PATH="$PWD/transcript/testdata/otel/copilot-spans.jsonl" HOME="$tmp/home" TZ=UTC \
	"$tmp/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage" copilot session --json --offline |
	node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);j.ccusage=process.argv[1];console.log(JSON.stringify(j,null,1))})' "$CCUSAGE_VERSION" \
	> cost/testdata/ccusage-copilot.json
echo "wrote cost/testdata/ccusage-copilot.json"
stamp() {
	node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);j.ccusage=process.argv[1];console.log(JSON.stringify(j,null,1))})' "$CCUSAGE_VERSION"
}
# ccusage reads $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl.
mkdir -p "$tmp/codex/sessions/2026/05/11"
for f in codex-rollout-tokens codex-rollback codex-encrypted-compaction; do
	cp "transcript/testdata/$f.jsonl" "$tmp/codex/sessions/2026/05/11/rollout-$f.jsonl"
done
CODEX_HOME="$tmp/codex" HOME="$tmp/home" TZ=UTC \
	"$tmp/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage" codex session --json --offline | stamp > cost/testdata/ccusage-codex.json
echo "wrote cost/testdata/ccusage-codex.json"
# ccusage reads $GEMINI_DATA_DIR/*/chats/*.json.
mkdir -p "$tmp/gemini/project/chats"
cp fixtures/corpus/codemie-code/tests/integration/metrics/fixtures/gemini/*.json "$tmp/gemini/project/chats/"
GEMINI_DATA_DIR="$tmp/gemini" HOME="$tmp/home" TZ=UTC \
	"$tmp/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage" gemini session --json --offline | stamp > cost/testdata/ccusage-gemini.json
echo "wrote cost/testdata/ccusage-gemini.json"
# ccusage reads $OPENCODE_DATA_DIR/storage/message/<session>/<message>.json
# (and opencode.db); ctxbench reads the export and API files they are split
# from, which hold the same messages with their parts.
node -e '
const fs = require("fs"), path = require("path");
const out = process.argv[1];
for (const f of process.argv.slice(2)) {
	const j = JSON.parse(fs.readFileSync(f));
	for (const m of Array.isArray(j) ? j : j.messages) {
		const md = path.join(out, "storage/message", m.info.sessionID);
		fs.mkdirSync(md, {recursive: true});
		fs.writeFileSync(path.join(md, m.info.id + ".json"), JSON.stringify(m.info));
		for (const p of m.parts) {
			const pd = path.join(out, "storage/part", m.info.id);
			fs.mkdirSync(pd, {recursive: true});
			fs.writeFileSync(path.join(pd, p.id + ".json"), JSON.stringify(p));
		}
	}
}' "$tmp/opencode" transcript/testdata/opencode/export.json transcript/testdata/opencode/api-messages.json
OPENCODE_DATA_DIR="$tmp/opencode" HOME="$tmp/home" TZ=UTC \
	"$tmp/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage" opencode session --json --offline | stamp > cost/testdata/ccusage-opencode.json
echo "wrote cost/testdata/ccusage-opencode.json"
# ccusage reads ${COPILOT_HOME:-~/.copilot}/session-state/<session>/events.jsonl.
COPILOT_HOME="$PWD/transcript/testdata/copilot" HOME="$tmp/home" TZ=UTC \
	"$tmp/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage" copilot session --json --offline | stamp > cost/testdata/ccusage-copilot-events.json
echo "wrote cost/testdata/ccusage-copilot-events.json"
