#!/usr/bin/env bash
# Rewrites cmd/ctxbench/default.pgo, the CPU profile go build (and go run)
# optimizes the ctxbench command with (profile-guided optimization: the
# compiler inlines and lays out the hot calls the profile shows). The
# profile is the commands make perf measures, merged: reading Claude Code
# sessions (the corpus's, four times over), replaying, pricing and
# estimating a generated 5,000-call session under the 8 policies, a sweep
# and the report of the corpus. Run it after a change that moves the
# profile (docs/performance.md); the test targets build with -pgo=off.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -pgo=off -o "$tmp/ctxbench" ./cmd/ctxbench
for n in 1 2 3 4; do
	mkdir -p "$tmp/claude/projects/$n"
	cp -r fixtures/corpus/spotter fixtures/corpus/codemie-code/tests/integration/session/fixtures "$tmp/claude/projects/$n/"
done
"$tmp/ctxbench" gen --calls 5000 -o "$tmp/5k.jsonl"
policies=(--policy aidf:max_messages=100 --policy two-tier --policy cross-turn --policy compress
	--policy langchain-trim:max_tokens=30000 --policy opencode --policy codex --policy gemini-cli)
n=0
profile() {
	n=$((n + 1))
	# Exit status 1 is a replay's violations; 2 and above are errors.
	CTXBENCH_CPUPROFILE="$tmp/$n.prof" "$tmp/ctxbench" "$@" >/dev/null 2>"$tmp/err" || {
		status=$?
		if [ "$status" -gt 1 ]; then cat "$tmp/err" >&2; exit "$status"; fi
	}
}
profile inspect --json "$tmp/claude/projects"
profile cost --json --policy recorded "$tmp/claude/projects"
profile estimate "$tmp/5k.jsonl"
profile replay "${policies[@]}" "$tmp/5k.jsonl"
profile cost "${policies[@]}" "$tmp/5k.jsonl"
profile sweep --policy aidf --grid max_messages=10:1009:1 fixtures/corpus
profile report --out "$tmp/report" fixtures/corpus
go tool pprof -proto "$tmp"/*.prof > "$tmp/default.pgo"
mv "$tmp/default.pgo" cmd/ctxbench/default.pgo
