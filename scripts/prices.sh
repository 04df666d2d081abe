#!/usr/bin/env bash
# Regenerates pricing/prices.json, ctxbench's embedded price table, from
# pydantic's genai-prices (each provider's published prices and the page
# they come from), installed here from npm at a pinned version, and prints
# where the table differs from LiteLLM's prices as ccusage (also pinned)
# embeds them. Needs node and npm; the Go build and tests need neither.
set -euo pipefail
cd "$(dirname "$0")/.."
GENAI_PRICES_VERSION=0.1.8
CCUSAGE_VERSION=20.0.24
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm install --silent --no-audit --no-fund --no-save "@pydantic/genai-prices@$GENAI_PRICES_VERSION" "@ccusage/ccusage-linux-x64@$CCUSAGE_VERSION" >/dev/null)
node scripts/prices/generate.mjs "$tmp/node_modules/@pydantic/genai-prices" "$tmp/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage" > pricing/prices.json.tmp
mv pricing/prices.json.tmp pricing/prices.json
echo "wrote pricing/prices.json"
