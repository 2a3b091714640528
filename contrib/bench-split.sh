#!/bin/bash
# Two builds' two-thread readers against each other (base/handoff.h: the
# split HTML page, the JFR chunk pipeline): `share --frame
# com/sun/tools/javac/comp/Attr.` with the default threads over the large
# fixture's page (plain: only a plain page of known size is split) and over
# its samples as an 8-chunk JFR recording (tests/tools/write_jfr.py), in
# interleaved rounds (A, B, A, B ...: a load that changes weighs on both).
#
#   contrib/bench-split.sh BIN_A BIN_B [RUNS]      (default 9 runs)
#
# Prints per input the median wall and CPU time (user + system) of each,
# and B/A; fails when the two answer differently.  Needs
# ../shared/fixtures/large; the inputs are kept in $FG_BENCH_DIR (default
# /tmp/fgbisect-bench-formats, shared with bench-formats.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?BIN_A} b=${2:?BIN_B} runs=${3:-9}
large=${FG_SHARED_FIXTURES:-$PWD/../shared/fixtures}/large/javac-large.html.gz
dir=${FG_BENCH_DIR:-/tmp/fgbisect-bench-formats}
[[ -f $large ]] || { echo "SKIP: no large fixture at $large" >&2; exit 77; }
mkdir -p "$dir"
[[ -s $dir/large.html ]] || zcat "$large" >"$dir/large.html"
[[ -s $dir/large.collapsed.gz ]] || "$a" collapse "$large" | gzip -1 >"$dir/large.collapsed.gz"
[[ -s $dir/large.jfr ]] || python3 tests/tools/write_jfr.py --chunks 8 --seconds 75 "$dir/large.collapsed.gz" "$dir/large.jfr"
inputs=("$dir/large.html" "$dir/large.jfr")
cmd=(share --frame com/sun/tools/javac/comp/Attr.)
for f in "${inputs[@]}"; do
	cmp <("$a" "${cmd[@]}" "$f" 2>&1) <("$b" "${cmd[@]}" "$f" 2>&1) >/dev/null ||
		{ echo "$f: the two builds answer differently" >&2; exit 1; }
done
# Wall and CPU time (user + system, all threads) of one run, to the
# microsecond (/usr/bin/time's 10 ms are a seventh of the page's CPU time).
timed='
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.monotonic() - t, r.ru_utime, r.ru_stime)'
times=$(mktemp)
trap 'rm -f "$times"' EXIT
for _ in $(seq "$runs"); do
	for i in "${!inputs[@]}"; do
		for bin in a b; do
			exe=$a
			[[ $bin == b ]] && exe=$b
			echo "$i $bin $(python3 -c "$timed" "$exe" "${cmd[@]}" "${inputs[$i]}")"
		done
	done
done >"$times"
echo "load $(cut -d' ' -f1 /proc/loadavg), $runs rounds; A=$a B=$b"
echo "(B/A: the median of the rounds' ratios, each A run beside its B run)"
printf "%-10s %10s %10s %10s %10s %8s %8s\n" input "A wall s" "B wall s" "A cpu s" "B cpu s" "B/A wall" "B/A cpu"
for i in "${!inputs[@]}"; do
	awk -v i="$i" -v name="$(basename "${inputs[$i]}")" '
		function median(v, n,   k, j, t) { for (k = 1; k <= n; k++) for (j = k + 1; j <= n; j++) if (v[j] < v[k]) { t = v[k]; v[k] = v[j]; v[j] = t }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
		$1 == i && $2 == "a" { aw[++na] = $3; ac[na] = $4 + $5 }
		$1 == i && $2 == "b" { bw[++nb] = $3; bc[nb] = $4 + $5; rw[nb] = $3 / aw[nb]; rc[nb] = ($4 + $5) / ac[nb] }
		END { printf "%-10s %10.4f %10.4f %10.4f %10.4f %8.3f %8.3f\n", name, median(aw, na), median(bw, nb),
			median(ac, na), median(bc, nb), median(rw, nb), median(rc, nb) }' "$times"
done
