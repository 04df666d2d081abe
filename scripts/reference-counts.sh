#!/usr/bin/env bash
# Regenerates estimate/testdata/reference-{texts,counts}.json: the texts
# (hard cases and real transcript text) and their token counts by OpenAI's
# tiktoken, installed here from npm. The Go tests read the two files and
# need no node.
set -euo pipefail
cd "$(dirname "$0")/.."
TIKTOKEN_VERSION=1.0.22
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./scripts/reftexts > estimate/testdata/reference-texts.json
(cd "$tmp" && npm install --silent --no-audit --no-fund "tiktoken@$TIKTOKEN_VERSION" >/dev/null)
(cd "$tmp" && node "$OLDPWD/scripts/reference-counts.mjs" "$OLDPWD/estimate/testdata/reference-texts.json") > estimate/testdata/reference-counts.json.tmp
mv estimate/testdata/reference-counts.json.tmp estimate/testdata/reference-counts.json
echo "wrote estimate/testdata/reference-texts.json and reference-counts.json"
