#!/usr/bin/env bash
# The steps of the ctxbench GitHub Action (action.yml at the repository's
# root). Each step of action.yml runs `action.sh STEP` with the action's
# inputs in INPUT_* and the runner's variables (GITHUB_*, RUNNER_*); the
# steps hand files to each other in $RUNNER_TEMP/ctxbench.
# cmd/ctxbench/action_test.go runs them as the runner does, with a fake gh.
#
#   install   ctxbench on PATH: built from the action's checkout
#             (INPUT_VERSION=source) or the release vX.Y.Z for the runner
#   baseline  the baseline to compare with: the file as the base branch
#             commits it, or the artefact of the branch's last green run
#   check     ctxbench check: annotations, JUnit, the job's summary, the
#             report folder and the comment's text; it never fails itself
#   comment   create or edit the pull request's one ctxbench comment
#   verdict   exit with the check's status (0 pass, 1 fail, 2 error)
set -euo pipefail

work="${RUNNER_TEMP:?}/ctxbench"
report="$work/report"
config="${INPUT_CONFIG:-ctxbench.yaml}"
baseline="${INPUT_BASELINE:-}"
if [[ -z "$baseline" ]]; then
	baseline="$(dirname "$config")/ctxbench.baseline.json"
	baseline="${baseline#./}"
fi
exe=""
[[ "${RUNNER_OS:-}" == Windows ]] && exe=.exe

install() {
	local bin="$work/bin" version="${INPUT_VERSION:-source}"
	mkdir -p "$bin"
	if [[ "$version" == source ]]; then
		(cd "${GITHUB_ACTION_PATH:?}" && go build -trimpath -o "$bin/ctxbench$exe" ./cmd/ctxbench)
	else
		local os arch ext=tar.gz
		case "${RUNNER_OS:-Linux}" in Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ext=zip ;; *) os=unknown ;; esac
		case "${RUNNER_ARCH:-X64}" in X64) arch=amd64 ;; ARM64) arch=arm64 ;; *) arch=unknown ;; esac
		local archive="ctxbench_${version#v}_${os}_${arch}.$ext" dl="$work/download"
		rm -rf "$dl" && mkdir -p "$dl"
		gh release download "v${version#v}" --repo "${CTXBENCH_REPO:-ctxbench/ctxbench}" \
			--pattern "$archive" --pattern checksums.txt --dir "$dl"
		(cd "$dl" && grep "  $archive\$" checksums.txt | { sha256sum -c - 2>/dev/null || shasum -a 256 -c -; })
		if [[ "$ext" == zip ]]; then unzip -q -o "$dl/$archive" -d "$dl"; else tar -xzf "$dl/$archive" -C "$dl"; fi
		mv "$dl/ctxbench$exe" "$bin/ctxbench$exe"
	fi
	echo "$bin" >>"${GITHUB_PATH:?}"
	"$bin/ctxbench$exe" --version
}

# The branch whose baseline a run compares with: a pull request's base,
# else the branch pushed to.
branch() { echo "${GITHUB_BASE_REF:-${GITHUB_REF_NAME:-}}"; }

