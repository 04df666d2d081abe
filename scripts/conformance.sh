#!/usr/bin/env bash
# Regenerates window/testdata/conformance/*.json: what the peers' real
# code does at every call of the corpus's and a few generated histories
# (scripts/conformance/export writes them), run from their published npm
# packages at pinned versions. The Go tests compare ctxbench's policies
# with these goldens call by call and need no node. Needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
LANGCHAIN_CORE_VERSION=1.4.0
LANGCHAIN_VERSION=1.5.14
GEMINI_CLI_CORE_VERSION=0.61.0
AI_SDK_VERSION=6.0.326
CLINE_CORE_VERSION=0.0.86
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./scripts/conformance/export > "$tmp/histories.json"
(cd "$tmp" && npm install --silent --no-audit --no-fund --no-save \
	"@langchain/core@$LANGCHAIN_CORE_VERSION" "langchain@$LANGCHAIN_VERSION" "@google/gemini-cli-core@$GEMINI_CLI_CORE_VERSION" \
	"ai@$AI_SDK_VERSION" "@cline/core@$CLINE_CORE_VERSION" >/dev/null)
# The one line of gemini-cli-core changed for the replay: the inflation
# check leaves out the environment context, as the replayed histories do.
svc="$tmp/node_modules/@google/gemini-cli-core/dist/src/context/chatCompressionService.js"
line='const fullNewHistory = await getInitialChatHistory(config, extraHistory);'
grep -qF "$line" "$svc" || { echo "conformance: $svc no longer has: $line" >&2; exit 1; }
sed -i "s|$line|const fullNewHistory = extraHistory; // ctxbench conformance: no environment context|" "$svc"
echo "conformance: patched $svc: the inflation check leaves out the environment context" >&2
out=window/testdata/conformance
mkdir -p "$out"
for peer in langchain langchainmw gemini vercelprune cline; do
	(cd "$tmp" && node "$OLDPWD/scripts/conformance/$peer.mjs" "$tmp/histories.json") > "$out/$peer.json.tmp"
	mv "$out/$peer.json.tmp" "$out/$peer.json"
	echo "wrote $out/$peer.json"
done
# AIDF's ConversationWindow is not published on npm. With AIDF_WINDOW set
# to packages/cli/src/core/providers/conversation-window.ts of a checkout
# of rubenmavarezb/aidf at the commit window/internal/aidf/aidf.go names
# (node 22.6 or later imports it, stripping its types), or to that file
# with its types stripped, aidf.json is rewritten too.
if [ -n "${AIDF_WINDOW:-}" ]; then
	commit=$(sed -n 's/^const Commit = "\([0-9a-f]*\)"$/\1/p' window/internal/aidf/aidf.go)
	flags=()
	case "$AIDF_WINDOW" in *.ts) flags=(--experimental-strip-types) ;; esac
	node "${flags[@]}" scripts/conformance/aidf.mjs "$AIDF_WINDOW" "$commit" "$tmp/histories.json" > "$out/aidf.json.tmp"
	mv "$out/aidf.json.tmp" "$out/aidf.json"
	echo "wrote $out/aidf.json"
else
	echo "conformance: AIDF_WINDOW is not set: $out/aidf.json is left as it is" >&2
fi
# The ralph loop's summarizeMessages is private to loop.ts of
# vercel-labs/ralph-gpu, which is not on npm. With TWOTIER_MODULE set to a
# module that exports it and estimateTokens, made of loop.ts's lines at
# the commit window/internal/twotier/twotier.go names as scripts/conformance/twotier.mjs
# describes, twotier.json is rewritten too; the module is copied beside
# the AI SDK installed here, which it imports.
if [ -n "${TWOTIER_MODULE:-}" ]; then
	commit=$(sed -n 's/^const ralphCommit = "\([0-9a-f]*\)"$/\1/p' window/internal/twotier/twotier.go)
	flags=()
	module="$tmp/twotier-module.mjs"
	case "$TWOTIER_MODULE" in *.ts) flags=(--experimental-strip-types) module="$tmp/twotier-module.ts" ;; esac
	cp "$TWOTIER_MODULE" "$module"
	(cd "$tmp" && node "${flags[@]}" "$OLDPWD/scripts/conformance/twotier.mjs" "$module" "$commit" "$tmp/histories.json") > "$out/twotier.json.tmp"
	mv "$out/twotier.json.tmp" "$out/twotier.json"
	echo "wrote $out/twotier.json"
else
	echo "conformance: TWOTIER_MODULE is not set: $out/twotier.json is left as it is" >&2
fi
# The OpenAI Agents SDK is a Python package (openai-agents on PyPI), not
# on npm. With OPENAI_AGENTS set to src/agents of a checkout of
# openai/openai-agents-python at the release window/internal/openai/trim.go names,
# openaitrim.json is rewritten too: python3 runs the release's
# ToolOutputTrimmer (scripts/conformance/openaitrim.py says how).
if [ -n "${OPENAI_AGENTS:-}" ]; then
	version=$(sed -n 's/^\topenAITrimVersion = "\([0-9.]*\)"$/\1/p' window/internal/openai/trim.go)
	commit=$(sed -n 's/^\topenAITrimCommit  = "\([0-9a-f]*\)"$/\1/p' window/internal/openai/trim.go)
	python3 scripts/conformance/openaitrim.py "$OPENAI_AGENTS" "$version" "$commit" "$tmp/histories.json" > "$out/openaitrim.json.tmp"
	mv "$out/openaitrim.json.tmp" "$out/openaitrim.json"
	echo "wrote $out/openaitrim.json"
else
	echo "conformance: OPENAI_AGENTS is not set: $out/openaitrim.json is left as it is" >&2
fi
