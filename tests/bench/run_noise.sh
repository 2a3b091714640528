#!/bin/bash
# The run-to-run noise of diff's test (docs/diff.md, FG_DIFF_RUN_NOISE),
# measured: the shares of every frame among the healthy real profiles of the
# shared fixtures, each a separate JVM run of the same workload (day 1's
# three gRPC brokers, the three profiler versions' healthy captures, the
# JFR capture), against what sampling alone would spread them by.  Per frame
# the excess variance (observed minus the mean of p(1-p)/N_i) over
# (p(1-p))^2: the model's run-to-run standard deviation is c p (1 - p), a
# relative variation c (of the odds); its median over the frames (robust to
# the frames that the profiler versions attribute differently) is c^2.  By
# share the same c should come out if the model holds.  Then the three
# day-1 brokers alone (nodes of one day: what node spread shows).  Prints
# figures; not a test.
#
# usage: tests/bench/run_noise.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
shared=${FG_SHARED_FIXTURES:-$src/../shared/fixtures}
if [[ ! -d "$shared/daily" ]]; then
	echo "SKIP: run_noise.sh: the shared fixtures are not at '$shared' (expected ../shared/fixtures beside the checkout)" >&2
	exit 77
fi
healthy=("$shared"/daily/day01-broker-{0,1,2}-grpc.collapsed "$shared"/versions/v{2.10,3.0,4.5}-healthy.collapsed
	 "$shared/formats/jfr-v4.5-healthy.collapsed")
python3 - "$build/fgbisect" "${healthy[@]}" <<'PY'
import json, math, statistics as st, subprocess, sys
fg, files = sys.argv[1], sys.argv[2:]
every = []
for f in files:
    j = json.loads(subprocess.check_output([fg, "top", "-n", "0", "--json", f]))
    every.append((j["total"], {e["frame"]: e["samples"] for e in j["frames"]}))
def table(title, runs):
  rows = []
  for n in set().union(*(r[1] for r in runs)):
      if n.startswith("["):  # thread frames: only the -t profiles have them
          continue
      p = sum(r[1].get(n, 0) for r in runs) / sum(r[0] for r in runs)
      if not 0.002 <= p <= 0.98:
          continue
      sh = [r[1].get(n, 0) / r[0] for r in runs]
      rows.append((p, st.variance(sh), st.mean(p * (1 - p) / r[0] for r in runs)))
  print(title + ": %d runs, %d frames between 0.2%% and 98%%\n" % (len(runs), len(rows)))
  print("%-12s %6s %10s %10s %14s %12s" % ("share", "frames", "observed", "sampling", "median excess", "c"))
  print("%-12s %6s %10s %10s %14s %12s" % ("", "", "sd", "sd", "/ (p(1-p))^2", ""))
  def line(label, b):
      ratio = st.median((o - s) / (p * (1 - p)) ** 2 for p, o, s in b)
      print("%-12s %6d %8.3fpp %8.3fpp %14.3g %10.1f%%" % (label, len(b), 100 * math.sqrt(st.mean(o for _, o, _ in b)),
            100 * math.sqrt(st.mean(s for _, _, s in b)), ratio, 100 * math.sqrt(max(ratio, 0))))
  for lo, hi in [(0.002, 0.01), (0.01, 0.03), (0.03, 0.1), (0.1, 0.98)]:
      b = [r for r in rows if lo <= r[0] < hi]
      if b:
          line("%.1f-%.0f%%" % (100 * lo, 100 * hi), b)
  line("all", rows)
table("healthy runs", every)
print()
table("day 1's brokers alone", every[:3])
PY
