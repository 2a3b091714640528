#!/bin/bash
# The suspect benchmark: on seeded day series resampled from the shared real
# daily profiles (tests/bench/bench_suspect.c: 3 nodes x 5,000 samples a run,
# 0.2 pp day noise, 0.1 pp node noise, TransactionalColumnFamily planted
# +0.5-1.5 pp from one day on), `fgbisect days --repo` over a repository made
# here (one commit a day changes TransactionalColumnFamily.ensureInOpenTransaction
# on the planted day; two a day change methods of other classes on the same
# stacks: ProcessingStateMachine, ElasticsearchExporter, LeaderRole,
# ActorThread), --threshold halfway (or auto, with --auto): how often it names the planted commit
# as the suspect, and wrong commits.  The new rule (explain/explain.h: the
# pattern's own frames beside the growers, beyond noise) beside the old one
# (the growers only: what `hotfiles BASE... -- CAND...` still looks up, as
# `days --repo` did).  Prints figures; not a test.
#
# usage: tests/bench/suspect.sh [BUILD_DIR] [--series N] [--seed S] [--days D] [--auto yes] [--aa yes]
#   --aa yes: A/A series (no planted change; the planted commit still
#   changes the method): every window claimed and every suspect named is false.
#   FGBISECT=BINARY judges with another fgbisect (an older build: the figures before a change).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
[[ $# -gt 0 ]] && shift
series=200 seed=1 days=8 auto=no aa=no
while [[ $# -gt 1 ]]; do
	case $1 in
	--series) series=$2 ;;
	--seed) seed=$2 ;;
	--days) days=$2 ;;
	--auto) auto=$2 ;;
	--aa) aa=$2 ;;
	*) echo "usage: suspect.sh [BUILD_DIR] [--series N] [--seed S] [--days D] [--auto yes] [--aa yes]" >&2; exit 2 ;;
	esac
	shift 2
done
shared=${FG_SHARED_FIXTURES:-$src/../shared/fixtures}
if [[ ! -d "$shared/daily" ]]; then
	echo "SKIP: suspect.sh: the shared fixtures are not at '$shared' (expected ../shared/fixtures beside the checkout)" >&2
	exit 77
fi
cmake --build "$build" --target bench_suspect fgbisect >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
d="$shared/daily"
"$build/bench_suspect" --out "$work" --series "$series" --seed "$seed" --days "$days" --aa "$([[ $aa == yes ]] && echo 1 || echo 0)" \
	"$d/day01-broker-0-grpc.collapsed" "$d/day01-broker-1-grpc.collapsed" "$d/day01-broker-2-grpc.collapsed" \
	"$d/day10-broker-0-grpc.collapsed" >"$work/series.txt"
python3 - "${FGBISECT:-$build/fgbisect}" "$work" "$days" "$auto" "$aa" <<'PY'
import json, os, random, subprocess, sys
fg, work, ndays, auto, aa = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "yes", sys.argv[5] == "yes"
BASE = 2.9  # bench_suspect's --base
TCF = "zeebe/db/src/main/java/io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.java"
DECOYS = [("zeebe/stream-platform/src/main/java/io/camunda/zeebe/stream/impl/ProcessingStateMachine.java", "onCommand"),
          ("zeebe/exporters/elasticsearch-exporter/src/main/java/io/camunda/zeebe/exporter/ElasticsearchExporter.java", "export"),
          ("zeebe/atomix/cluster/src/main/java/io/atomix/raft/roles/LeaderRole.java", "appendEntry"),
          ("zeebe/scheduler/src/main/java/io/camunda/zeebe/scheduler/ActorThread.java", "run")]
TCF_METHODS = ["ensureInOpenTransaction", "upsert", "get", "exists", "forEachInPrefix", "serializeKey", "prefixHash",
               "serializeValue"]

def java(path, methods, edits):
    pkg = path.split("src/main/java/")[1].rsplit("/", 1)[0].replace("/", ".")
    cls = os.path.basename(path)[:-5]
    body = ["package %s;" % pkg, "", "class %s {" % cls]
    for m in methods:
        body += ["    void %s(Runnable r) {" % m] + ["        step%d();" % k for k in range(edits.get(m, 0))] + \
                ["        r.run();", "    }", ""]
    return "\n".join(body + ["}", ""])

