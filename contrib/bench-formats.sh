#!/bin/bash
# The formats benchmark (issue #10): share over the same 1,173,094 samples
# as async-profiler HTML (the large fixture), as JFR and as pprof, written
# from that profile's collapsed stacks by the project's own test writers
# (tests/tools/write_jfr.py: 8 chunks, as a long recording rotates them;
# tests/tools/write_pprof.py: gzip'd, as jfrconv and Go write it).
#
#   contrib/bench-formats.sh [BUILD_DIR] [RUNS]     (default build, 9 runs)
#
# Prints, per format, the input size, the median wall and user time of
# `share --frame com/sun/tools/javac/comp/Attr.` and its peak RSS (as
# /usr/bin/time -f %M reports it), and the ratios to HTML.  Needs
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

measure() { # FILE -> "wall user rss" medians
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %M" "$bin" share --frame com/sun/tools/javac/comp/Attr. "$1" 2>&1 >/dev/null | tail -1
	done | python3 -c '
import statistics, sys
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print(" ".join("%g" % statistics.median(c) for c in zip(*rows)))'
}
check() { # FILE: the ground truth of the large fixture
	"$bin" share --json --frame com/sun/tools/javac/comp/Attr. "$1" |
		python3 -c 'import json,sys; p=json.load(sys.stdin)["profiles"][0]; sys.exit(0 if (p["total"], p["matches"][0]["samples"]) == (1173094, 543093) else 1)' ||
		{ echo "$1: not the large fixture's samples" >&2; exit 1; }
}
printf "%-8s %12s %9s %9s %10s %8s %8s\n" format "input bytes" "wall s" "user s" "peak KB" "wall/H" "user/H"
read -r hw hu hm < <(measure "$html")
for f in "$html" "$dir/large.jfr" "$dir/large.pb.gz"; do
	check "$f"
	read -r w u m < <([[ $f == "$html" ]] && echo "$hw $hu $hm" || measure "$f")
	case $f in *.html.gz) name=html ;; *.jfr) name=jfr ;; *) name=pprof ;; esac
	size=$( [[ $f == *.gz ]] && zcat "$f" | wc -c || wc -c <"$f")
	python3 -c 'import sys; n,s,w,u,m,hw,hu=sys.argv[1:]; print("%-8s %12s %9.3f %9.3f %10s %8.2f %8.2f" % (n, s, float(w), float(u), m, float(w)/float(hw), float(u)/max(float(hu),1e-3)))' \
		"$name" "$size" "$w" "$u" "$m" "$hw" "$hu"
done
echo "(sizes decompressed; load: $(cut -d' ' -f1-3 /proc/loadavg))"
