#!/usr/bin/env bash
# Regenerates estimate/testdata/reference-{texts,counts}.json: the texts
# (hard cases and real transcript text) and their token counts by OpenAI's
# tiktoken, installed here from npm; and reference-invalid{,-counts}.json:
# byte strings that are not valid UTF-8, and the counts of the text
# JavaScript decodes them to. The Go tests read the files and need no node.
set -euo pipefail
cd "$(dirname "$0")/.."
TIKTOKEN_VERSION=1.0.22
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./scripts/reftexts > estimate/testdata/reference-texts.json
(cd "$tmp" && npm install --silent --no-audit --no-fund "tiktoken@$TIKTOKEN_VERSION" >/dev/null)
(cd "$tmp" && node "$OLDPWD/scripts/reference-counts.mjs" "$OLDPWD/estimate/testdata/reference-texts.json") > estimate/testdata/reference-counts.json.tmp
mv estimate/testdata/reference-counts.json.tmp estimate/testdata/reference-counts.json
go run ./scripts/reftexts -invalid > estimate/testdata/reference-invalid.json
(cd "$tmp" && node "$OLDPWD/scripts/reference-invalid.mjs" "$OLDPWD/estimate/testdata/reference-invalid.json") > estimate/testdata/reference-invalid-counts.json.tmp
mv estimate/testdata/reference-invalid-counts.json.tmp estimate/testdata/reference-invalid-counts.json
echo "wrote estimate/testdata/reference-{texts,counts,invalid,invalid-counts}.json"