def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True, text=True).stdout.strip()

repos = {}
def repo_for(day):
    """One repository per planted day: day d's commits, the planted one on day `day`."""
    if day in repos:
        return repos[day]
    repo = os.path.join(work, "repo%d" % day)
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True)
    rnd = random.Random(day)
    edits = {p: {} for p, _ in DECOYS}
    edits[TCF] = {}
    def write(path):
        full = os.path.join(repo, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        methods = TCF_METHODS if path == TCF else [m for p, m in DECOYS if p == path] + ["close"]
        open(full, "w").write(java(path, methods, edits[path]))
    for p in edits:
        write(p)
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
               GIT_COMMITTER_EMAIL="b@b")
    def commit(msg, date):
        git(repo, "add", "-A")
        subprocess.run(["git", "-C", repo, "commit", "-q", "-m", msg], check=True,
                       env=dict(env, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date))
        return git(repo, "rev-parse", "HEAD")
    ids, planted = [], None
    ids.append(commit("import", "2026-10-31T12:00:00Z"))
    for d in range(1, ndays + 1):
        date = "2026-11-%02dT%02d:00:00Z"
        for k in range(2):  # decoys: other classes on the same stacks
            p, m = DECOYS[rnd.randrange(len(DECOYS))]
            edits[p][m] = edits[p].get(m, 0) + 1
            write(p)
            last = commit("decoy %d.%d: %s" % (d, k, os.path.basename(p)), date % (d, 8 + k))
        if d == day:
            edits[TCF]["ensureInOpenTransaction"] = 1
            write(TCF)
            planted = last = commit("db: begin a transaction every time", date % (d, 10))
        ids.append(last)
    repos[day] = (repo, ids, planted)
    return repos[day]

def judge(decision, planted):
    """(named, first, wrong): the planted commit among the suspects, first of them, other commits named."""
    if not decision or decision.get("kind") != "changed":
        return False, False, False
    sus = [s["commit"] for s in decision["suspects"]]
    return planted in sus, bool(sus) and sus[0] == planted, any(s != planted for s in sus)

BANDS = [(0.5, 0.75), (0.75, 1.0), (1.0, 1.25), (1.25, 1.51)]
band = lambda c: next(i for i, (lo, hi) in enumerate(BANDS) if lo <= c < hi) if not aa else 0
# Where each series ends: the planted commit named as the suspect, or why not.
OUTCOMES = [("named", "the planted commit named as a suspect"),
            ("nosep", "ends not told apart, every run scanned: no rise found"),
            ("ends", "an end refused (judged on the wrong side, or untold: old)"),
            ("outside", "a window without the planted commit"),
            ("nodecision", "the window holds it, no decision naming it"),
            ("other", "the decision names another commit only")]