baseline() {
	mkdir -p "$work"
	rm -f "$work/base.json" "$work/baseline-note"
	local br note=""
	br="$(branch)"
	case "$baseline" in
	artifact:*)
		local name="${baseline#artifact:}" workflow id=""
		workflow="${GITHUB_WORKFLOW_REF%%@*}"
		workflow="${workflow##*/}"
		id="$(gh run list --repo "$GITHUB_REPOSITORY" --workflow "$workflow" --branch "$br" --status success \
			--limit 1 --json databaseId --jq '.[0].databaseId // empty')" || id=""
		if [[ -n "$id" ]] && gh run download "$id" --repo "$GITHUB_REPOSITORY" --name "$name" --dir "$work/artifact" &&
			[[ -f "$work/artifact/ctxbench.baseline.json" ]]; then
			cp "$work/artifact/ctxbench.baseline.json" "$work/base.json"
			note="the baseline that run $id on $br recorded (artefact $name)"
		else
			note="no artefact $name of a successful run on $br"
		fi
		;;
	*)
		local rev="$baseline" depth=()
		[[ "$rev" == /* ]] || rev="./$rev"
		# actions/checkout's clone is shallow: fetch the base the same way.
		[[ "$(git rev-parse --is-shallow-repository 2>/dev/null)" == true ]] && depth=(--depth=1)
		if [[ -n "${GITHUB_BASE_REF:-}" ]] &&
			git fetch --quiet --no-tags ${depth[@]+"${depth[@]}"} origin "+refs/heads/$br:refs/remotes/origin/$br" &&
			git show "origin/$br:$rev" >"$work/base.json" 2>/dev/null; then
			note="$baseline as $br commits it"
		elif [[ -n "${GITHUB_BASE_REF:-}" && -f "$baseline" ]]; then
			rm -f "$work/base.json"
			cp "$baseline" "$work/base.json"
			note="$br has no $baseline: compared with the one this pull request adds"
		elif [[ -f "$baseline" ]]; then
			cp "$baseline" "$work/base.json"
			note="$baseline"
		else
			rm -f "$work/base.json"
		fi
		;;
	esac
	echo "$note" >"$work/baseline-note"
	echo "ctxbench: baseline: ${note:-none}"
}

check() {
	rm -rf "$report" && mkdir -p "$report"
	echo "report=$report" >>"${GITHUB_OUTPUT:?}"
	local status=0 base="$work/base.json" note accepted="" first=""
	note="$(cat "$work/baseline-note" 2>/dev/null || true)"
	# Replay once; each comparison below merges the result, with no replay.
	ctxbench check --config "$config" --shard 1/1 --partial "$report/results.json" >/dev/null 2>"$report/error.txt" || status=$?
	if ((status == 0)) && [[ "$baseline" == artifact:* && ! -f "$base" && -z "${GITHUB_BASE_REF:-}" ]]; then
		first=1 # the first run on a branch records the first baseline
		echo "::notice title=ctxbench check::$(escape "$note: this run records the first baseline")"
	elif ((status == 0)) && [[ "$baseline" == artifact:* && ! -f "$base" ]]; then
		status=2
		printf 'ctxbench: error: %s\nctxbench: hint: %s\n' "$note" "a run of this workflow on $(branch) records it in its report" >"$report/error.txt"
	elif ((status == 0)); then
		[[ -f "$base" ]] || base="$baseline" # missing: ctxbench says so, and how to record it
		ctxbench check --config "$config" --baseline "$base" --merge "$report/results.json" --format github \
			--junit "$report/junit.xml" --summary "$report/summary.md" >"$report/annotations.txt" 2>"$report/error.txt" || status=$?
	fi
	# This run's results as a baseline: what baseline: artifact:NAME reads
	# on the next run, and a file to commit where there is none.
	if [[ -f "$report/results.json" ]]; then
		ctxbench check --config "$config" --baseline "$report/ctxbench.baseline.json" --merge "$report/results.json" \
			--update --accept >/dev/null 2>&1 || true
	fi
	# A pull request that changes the baseline accepts what moved: the
	# check then passes if its baseline does, and says what it accepted.
	if ((status == 1)) && [[ -n "${GITHUB_BASE_REF:-}" && -f "$baseline" ]] && ! cmp -s "$baseline" "$base"; then
		if ctxbench check --config "$config" --baseline "$baseline" --merge "$report/results.json" >"$report/accepted.txt" 2>&1; then
			accepted=1 status=0
			sed -i.bak 's/^::error /::warning /' "$report/annotations.txt" && rm -f "$report/annotations.txt.bak"
		fi
	fi
	cat "$report/annotations.txt" 2>/dev/null || true
	if ((status == 2)); then
		cat "$report/error.txt" >&2
		echo "::error title=ctxbench check::$(escape "$(sed 's/^ctxbench: //' "$report/error.txt")")"
	fi
	comment_body "$first" "$accepted" "$note" >"$report/comment.md"
	cat "$report/comment.md" >>"${GITHUB_STEP_SUMMARY:?}"
	echo "$status" >"$work/status"
	echo "status=$status" >>"$GITHUB_OUTPUT"
}

# escape makes text one workflow-command message.
escape() {
	local s="$1"
	s="${s//'%'/%25}"
	s="${s//$'\r'/%0D}"
	s="${s//$'\n'/%0A}"
	printf '%s' "$s"
}

# The marker that finds the comment again: one per suite.
marker() { echo "<!-- ctxbench check: ${config//[^A-Za-z0-9._\/-]/_} -->"; }

comment_body() {
	local first="$1" accepted="$2" note="$3"
	marker
	if [[ -n "$first" ]]; then
		echo "## ctxbench check: the first baseline, recorded"
	elif [[ ! -f "$report/summary.md" ]]; then
		echo "## ctxbench check could not run"
		echo
		echo '```'
		cat "$report/error.txt"
		echo '```'
	else
		head -n 1 "$report/summary.md"
		echo
		if [[ -n "$accepted" ]]; then
			echo "This pull request changes \`$baseline\` and accepts what moved: against its baseline the check passes."
			echo
		fi
		causes "$report/summary.md"
		if grep -q '^|:--' "$report/summary.md"; then
			echo "<details><summary>Every change</summary>"
			echo
			tail -n +3 "$report/summary.md" | head -c 50000
			echo
			echo "</details>"
		else
			tail -n +3 "$report/summary.md"
		fi
	fi
	echo
	local run="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
	local artefact=""
	[[ "${INPUT_REPORT:-true}" == true ]] && artefact=", its report artefact \`${INPUT_REPORT_NAME:-ctxbench}\`"
	echo "Baseline: ${note:-none}. [The run]($run)$artefact."
}

# causes lists, from the summary's table, why a check fails: the settings
# that changed first, then the metrics that moved, each with the sessions
# it changed in.
causes() {
	awk '
	function add(kind, key, item, sep) {
		if (!((kind, key) in seen)) { seen[kind, key] = ""; keys[kind, ++n[kind]] = key }
		seen[kind, key] = seen[kind, key] (seen[kind, key] == "" ? "" : sep) item
	}
	/^\|:--/ { table = 1; next }
	table && /^\| / {
		line = substr($0, 3, length($0) - 4)
		gsub(/\\\|/, "\001", line)
		split(line, f, / [|] /)
		for (i = 1; i <= 8; i++) { gsub("\001", "\\|", f[i]); gsub(/^ +| +$/, "", f[i]) }
		file = f[1]; sub(/.*\//, "", file)
		if (f[7] == "changed") {
			add("set", "`" f[2] "`: `" f[3] "` " f[8], file, ", ")
		} else if (f[7] ~ /worse|over budget|missing|removed|fails/) {
			what = f[4] " → " f[5] (f[6] != "" ? " (" f[6] ")" : "") (f[8] != "" ? ", " f[8] : "")
			if (f[7] ~ /over budget/ || f[4] f[5] == "") what = f[8]
			add("moved", "`" f[2] "` " f[3] ", " f[7], file (what != "" ? " " what : ""), "; ")
		}
	}
	END {
		if (n["set"] > 0) {
			print "**Settings changed**\n"
			for (i = 1; i <= n["set"]; i++) print "- " keys["set", i] " (" seen["set", keys["set", i]] ")"
			print ""
		}
		if (n["moved"] > 0) {
			print "**Metrics moved**\n"
			for (i = 1; i <= n["moved"] && i <= 10; i++) print "- " keys["moved", i] ": " seen["moved", keys["moved", i]]
			if (n["moved"] > 10) print "- and " n["moved"] - 10 " more in the table"
			print ""
		}
	}' "$1"
}

comment() {
	if [[ "${INPUT_COMMENT:-true}" != true ]]; then
		echo "ctxbench: comment: off"
		return
	fi
	local pr="" body="$report/comment.md" id
	[[ -f "${GITHUB_EVENT_PATH:-}" ]] && pr="$(jq -r '.pull_request.number // empty' "$GITHUB_EVENT_PATH")"
	if [[ -z "$pr" || ! -f "$body" ]]; then
		echo "ctxbench: not a pull request: no comment"
		return
	fi
	local api="repos/$GITHUB_REPOSITORY/issues"
	if id="$(gh api --paginate "$api/$pr/comments" --jq ".[] | select(.body | startswith(\"$(marker)\")) | .id" | head -n 1)" &&
		jq -Rs '{body: .}' "$body" | if [[ -n "$id" ]]; then
			gh api --method PATCH "$api/comments/$id" --input - >/dev/null
		else
			gh api --method POST "$api/$pr/comments" --input - >/dev/null
		fi; then
		echo "ctxbench: the comment on pull request $pr ${id:+($id) }is up to date"
	else
		echo "::warning title=ctxbench check::could not comment on pull request $pr (a fork's token is read-only: the summary is on the job's page)"
	fi
}

verdict() { exit "$(cat "$work/status" 2>/dev/null || echo 2)"; }

case "${1:-}" in
install | baseline | check | comment | verdict) "$1" ;;
*)
	echo "usage: action.sh install|baseline|check|comment|verdict" >&2
	exit 2
	;;
esac
