#!/usr/bin/env python3
"""Whole-process benchmarks of fgbisect on the large fixture: medians of N runs
(default 9), peak RSS of each run (wait4), and ratios to `wc -l` over the same
uncompressed bytes.  Prints figures; judges nothing.

usage: contrib/bench.py [--runs N] [--fgbisect PATH] [--large FILE.html.gz]
"""
import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=9)
ap.add_argument("--fgbisect", default=os.path.join(here, "..", "build", "fgbisect"))
ap.add_argument("--large", default=os.path.join(here, "..", "..", "shared", "fixtures", "large", "javac-large.html.gz"))
args = ap.parse_args()

if not os.path.exists(args.large):
    sys.exit(f"SKIP: no large fixture at {args.large}")


TIME = "/usr/bin/time"  # GNU time: its %M is the figure the design's targets use


def run(cmd):
    """Wall seconds and peak RSS (KiB, as /usr/bin/time -f %M reports it) of
    one run; output discarded.  Wall time is taken around the command alone
    when GNU time is missing (and RSS is then not reported)."""
    with tempfile.NamedTemporaryFile("r") as rss, open(os.devnull, "wb") as null:
        wrapped = [TIME, "-f", "%M", "-o", rss.name] + cmd if os.path.exists(TIME) else cmd
        start = time.perf_counter()
        status = subprocess.call(wrapped, stdout=null, stderr=null)
        wall = time.perf_counter() - start
        if status != 0:
            sys.exit(f"failed: {' '.join(cmd)}")
        text = rss.read().strip()
    return wall, int(text) if text else 0


def bench(name, cmd):
    run(cmd)  # warm-up: page cache
    runs = [run(cmd) for _ in range(args.runs)]
    wall = statistics.median(r[0] for r in runs)
    rss = max(r[1] for r in runs)
    return name, wall, rss


with tempfile.TemporaryDirectory() as tmp:
    plain = os.path.join(tmp, "large.html")
    with gzip.open(args.large, "rb") as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    size = os.path.getsize(plain)
    fg = args.fgbisect
    rows = [
        bench("wc -l (uncompressed)", ["wc", "-l", plain]),
        bench("zcat (inflate only)", ["sh", "-c", f"zcat '{args.large}' >/dev/null"]),
        bench("share (html)", [fg, "share", "--frame", "com/sun/tools/javac/comp/Attr.", plain]),
        bench("share (html.gz)", [fg, "share", "--frame", "com/sun/tools/javac/comp/Attr.", args.large]),
        bench("top (html)", [fg, "top", plain]),
        bench("collapse (html)", [fg, "collapse", plain]),
    ]
    base = rows[0][1]
    print(f"large fixture: {size:,} bytes uncompressed; medians of {args.runs} runs")
    print(f"{'command':24} {'wall s':>8} {'x wc -l':>8} {'peak RSS MiB':>13} {'RSS / input':>12}")
    for name, wall, rss in rows:
        print(f"{name:24} {wall:8.3f} {wall / base:8.1f} {rss / 1024:13.1f} {rss * 1024 / size:12.3f}")
