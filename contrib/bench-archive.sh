#!/bin/bash
# Profiles inside archives (issue #31): what reading a profile from a zip or
# a tar.gz costs against the same profile as it is.
#
#   contrib/bench-archive.sh [BUILD_DIR] [RUNS]     (default build, 9 runs)
#
# Large: share --frame com/sun/tools/javac/comp/Attr. over the large fixture
# (1,173,094 samples) as served (.html.gz), plain, in a deflated zip, in a
# stored zip holding the .html.gz, and in a .tar.gz.  Small: the same over a
# 55 KB project profile plain and in a zip (the archive reader lives in the
# lazily loaded module: this is its start-up cost).  Prints per input the
# median wall and CPU (user + system) time and peak RSS over RUNS interleaved
# rounds, and the ratios to the first input of its group.  Needs
# ../shared/fixtures/large and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-9}
bin=$build/fgbisect
html=${FG_SHARED_FIXTURES:-$PWD/../shared/fixtures}/large/javac-large.html.gz
[[ -f $html ]] || { echo "no large fixture at $html" >&2; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gunzip -c "$html" >"$dir/large.html"
cp "$html" "$dir/large.html.gz"
gunzip -c fixtures/zeebe-regressed.collapsed.gz >"$dir/small.collapsed"
python3 - "$dir" <<'PY'
import sys, tarfile, zipfile
d = sys.argv[1]
with zipfile.ZipFile(d + "/large.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.write(d + "/large.html", "large.html")
with zipfile.ZipFile(d + "/large-gz.zip", "w", zipfile.ZIP_STORED) as z:
    z.write(d + "/large.html.gz", "large.html.gz")
with tarfile.open(d + "/large.tar.gz", "w:gz") as t:
    t.add(d + "/large.html", "large.html")
with zipfile.ZipFile(d + "/small.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.write(d + "/small.collapsed", "small.collapsed")
PY
frame=com/sun/tools/javac/comp/Attr.
large=("$dir/large.html.gz" "$dir/large.html" "$dir/large.zip" "$dir/large-gz.zip" "$dir/large.tar.gz")
small=("$dir/small.collapsed" "$dir/small.zip")
for f in "${large[@]}"; do
	"$bin" share --json --frame "$frame" "$f" |
		python3 -c 'import json,sys; p=json.load(sys.stdin)["profiles"][0]; sys.exit(0 if (p["total"], p["matches"][0]["samples"]) == (1173094, 543093) else 1)' ||
		{ echo "$f: not the large fixture's samples" >&2; exit 1; }
done
[[ $("$bin" share -f Transactional "${small[0]}" | tail -1) == "$("$bin" share -f Transactional "${small[1]}" | tail -1)" ]] ||
	{ echo "the small zip reads differently" >&2; exit 1; }
inputs=("${large[@]}" "${small[@]}")
times=$dir/times
for _ in $(seq "$runs"); do
	for i in "${!inputs[@]}"; do
		echo "$i $(/usr/bin/time -f "%e %U %S %M" "$bin" share -j 1 --frame "$frame" "${inputs[$i]}" 2>&1 >/dev/null | tail -1)"
	done
done >"$times"
python3 - "$times" "${#large[@]}" "${inputs[@]}" <<'PY'
import os, statistics, sys
rows, nlarge, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
t = {}
for line in open(rows):
    i, wall, user, system, rss = line.split()
    t.setdefault(int(i), []).append((float(wall), float(user) + float(system), int(rss)))
print("%-16s %12s %9s %9s %10s %8s %8s" % ("input", "bytes", "wall s", "cpu s", "peak KB", "wall/1st", "cpu/1st"))
for i, name in enumerate(names):
    med = [statistics.median(x[k] for x in t[i]) for k in range(3)]
    base = 0 if i < nlarge else nlarge
    ref = [statistics.median(x[k] for x in t[base]) for k in range(2)]
    print("%-16s %12d %9.3f %9.3f %10d %8.2f %8.2f" % (os.path.basename(name), os.path.getsize(name), med[0], med[1],
          med[2], med[0] / ref[0] if ref[0] else 0, med[1] / ref[1] if ref[1] else 0))
PY
