#!/usr/bin/env bash
# Benchmark on a real history: camunda/zeebe (40,380 commits, 1.09 M objects
# in one pack).  10 hot frames of ../shared/docs/zeebe.md's hot paths, over
# no window, a window of about 200 commits and d48dc33f..HEAD (20,172), each
# timed as CPU time (user + system, children included), median of RUNS
# interleaved rounds (one run of each command a round, so that the machine's
# load weighs on all alike):
#   - `fgbisect hotfiles --frame ×10` (files and methods, the default);
#   - the same with --no-methods;
#   - the git commands that give the same answers: per file `git log -1 --
#     FILE` (and `git log GOOD..HEAD -- FILE` with a window), per method
#     `git log -L :METHOD(:FILE` with `*.java diff=java`, `-n1` without a
#     window, `-n K+1` with one (K: the method's commits in the window,
#     counted once outside the timing: the window and the last change
#     before it, which is what fgbisect answers).
# Without a commit-graph (the clone as it is), then with one written by
# `git commit-graph write --reachable --changed-paths` in a copy whose
# object files are hard links of the clone's (nothing of the clone changes).
#
# usage: contrib/bench-history-real.sh [FGBISECT] [RUNS]
#   FG_ZEEBE_REPO  the camunda/zeebe clone; without it: SKIP, exit 77.
#   RUNS default 3.  BENCH_GRAPH=no|yes|both (default both).
set -euo pipefail

fgbisect=${1:-build/fgbisect}
runs=${2:-3}
[ -x "$fgbisect" ] || { echo "bench-history-real: no binary at $fgbisect" >&2; exit 2; }
fgbisect=$(cd "$(dirname "$fgbisect")" && pwd)/$(basename "$fgbisect")
repo=${FG_ZEEBE_REPO:-}
if [ -z "$repo" ] || ! git -C "$repo" rev-parse -q --verify d48dc33f^{commit} >/dev/null 2>&1; then
	echo "SKIP: FG_ZEEBE_REPO does not name a camunda/zeebe clone with d48dc33f (got '${repo}')" >&2
	exit 77
fi
repo=$(cd "$repo" && pwd)
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
export GIT_CONFIG_NOSYSTEM=1
echo '*.java diff=java' >"$tmpd/attributes"
gitj() { git -c core.attributesFile="$tmpd/attributes" "$@"; }

frames=(
	io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get
	io/camunda/zeebe/db/impl/rocksdb/transaction/ZeebeTransaction.commit
	io/camunda/zeebe/stream/impl/ProcessingStateMachine.processCommand
	io/camunda/zeebe/stream/impl/ReplayStateMachine.replayNextEvent
	io/camunda/zeebe/scheduler/ActorThread.doWork
	io/camunda/zeebe/scheduler/ActorJob.execute
	io/camunda/zeebe/journal/file/SegmentedJournalWriter.append
	io/camunda/zeebe/logstreams/impl/log/Sequencer.tryWrite
	io/atomix/raft/roles/LeaderAppender.appendEntries
	io/camunda/zeebe/broker/exporter/stream/ExporterDirector.exportEvent
)
args=()
for f in "${frames[@]}"; do args+=(--frame "$f"); done
"$fgbisect" hotfiles --repo "$repo" --no-methods --json "${args[@]}" >"$tmpd/files.json"
mapfile -t paths < <(jq -r '.files[].path' "$tmpd/files.json")
[ "${#paths[@]}" = "${#frames[@]}" ] || { echo "bench-history-real: a frame has no file at HEAD" >&2; exit 2; }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
TIMEFORMAT='%U %S'
cpu() { { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f\n", $1 + $2 }'; }

bench() { # repo label good|"": one table row per call
	local r=$1 label=$2 good=$3 ga=() counts=() k
	[ -z "$good" ] || ga=(--good "$good")
	for k in "${!frames[@]}"; do
		if [ -n "$good" ]; then
			counts+=("$(gitj -C "$r" log --format=%H -s -L ":${frames[$k]##*.}(:${paths[$k]}" "$good..HEAD" | grep -c . || true)")
		else
			counts+=(0)
		fi
	done
	git_same() {
		for k in "${!frames[@]}"; do
			git -C "$r" log -1 --format=%H -- "${paths[$k]}"
			[ -z "$good" ] || git -C "$r" log --format=%H "$good..HEAD" -- "${paths[$k]}"
			gitj -C "$r" log --format=%H -s -n $((counts[k] + 1)) -L ":${frames[$k]##*.}(:${paths[$k]}" HEAD
		done
	}
	fg_methods() { "$fgbisect" hotfiles --repo "$r" "${ga[@]}" --json "${args[@]}"; }
	fg_files() { "$fgbisect" hotfiles --repo "$r" "${ga[@]}" --no-methods --json "${args[@]}"; }
	: >"$tmpd/m" && : >"$tmpd/f" && : >"$tmpd/g"
	for ((i = 0; i < runs; i++)); do
		cpu fg_methods >>"$tmpd/m"
		cpu fg_files >>"$tmpd/f"
		cpu git_same >>"$tmpd/g"
	done
	local m f g
	m=$(median <"$tmpd/m") f=$(median <"$tmpd/f") g=$(median <"$tmpd/g")
	printf '| %s | %s | %s | %s | %.2f× | %.2f× |\n' "$label" "$m" "$f" "$g" \
		"$(echo "$m / $f" | bc -l)" "$(echo "$m / $g" | bc -l)"
}

g200=$(git -C "$repo" rev-list -n 201 HEAD | tail -1)
n200=$(git -C "$repo" rev-list --count "$g200..HEAD")
echo "camunda/zeebe at $(git -C "$repo" rev-parse --short=12 HEAD), 10 frames, CPU seconds, median of $runs"
echo "| call | hotfiles (methods) | --no-methods | git, same answers | methods / files | hotfiles / git |"
echo "|---|---|---|---|---|---|"
graphs=${BENCH_GRAPH:-both}
if [ "$graphs" != yes ]; then
	bench "$repo" "no window, no commit-graph" ""
	bench "$repo" "$n200 commits, no commit-graph" "$g200"
	bench "$repo" "20,172 commits, no commit-graph" d48dc33f
fi
if [ "$graphs" != no ]; then
	copy=$tmpd/zeebe
	cp -al "$repo" "$copy" 2>/dev/null || { echo "bench-history-real: cannot hard-link a copy of $repo" >&2; exit 2; }
	git -C "$copy" commit-graph write --reachable --changed-paths 2>/dev/null
	bench "$copy" "no window, commit-graph" ""
	bench "$copy" "$n200 commits, commit-graph" "$g200"
	bench "$copy" "20,172 commits, commit-graph" d48dc33f
fi