count = {k: [0] * len(BANDS) for k, _ in OUTCOMES}
kinds = {}
tally = {r: dict(named=0, first=0, wrong=0) for r in ("new", "old")}
found = total = holds = failed = wrong_all = fetched = named_any = 0
for line in open(os.path.join(work, "series.txt")):
    s, day, change = line.split()
    day, change = int(day), float(change)
    repo, ids, planted = repo_for(day)
    sdir = os.path.join(work, "s" + s)
    runs = os.path.join(sdir, "runs.txt")
    with open(runs, "w") as f:
        for d in range(1, ndays + 1):
            for n in range(3):
                f.write("2026-11-%02d %s broker-%d grpc cpu %s/day%d-%d.collapsed\n" % (d, ids[d][:10], n, sdir, d, n))
    total += 1
    p = subprocess.run([fg, "days", "--runs", runs, "--frame", "TransactionalColumnFamily", "--threshold",
                        "auto" if auto else "%.3f" % (BASE + (0.5 if aa else change) / 2), "--repo", repo, "--json"], capture_output=True, text=True)
    # runs judged: the verdict lines, or every run when a failed search scanned them (no lines then)
    fetched += ndays if p.returncode and "every run scanned" in p.stderr else \
        sum(l.startswith("tested ") for l in p.stderr.splitlines())
    b = band(change)
    if p.returncode not in (0, 1):  # not an answer: a broken set-up, never a "refusal"
        sys.exit("suspect.sh: fgbisect days exited %d: %s" % (p.returncode, p.stderr.strip().splitlines()[-1:]))
    if p.returncode != 0:  # no window
        failed += 1
        count["nosep" if "no rise" in p.stderr else "ends"][b] += 1
        continue
    j = json.loads(p.stdout)
    kind = j.get("window_kind", "day" if len(j["window_runs"]) == 1 else "runs")
    kinds[kind] = kinds.get(kind, 0) + 1
    fast, slow = j["last_fast"]["date"][-2:], j["first_slow"]["date"][-2:]
    found += int(slow) == day
    named, first, wrong = judge(j["decision"], planted)
    wrong_all += wrong
    named_any += named
    if int(fast) < day <= int(slow):
        holds += 1
        count["named" if named else "other" if wrong else "nodecision"][b] += 1
    else:  # the window misses the planted commit: the search's failure, not the explanation's
        count["outside"][b] += 1
        continue
    for r, dec in (("new", j["decision"]), ("old", None)):
        if r == "old":
            side = lambda dd: ["%s/day%d-%d.collapsed" % (sdir, int(dd), n) for n in range(3)]
            o = subprocess.run([fg, "hotfiles", "--repo", repo, "--good", j["last_fast"]["commit"], "--bad",
                                j["first_slow"]["commit"], "--json"] + side(fast) + ["--"] + side(slow),
                               capture_output=True, text=True)
            dec = json.loads(o.stdout).get("decision") if o.returncode == 0 else None
        named, first, wrong = judge(dec, planted)
        t = tally[r]
        t["named"] += named; t["first"] += first; t["wrong"] += wrong

pct = lambda n: "%5.1f%%" % (100.0 * n / total if total else 0)
if aa:
    print("A/A day series (no planted change): %d days, threshold %s, %d series" % (ndays, "auto" if auto else "halfway (0.25 pp above the base)", total))
    print("a window claimed (exit 0): %s; the no-effect commit named as a suspect: %s (%d); windows by kind: %s; runs judged a series: %.2f"
          % (pct(total - failed), pct(named_any), named_any, ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
             fetched / total if total else 0))
    sys.exit(0)
cond = lambda n: "%5.1f%%" % (100.0 * n / holds if holds else 0)
print("day series: %d days, 3 nodes x 5,000 samples, 0.2 pp day noise, 0.1 pp node noise, TransactionalColumnFamily"
      " at %.1f%% + 0.5-1.5 pp from the planted day; threshold %s; %d series" % (ndays, BASE, "auto" if auto else "halfway", total))
print("the search found a window: %s of the series; it holds the planted commit: %s (%d); its first slow run is "
      "the planted day: %s; runs judged a series: %.2f" % (pct(total - failed), pct(holds), holds, pct(found),
                                                            fetched / total if total else 0))
print("windows by kind: %s" % ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
print("of all %d series, by planted change (pp):" % total)
bn = [sum(count[k][i] for k, _ in OUTCOMES) for i in range(len(BANDS))]
print("  %-70s %s %7s" % ("", " ".join("%9s" % ("%.2f-%.2f" % (lo, min(hi, 1.5))) for lo, hi in BANDS), "all"))
for k, what in OUTCOMES:
    print("  %-70s %s %6s" % (what, " ".join("%9s" % ("%d/%d" % (count[k][i], bn[i])) for i in range(len(BANDS))),
                               pct(sum(count[k])).strip()))
print("wrong suspects over all series (a decision naming a commit that is not the planted one): %d" % wrong_all)
print("of the %d series whose window holds the planted commit (of all %d):" % (holds, total))
print("  %-4s %20s %20s %20s" % ("rule", "planted suspect", "named first", "a wrong suspect"))
for r in ("new", "old"):
    t = tally[r]
    print("  %-4s %12s (%5s) %12s (%5s) %12s (%5s)" % (r, cond(t["named"]), pct(t["named"]).strip(), cond(t["first"]),
          pct(t["first"]).strip(), cond(t["wrong"]), pct(t["wrong"]).strip()))
print("new: the pattern's frames by class and method beside the growers, those beyond noise decide (explain.h);"
      " old: the diff's growers only (hotfiles BASE... -- CAND...)")
PY
