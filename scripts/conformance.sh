#!/usr/bin/env bash
# Regenerates window/testdata/conformance/*.json: what the peers' real
# code keeps at every call of the corpus's and a few generated histories
# (scripts/conformance/export writes them), run from their published npm
# packages at pinned versions. The Go tests compare ctxbench's policies
# with these goldens call by call and need no node. Needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
LANGCHAIN_CORE_VERSION=1.4.0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./scripts/conformance/export > "$tmp/histories.json"
(cd "$tmp" && npm install --silent --no-audit --no-fund --no-save "@langchain/core@$LANGCHAIN_CORE_VERSION" >/dev/null)
out=window/testdata/conformance
mkdir -p "$out"
(cd "$tmp" && node "$OLDPWD/scripts/conformance/langchain.mjs" "$tmp/histories.json") > "$out/langchain.json.tmp"
mv "$out/langchain.json.tmp" "$out/langchain.json"
echo "wrote $out/langchain.json"
