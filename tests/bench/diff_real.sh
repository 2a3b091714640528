#!/bin/bash
# The diff benchmark on the real shared profiles (tests/bench/diff.sh runs it
# after the generated pairs): what each rule lists between healthy profiles,
# and where it ranks TransactionalColumnFamily between a healthy and a
# regressed one.  new: `diff` as it is (run-to-run noise, ranked by |delta|
# less noise); last: --run-noise 0, ranked by z; old: |delta| > 1.5 points
# and > the spread among the base profiles, ranked by delta.  Thread frames
# ([name], only in the -t daily profiles) are counted apart: between a -t
# profile and one without they are structure, not change.  Prints figures;
# not a test.
#
# usage: tests/bench/diff_real.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
S=${FG_SHARED_FIXTURES:-$src/../shared/fixtures}
if [[ ! -d "$S/daily" ]]; then
	echo "SKIP: diff_real.sh: the shared fixtures are not at '$S'" >&2
	exit 77
fi
python3 - "$build/fgbisect" "$S" <<'PY'
import json, subprocess, sys
fg, S = sys.argv[1], sys.argv[2]
P = "TransactionalColumnFamily"
def path(n):
    return "%s/%s.collapsed" % (S, n)
def diff(bases, cands, *opts):
    args = [fg, "diff", "--json", *opts] + [path(b) for b in bases] + ["--"] + [path(c) for c in cands]
    return json.loads(subprocess.run(args, capture_output=True, text=True).stdout)
def shares(n):
    j = json.loads(subprocess.check_output([fg, "top", "-n", "0", "--json", path(n)]))
    return {e["frame"]: e["share"] for e in j["frames"]}
def rules(bases, cands):
    """Per rule: (entries in rank order, listed?) over every grown or shrunk frame of at least 0.25 points."""
    new = diff(bases, cands, "--fdr", "100")
    last = diff(bases, cands, "--fdr", "100", "--run-noise", "0")
    per = [shares(b) for b in bases]
    def spread(f):
        v = [s.get(f, 0.0) for s in per]
        return max(v) - min(v)
    out = {}
    out["new"] = [(e, e["q"] <= 0.05) for e in new["grew"]], [(e, e["q"] <= 0.05) for e in new["shrank"]]
    out["last"] = [(e, e["q"] <= 0.05) for e in sorted(last["grew"], key=lambda e: -e["z"])], \
                  [(e, e["q"] <= 0.05) for e in last["shrank"]]
    old = lambda e: abs(e["delta"]) > 1.5 and abs(e["delta"]) > spread(e["frame"])
    out["old"] = [(e, old(e)) for e in sorted(last["grew"], key=lambda e: -e["delta"])], \
                 [(e, old(e)) for e in last["shrank"]]
    return out
def listed(r):
    code = sum(1 for side in r for e, l in side if l and not e["frame"].startswith("["))
    thread = sum(1 for side in r for e, l in side if l and e["frame"].startswith("["))
    return "%3d (+%d thread)" % (code, thread)
def show(label, bases, cands):
    return label, rules(bases, cands)
d = "daily/day01-broker-%d-grpc"
print("healthy against healthy: frames listed (code frames, + thread frames)")
print("  %-58s %-16s %-16s %-16s" % ("pair", "new", "last", "old"))
healthy = [
    ("day 1 broker-0 -> broker-1 (nodes of one run)", [d % 0], [d % 1]),
    ("day 1 broker-0 -> broker-2", [d % 0], [d % 2]),
    ("day 1 broker-1 -> broker-2", [d % 1], [d % 2]),
    ("day 1 broker-0,1 -> broker-2", [d % 0, d % 1], [d % 2]),
    ("day 1 broker-1,2 -> broker-0", [d % 1, d % 2], [d % 0]),
    ("day 1 broker-0,2 -> broker-1", [d % 0, d % 2], [d % 1]),
    ("day 1 broker-0 -> v4.5 healthy (another run, same profiler)", [d % 0], ["versions/v4.5-healthy"]),
    ("v4.5 healthy -> its JFR capture (another run)", ["versions/v4.5-healthy"], ["formats/jfr-v4.5-healthy"]),
    ("v2.10 healthy -> v3.0 healthy (another profiler)", ["versions/v2.10-healthy"], ["versions/v3.0-healthy"]),
    ("v3.0 healthy -> v4.5 healthy (another profiler)", ["versions/v3.0-healthy"], ["versions/v4.5-healthy"]),
]
for label, b, c in healthy:
    r = rules(b, c)
    print("  %-58s %-16s %-16s %-16s" % (label, listed(r["new"]), listed(r["last"]), listed(r["old"])))
print("\nhealthy against regressed: the first %s frame's rank among the grown frames, listed or not (*)" % P)
print("  %-58s %-16s %-16s %-16s" % ("pair", "new", "last", "old"))
regressed = [
    ("day 1 brokers 0-2 -> day 10 broker-0", [d % i for i in range(3)], ["daily/day10-broker-0-grpc"]),
    ("day 1 broker-0 -> day 10 broker-0 (REST)", ["daily/day01-broker-0-rest"], ["daily/day10-broker-0-rest"]),
] + [("%s healthy -> regressed" % v, ["versions/%s-healthy" % v], ["versions/%s-regressed" % v])
     for v in ("v2.10", "v3.0", "v4.5")]
for label, b, c in regressed:
    r = rules(b, c)
    cells = []
    for rule in ("new", "last", "old"):
        grew = r[rule][0]
        k = next((i for i, (e, l) in enumerate(grew) if P in e["frame"]), None)
        cells.append("-" if k is None else "%d%s (%+.2f)" % (k + 1, "*" if grew[k][1] else "", grew[k][0]["delta"]))
    print("  %-58s %-16s %-16s %-16s" % (label, *cells))
print("  (*: listed; the delta in points)")
PY
