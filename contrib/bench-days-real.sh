#!/usr/bin/env bash
# Benchmark: what `days --repo` adds to the day search on a real history.
# A series of 60 daily runs mapped to real camunda/zeebe commits (the last
# commit of each of the 60 latest commit days of its first-parent history),
# 3 node profiles a run resampled from ../shared's real daily grpc profiles
# (build/gen_days, tests/gen/resample.h): TransactionalColumnFamily at 2.5 %
# of the samples before day 37, 5.0 % from it, threshold 3.75.  Timed as CPU
# time (user + system, children included) and wall time, medians of RUNS
# interleaved rounds (one run of each command a round):
#   - `days --json` (the search alone);
#   - `days --json --repo ZEEBE` (the search, the window's commits, the hot
#     files of the growers with their method history, the decision);
# without a commit-graph (the clone as it is), then with one written by
# `git commit-graph write --reachable --changed-paths` in a copy whose object
# files are hard links of the clone's.  The answer is checked: the first slow
# day is day 37 on its commit.  BASE=OTHER_FGBISECT adds its rows (the same
# rounds) for a before/after.
#
# usage: contrib/bench-days-real.sh [FGBISECT] [RUNS]
#   FG_ZEEBE_REPO  the camunda/zeebe clone; without it: SKIP, exit 77.
#   RUNS default 5.  BENCH_GRAPH=no|yes|both (default both).
set -euo pipefail

fgbisect=${1:-build/fgbisect}
runs=${2:-5}
[ -x "$fgbisect" ] || { echo "bench-days-real: no binary at $fgbisect" >&2; exit 2; }
fgbisect=$(cd "$(dirname "$fgbisect")" && pwd)/$(basename "$fgbisect")
gen=$(dirname "$fgbisect")/gen_days
[ -x "$gen" ] || { echo "bench-days-real: no gen_days beside $fgbisect (cmake --build build --target gen_days)" >&2; exit 2; }
base=${BASE:-}
[ -z "$base" ] || base=$(cd "$(dirname "$base")" && pwd)/$(basename "$base")
repo=${FG_ZEEBE_REPO:-}
if [ -z "$repo" ] || ! git -C "$repo" rev-parse -q --verify d48dc33f^{commit} >/dev/null 2>&1; then
	echo "SKIP: FG_ZEEBE_REPO does not name a camunda/zeebe clone with d48dc33f (got '${repo}')" >&2
	exit 77
fi
repo=$(cd "$repo" && pwd)
daily=$(cd "$(dirname "$0")/.." && pwd)/../shared/fixtures/daily
if [ ! -f "$daily/day01-broker-0-grpc.collapsed" ]; then
	echo "SKIP: no ../shared/fixtures/daily" >&2
	exit 77
fi
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
export GIT_CONFIG_NOSYSTEM=1 XDG_CACHE_HOME=$tmpd/cache

K=37
git -C "$repo" log --first-parent --format='%cd %H' --date=short HEAD | awk '!seen[$1]++ && n++ < 60' | tac >"$tmpd/days"
[ "$(wc -l <"$tmpd/days")" = 60 ] || { echo "bench-days-real: fewer than 60 commit days" >&2; exit 2; }
mkdir "$tmpd/runs"
"$gen" "$tmpd/runs" TransactionalColumnFamily 2.5 2.5 "$K" 29 \
	"$daily"/day01-broker-[012]-grpc.collapsed "$daily"/day10-broker-0-grpc.collapsed <"$tmpd/days"
want=$(sed -n "${K}p" "$tmpd/days" | cut -d' ' -f2)
prev=$(sed -n "$((K - 1))p" "$tmpd/days" | cut -d' ' -f2)

days() { # BINARY [--repo DIR]
	local bin=$1
	shift
	"$bin" days --runs "$tmpd/runs/runs.txt" --frame TransactionalColumnFamily --threshold 3.75 --json "$@"
}
out=$(days "$fgbisect" --repo "$repo" 2>/dev/null)
got=$(jq -r .first_slow.commit <<<"$out")
[ "$got" = "$want" ] || { echo "bench-days-real: first slow $got, not day $K's $want" >&2; exit 1; }
echo "camunda/zeebe at $(git -C "$repo" rev-parse --short=12 HEAD): 60 days $(head -1 "$tmpd/days" | cut -c1-10)..$(tail -1 "$tmpd/days" | cut -c1-10), first slow day $K"
echo "runs tested $(jq '.tested | length' <<<"$out"), window $(git -C "$repo" rev-list --count "$prev..$want") commits, hot files $(jq ".hotfiles | length" <<<"$out")"
echo "CPU and wall seconds, medians of $runs interleaved rounds"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
TIMEFORMAT='%U %S %R'
timed() { # FILE COMMAND...: appends "cpu wall"
	local f=$1
	shift
	{ time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' >>"$f"
}

bench() { # repo label
	local r=$1 label=$2 bins=("$fgbisect") b i
	[ -z "$base" ] || bins+=("$base")
	rm -f "$tmpd"/t.*
	for ((i = 0; i < runs; i++)); do
		for b in "${!bins[@]}"; do
			timed "$tmpd/t.$b.search" days "${bins[b]}"
			timed "$tmpd/t.$b.repo" days "${bins[b]}" --repo "$r"
		done
	done
	for b in "${!bins[@]}"; do
		local sc sw rc rw
		sc=$(cut -d' ' -f1 "$tmpd/t.$b.search" | median) sw=$(cut -d' ' -f2 "$tmpd/t.$b.search" | median)
		rc=$(cut -d' ' -f1 "$tmpd/t.$b.repo" | median) rw=$(cut -d' ' -f2 "$tmpd/t.$b.repo" | median)
		printf '| %s | %s | %s / %s | %s / %s | %.3f / %.3f |\n' "$label" "$([ "$b" = 0 ] && echo new || echo BASE)" \
			"$sc" "$sw" "$rc" "$rw" "$(echo "$rc - $sc" | bc -l)" "$(echo "$rw - $sw" | bc -l)"
	done
}

echo "| repository | binary | days: CPU / wall | days --repo: CPU / wall | added: CPU / wall |"
echo "|---|---|---|---|---|"
graphs=${BENCH_GRAPH:-both}
[ "$graphs" = yes ] || bench "$repo" "no commit-graph"
if [ "$graphs" != no ]; then
	copy=$tmpd/zeebe
	cp -al "$repo" "$copy" 2>/dev/null || { echo "bench-days-real: cannot hard-link a copy of $repo" >&2; exit 2; }
	git -C "$copy" commit-graph write --reachable --changed-paths 2>/dev/null
	bench "$copy" "commit-graph"
fi
