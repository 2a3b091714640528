#!/bin/bash
# The formats benchmark (issue #10): share over the same 1,173,094 samples
# as async-profiler HTML (the large fixture), as JFR and as pprof, written
# from that profile's collapsed stacks by the project's own test writers
# (tests/tools/write_jfr.py: 8 chunks, as a long recording rotates them;
# tests/tools/write_pprof.py: gzip'd, as jfrconv and Go write it).
#
#   contrib/bench-formats.sh [BUILD_DIR] [RUNS]     (default build, 9 runs)
#
# Prints, per format, the input size, the median wall and CPU time (user +
# system: the system time of reading and faulting in a 175 MB recording is
# part of the cost) of `share --frame com/sun/tools/javac/comp/Attr.` over
# RUNS interleaved rounds, its peak RSS (median, as /usr/bin/time -f %M
# reports it), and the ratios to HTML.  Needs
# ../shared/fixtures/large and python3; writing the inputs takes minutes
# (the pprof 3.5 min, niced on a loaded 2-core machine; kept in
# $FG_BENCH_DIR, default /tmp/fgbisect-bench-formats, for reruns).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-9}
bin=$build/fgbisect
html=${FG_SHARED_FIXTURES:-$PWD/../shared/fixtures}/large/javac-large.html.gz
dir=${FG_BENCH_DIR:-/tmp/fgbisect-bench-formats}
[[ -f $html ]] || { echo "no large fixture at $html" >&2; exit 77; }
mkdir -p "$dir"
[[ -s $dir/large.collapsed.gz ]] || "$bin" collapse "$html" | gzip -1 >"$dir/large.collapsed.gz"
[[ -s $dir/large.jfr ]] || python3 tests/tools/write_jfr.py --chunks 8 --seconds 75 "$dir/large.collapsed.gz" "$dir/large.jfr"
[[ -s $dir/large.pb.gz ]] || python3 tests/tools/write_pprof.py "$dir/large.collapsed.gz" "$dir/large.pb.gz"

# Interleaved rounds (html, jfr, pprof, html, ...): a load that changes
# during the run weighs on every format alike.
inputs=("$html" "$dir/large.jfr" "$dir/large.pb.gz")
check() { # FILE: the ground truth of the large fixture
	"$bin" share --json --frame com/sun/tools/javac/comp/Attr. "$1" |
		python3 -c 'import json,sys; p=json.load(sys.stdin)["profiles"][0]; sys.exit(0 if (p["total"], p["matches"][0]["samples"]) == (1173094, 543093) else 1)' ||
		{ echo "$1: not the large fixture's samples" >&2; exit 1; }
}
for f in "${inputs[@]}"; do check "$f"; done
times=$(mktemp)
trap 'rm -f "$times"' EXIT
for _ in $(seq "$runs"); do
	for i in "${!inputs[@]}"; do
		echo "$i $(/usr/bin/time -f "%e %U %S %M" "$bin" share --frame com/sun/tools/javac/comp/Attr. "${inputs[$i]}" 2>&1 >/dev/null | tail -1)"
	done
done >"$times"
printf "%-8s %12s %9s %9s %10s %8s %8s\n" format "input bytes" "wall s" "cpu s" "peak KB" "wall/H" "cpu/H"
for i in "${!inputs[@]}"; do
	f=${inputs[$i]}
	case $f in *.html.gz) name=html ;; *.jfr) name=jfr ;; *) name=pprof ;; esac
	size=$( [[ $f == *.gz ]] && zcat "$f" | wc -c || wc -c <"$f")
	python3 - "$times" "$i" "$name" "$size" <<'PY'
import statistics, sys
times, i, name, size = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = {}
for line in open(times):
    k, *v = line.split()
    w, u, s, m = map(float, v)
    rows.setdefault(k, []).append([w, u + s, m])
med = {k: [statistics.median(c) for c in zip(*r)] for k, r in rows.items()}
w, u, m = med[i]
hw, hu, _ = med["0"]
print("%-8s %12s %9.3f %9.3f %10d %8.2f %8.2f" % (name, size, w, u, m, w / hw, u / max(hu, 1e-3)))
PY
done
echo "(sizes decompressed; load: $(cut -d' ' -f1-3 /proc/loadavg))"
