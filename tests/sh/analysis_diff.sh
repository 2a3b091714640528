#!/bin/bash
# ctest-labels: slow
# diff: the inclusive-% diff against an independent computation from the
# collapsed stacks, the noise floor of healthy nodes, refusals, --peers and
# the SVG's structure (the browser test is diff_svg_browser.sh).
source "$FG_SOURCE_DIR/tests/lib.sh"
F="$FG_SOURCE_DIR/fixtures"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The expected grew/shrank lists, computed without fgbisect: per normalised
# name (thread ids, lambda and hidden-class ids, temp JNI library digits
# removed, as docs/normalisation.md says), the share of samples whose stack
# holds the name, pooled per side; listed by docs/diff.md's rule: z against
# the sampling error of no change times the frame's over-dispersion (its
# nodes' chi-square shrunk toward the frames' median) plus the run-to-run
# noise (RUN percent of p(1-p) a side), Benjamini-Hochberg at 5% over the
# frames tested, at least 0.25 points and more than MIN_DELTA.
expected() { # MIN_DELTA RUN BASE... -- CANDIDATE...
	python3 - "$@" <<'EOF'
import gzip, math, re, statistics, sys
IGNORE = ["thread_native_entry", "start_thread", "Thread::call_run", "Executors$RunnableAdapter.call", "ForkJoinTask"]
def norm(n):
    n = re.sub(r"_\[[0-9a-z]\]$", "", n)
    n = re.sub(r"^(\[.*?)( tid=\d+)+\]$", r"\1]", n)
    n = re.sub(r"\$\$Lambda\$\d+", "$$Lambda", n)
    n = re.sub(r"(?<=[A-Za-z0-9_$])[./+]0x[0-9a-f]+(?=[.(]|$)", "", n)
    n = re.sub(r"librocksdbjni\d+\.so", "librocksdbjni.so", n)
    return n
def load(path):
    tot, inc = 0, {}
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            n = int(n); tot += n
            for name in {norm(x) for x in stack.split(";")}:
                inc[name] = inc.get(name, 0) + n
    return tot, inc
args = sys.argv[3:]; cut = args.index("--")
run = float(sys.argv[2]) / 100
sides = [[load(p) for p in args[:cut]], [load(p) for p in args[cut + 1:]]]
N = [sum(p[0] for p in side) for side in sides]
names = sorted(set().union(*(p[1] for side in sides for p in side)))
def disp(name):
    chi2, df = 0.0, 0
    for s, side in enumerate(sides):
        K = sum(p[1].get(name, 0) for p in side); share = K / N[s]
        if len(side) > 1 and 0 < K < N[s]:
            chi2 += sum((p[1].get(name, 0) - p[0] * share) ** 2 / (p[0] * share * (1 - share)) for p in side)
            df += len(side) - 1
    return chi2, df
v = []
for name in names:
    chi2, df = disp(name)
    if df and all(sum(p[1].get(name, 0) for p in side) >= 5 * len(side) for side in sides):
        v.append(chi2 / (df * (1 - 2 / (9 * df)) ** 3))
phi0 = statistics.median(v) if v and len(sides[0]) + len(sides[1]) > 2 else 1.0
rows = []
for name in names:
    if any(i in name for i in IGNORE):
        continue
    k = [sum(p[1].get(name, 0) for p in side) for side in sides]
    chi2, df = disp(name)
    phi = max(1.0, (chi2 + 4 * phi0) / (df + 4))
    pp = (k[0] + k[1]) / (N[0] + N[1])
    se = 100 * math.sqrt(phi * pp * (1 - pp) * (1 / N[0] + 1 / N[1]) + 2 * (run * pp * (1 - pp)) ** 2)
    b, c = 100 * k[0] / N[0], 100 * k[1] / N[1]
    z = (c - b) / se if se > 0 else 0.0
    rows.append([name, b, c, math.erfc(abs(z) / math.sqrt(2)), se])
m = len(rows); q = 1.0
for rank, r in reversed(list(enumerate(sorted(rows, key=lambda r: r[3]), 1))):
    q = min(q, r[3] * m / rank); r.append(q)
md = float(sys.argv[1])
within = [[], []]
for name, b, c, p, se, q in rows:
    if q <= 0.05 and abs(c - b) >= 0.25 and (md == 0 or abs(c - b) > md):
        if "WITHIN" not in __import__("os").environ:
            print("%s\t%.6f\t%.6f\t%.6f" % (name, b, c, c - b))
    elif abs(c - b) >= 0.25 and (md == 0 or abs(c - b) > md):
        within[c < b].append((-(abs(c - b) - se), name))
# With WITHIN set, instead: per direction the frames over the floors but
# within noise, and the one the list would rank first.
if "WITHIN" in __import__("os").environ:
    print(" ".join("%d:%s" % (len(w), min(w)[1] if w else "-") for w in within))
EOF
}
# Compares fgbisect's JSON (stdin) with expected's lines (file $1): the same
# frames, values within the JSON's rounding.
same_as() {
	python3 -c 'import json,sys
j = json.load(sys.stdin)
got = {e["frame"]: (e["base"], e["candidate"], e["delta"]) for e in j["grew"] + j["shrank"]}
want = {}
for line in open(sys.argv[1]):
    name, *v = line.rstrip("\n").split("\t")
    want[name] = tuple(map(float, v))
bad = sorted(set(got) ^ set(want)) + [k for k in got if k in want and max(abs(a - b) for a, b in zip(got[k], want[k])) > 1e-3]
print("ok %d" % len(want) if not bad else "differ: %s" % bad[:5])' "$1"
}

d01="$F/day01-broker-0-grpc.collapsed.gz"
d10="$F/day10-broker-0-grpc.collapsed.gz"

# day01 -> day10: TransactionalColumnFamily among the top growers, values as computed independently.
"$FGBISECT" diff --json "$d01" "$d10" >"$T/d.json"
check_eq "exit status" "$?" 0
check_eq "TCF among the 10 top growers" \
	"$(json_get 'any("TransactionalColumnFamily" in e["frame"] for e in j["grew"][:10])' <"$T/d.json")" True
# Ranked by the change each surely made, |delta| less its noise (ties: |z|).
for side in grew shrank; do
	check_eq "$side sorted by |delta| - noise" \
		"$(json_get 'all(abs(a["delta"]) - a["noise"] >= abs(b["delta"]) - b["noise"] - 2e-4 for a, b in zip(j["'$side'"], j["'$side'"][1:]))' <"$T/d.json")" True
done
check_eq "not by z: the first grown is not the most significant" \
	"$(json_get 'j["grew"][0]["z"] < max(e["z"] for e in j["grew"])' <"$T/d.json")" True
check_eq "z is delta over noise" \
	"$(json_get 'all(abs(e["z"] - e["delta"] / e["noise"]) < 1e-3 * abs(e["z"]) + 2e-3 for e in j["grew"] + j["shrank"])' <"$T/d.json")" True
check_eq "base side" "$(json_get '(j["base"]["sources"], j["base"]["protocol"], j["base"]["total"])' <"$T/d.json")" \
	"(['$d01'], 'grpc', 5616)"
check_eq "candidate side" "$(json_get '(j["candidate"]["protocol"], j["candidate"]["total"])' <"$T/d.json")" \
	"('grpc', 6775)"
expected 0 8.5 "$d01" -- "$d10" >"$T/d.want"
check_eq "day01 -> day10 equals the independent computation" "$(same_as "$T/d.want" <"$T/d.json")" "ok 49"
# The run-to-run term: off, and doubled, as computed independently; each
# frame's run_noise is sqrt(2) x 8.5% of p(1-p), p its share of both sides.
"$FGBISECT" diff --json --run-noise 0 "$d01" "$d10" >"$T/r0.json"
expected 0 0 "$d01" -- "$d10" >"$T/r0.want"
check_eq "--run-noise 0 equals the independent computation (the last rule)" "$(same_as "$T/r0.want" <"$T/r0.json")" "ok 101"
check_eq "--run-noise 0 lists more" "$(($(wc -l <"$T/r0.want") > $(wc -l <"$T/d.want")))" 1
"$FGBISECT" diff --json --run-noise 17 "$d01" "$d10" >"$T/r17.json"
expected 0 17 "$d01" -- "$d10" >"$T/r17.want"
check_eq "--run-noise 17 equals the independent computation" "$(same_as "$T/r17.want" <"$T/r17.json")" "ok 14"
check_eq "run_noise per frame" \
	"$(json_get 'all(abs(e["run_noise"] - 100 * 2 ** 0.5 * 0.085 * p * (1 - p)) < 2e-4 for e in j["grew"] + j["shrank"] for p in [(e["base"] * 5616 + e["candidate"] * 6775) / 100 / (5616 + 6775)])' <"$T/d.json") $(json_get 'j["run_noise"]' <"$T/d.json")" \
	"True 8.5"
# The changes over the floor but within noise: counted, the first named, as
# computed independently (ties of the key by name, as the list's order).
check_eq "within noise, counted and named" \
	"$(json_get '" ".join("%d:%s" % (w["count"], w["largest"] or "-") for w in (j["within_noise"]["grew"], j["within_noise"]["shrank"]))' <"$T/d.json")" \
	"$(WITHIN=1 expected 0 8.5 "$d01" -- "$d10")"
check_eq "the text says it" "$("$FGBISECT" diff "$d01" "$d10" | grep -c '^[0-9]* frames grew by more than the floor but within noise, not listed; the first: +')" 1
check_eq "no volatile ids left" \
	"$(json_get 'sum(1 for e in j["grew"] + j["shrank"] if "tid=" in e["frame"] or "$$Lambda$" in e["frame"] or "0x" in e["frame"] or "librocksdbjni1" in e["frame"])' <"$T/d.json")" 0
check_eq "thread frames are matched, never new" \
	"$(json_get '[e["frame"] for e in j["grew"] + j["shrank"] if e["frame"].startswith("[") and e["status"] != "changed"]' <"$T/d.json")" "[]"
check_eq "a thread frame is compared" \
	"$(json_get '[e["status"] for e in j["shrank"] if e["frame"] == "[zb-fs-workers-0]"]' <"$T/r0.json")" "['changed']"
check_eq "ignored roots never listed" \
	"$(json_get 'sum(1 for e in j["grew"] + j["shrank"] if "start_thread" in e["frame"] or "ForkJoinTask" in e["frame"])' <"$T/d.json")" 0

# Pooled sides with a noise floor, against the same computation.
"$FGBISECT" diff --json "$F"/day01-broker-{0,1,2}-grpc.collapsed.gz -- "$d10" >"$T/p.json"
expected 0 8.5 "$F"/day01-broker-{0,1,2}-grpc.collapsed.gz -- "$d10" >"$T/p.want"
check_eq "pooled bases equal the independent computation" "$(same_as "$T/p.want" <"$T/p.json")" "ok 49"
check_eq "pooled: TCF still grows" \
	"$(json_get 'any("TransactionalColumnFamily" in e["frame"] for e in j["grew"][:5])' <"$T/p.json")" True
check_eq "pooled base total" "$(json_get 'j["base"]["total"]' <"$T/p.json")" $((5616 + 5714 + 5504))

# Healthy nodes: against themselves nothing, and two as bases do not flag the third.
"$FGBISECT" diff --json "$F"/day01-broker-{0,1,2}-grpc.collapsed.gz -- "$F"/day01-broker-{0,1,2}-grpc.collapsed.gz >"$T/h.json"
check_eq "healthy vs themselves" "$(json_get 'len(j["grew"]) + len(j["shrank"])' <"$T/h.json")" 0
for c in "0 1 2" "0 2 1" "1 2 0"; do
	set -- $c
	n=$("$FGBISECT" diff --json "$F/day01-broker-$1-grpc.collapsed.gz" "$F/day01-broker-$2-grpc.collapsed.gz" -- \
		"$F/day01-broker-$3-grpc.collapsed.gz" | json_get 'len(j["grew"]) + len(j["shrank"])')
	# broker-0 alone against broker-2 differs on several frames by more than
	# 1.5 points: the spread of two bases must absorb nearly all of it.
	check_eq "healthy broker-$3 vs broker-$1,$2: at most 12 frames past the noise" "$((n <= 12))" 1
done
# Broker-1 and -2 agree closely and broker-0 is a little apart: as the
# candidate it shows, but below 2 points and without TransactionalColumnFamily.
check_eq "healthy broker-0 vs broker-1,2: small changes only" \
	"$("$FGBISECT" diff --json "$F"/day01-broker-{1,2}-grpc.collapsed.gz -- "$F/day01-broker-0-grpc.collapsed.gz" |
		json_get 'all(abs(e["delta"]) < 2 and "TransactionalColumnFamily" not in e["frame"] for e in j["grew"] + j["shrank"])')" True

# The text form names both sides and lists whole names.
out=$("$FGBISECT" diff "$d01" "$d10")
check_eq "text lists TCF untruncated" \
	"$(grep -c 'io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction$' <<<"$out")" 1
check_eq "--min-delta 3 keeps fewer" \
	"$("$FGBISECT" diff --json --min-delta 3 "$d01" "$d10" | json_get 'all(abs(e["delta"]) > 3 for e in j["grew"] + j["shrank"]) and len(j["grew"]) < 20')" True
check_eq "one profile a side: no node spread, said" \
	"$(json_get 'j["node_df"], j["phi"]' <"$T/d.json") $(grep -c '^one profile a side: no node spread to measure' <<<"$out")" "(0, 1.0) 1"
# --min-delta is a floor on top of the test: what it hides is counted, the
# largest named: the independent computation's frames between the floors,
# and those under 0.25 points that the default already hides.
"$FGBISECT" diff --json --min-delta 3 "$d01" "$d10" >"$T/m.json"
check_eq "--min-delta 3: hidden frames counted" \
	"$(json_get '(j["hidden"]["grew"]["count"], j["hidden"]["shrank"]["count"], j["hidden"]["grew"]["largest"])' <"$T/m.json")" \
	"$(awk -F'\t' -v g="$(json_get 'j["hidden"]["grew"]["count"]' <"$T/d.json")" \
		-v s="$(json_get 'j["hidden"]["shrank"]["count"]' <"$T/d.json")" \
		'$4 > 0 && $4 <= 3 { g++; if ($4 > m) { m = $4; n = $1 } } $4 < 0 && $4 >= -3 { s++ }
		END { printf "(%d, %d, \x27%s\x27)", g, s, n }' "$T/d.want")"
check_eq "the footer names it" "$("$FGBISECT" diff --min-delta 3 "$d01" "$d10" | grep -c '^[0-9]* more frames grew beyond noise under the floor; the largest: +')" 1
check_eq "--ignore drops frames" \
	"$("$FGBISECT" diff --json --ignore TransactionalColumnFamily "$d01" "$d10" | json_get 'sum("TransactionalColumnFamily" in e["frame"] for e in j["grew"])')" 0
check_eq "--self compares self shares" \
	"$("$FGBISECT" diff --json --self --min-delta 0.5 "$d01" "$d10" | json_get 'j["kind"]')" self

# Refusals: gRPC vs REST (exit 2, one line naming both), accepted with --force.
set +e
err=$("$FGBISECT" diff "$F/day01-broker-0-rest.collapsed.gz" "$d10" 2>&1 >/dev/null)
check_eq "gRPC vs REST refused" "$?" 2
set -e
check_eq "refusal is one line" "$(wc -l <<<"$err")" 1
check_eq "refusal names both" "$(grep -c 'day01-broker-0-rest.*day10-broker-0-grpc' <<<"$err")" 1
"$FGBISECT" diff --force "$F/day01-broker-0-rest.collapsed.gz" "$d10" >/dev/null 2>&1
check_eq "--force accepts" "$?" 0
set +e
"$FGBISECT" diff "$d01" -- "$d10" "$F/day10-broker-0-rest.collapsed.gz" >/dev/null 2>&1
check_eq "a side mixing protocols is refused" "$?" 2
"$FGBISECT" diff "$d01" "$d10" "$F/day10-broker-0-rest.collapsed.gz" >/dev/null 2>&1
check_eq "three profiles without -- is a usage error" "$?" 2
"$FGBISECT" diff --peers "$d01" "$d10" >/dev/null 2>&1
check_eq "--peers wants three" "$?" 2
# Different events (from the HTML title) are refused too.
sed 's|<h1>[^<]*</h1>|<h1>CPU profile</h1>|' "$F/tiny-3x.html" >"$T/cpu.html"
sed 's|<h1>[^<]*</h1>|<h1>Allocation profile</h1>|' "$F/tiny-3x.html" >"$T/alloc.html"
err=$("$FGBISECT" diff "$T/cpu.html" "$T/alloc.html" 2>&1 >/dev/null)
check_eq "cpu vs alloc refused" "$?" 2
check_eq "cpu vs alloc message" "$(grep -c 'cpu.html: measures cpu but .*alloc.html measures alloc' <<<"$err")" 1
"$FGBISECT" diff --force "$T/cpu.html" "$T/alloc.html" >/dev/null 2>&1
check_eq "cpu vs alloc with --force" "$?" 0
"$FGBISECT" diff "$T/cpu.html" "$d01" >/dev/null 2>&1
check_eq "cpu vs collapsed (event unknown) accepted" "$?" 0
set -e

# Peers: day10 stands out among the healthy day01 nodes; the healthy ones alone have no outlier.
"$FGBISECT" diff --peers --json "$F"/day01-broker-{0,1,2}-grpc.collapsed.gz "$d10" >"$T/peers.json"
check_eq "peers outlier" "$(json_get 'j["outlier"]' <"$T/peers.json")" "$d10"
check_eq "peers frames name TCF" \
	"$(json_get 'any("TransactionalColumnFamily" in f["frame"] for p in j["peers"] if p["source"] == j["outlier"] for f in p["frames"])' <"$T/peers.json")" True
check_eq "peers frames beyond --min-delta" \
	"$(json_get 'all(abs(f["delta"]) > 1.5 and abs(f["share"] - f["others"] - f["delta"]) < 1e-3 for p in j["peers"] for f in p["frames"])' <"$T/peers.json")" True
check_eq "peer score is the sum" \
	"$(json_get 'all(abs(p["score"] - sum(abs(f["delta"]) for f in p["frames"])) < 0.01 for p in j["peers"])' <"$T/peers.json")" True

# The SVG: well-formed, the expected frames, colours and tooltips.
"$FGBISECT" diff --svg "$T/d.svg" --svg-base "$T/b.svg" "$d01" "$d10" >/dev/null
check_eq "SVG written" "$?" 0
check_eq "SVG structure" "$(python3 - "$T/d.svg" "$T/b.svg" <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
out = []
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    frames = root.find(".//*[@id='fg-frames']").findall(ns + "g")
    titles = [g.find(ns + "title").text for g in frames]
    names = [t.split("\n")[0] for t in titles]
    fills = [tuple(int(v) for v in g.find(ns + "rect").get("fill")[4:-1].split(",")) for g in frames]
    tcf = [t for t in titles if t.startswith("io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction")]
    out.append("%s root=%s tcf=%s red=%s blue=%s tid=%s lambda=%s script=%s href=%s" % (
        path == sys.argv[1], names[0] == "all", bool(tcf) and all("\ncandidate: " in t and "(self " in t for t in tcf),
        any(r - g > 60 and r - b > 60 for r, g, b in fills),
        any(b - r > 50 for r, g, b in fills),
        any("tid=" in n for n in names), any("$$Lambda$" in n or ".0x" in n for n in names),
        root.find(ns + "script") is not None,
        "http" in open(path).read().replace("http://www.w3.org/2000/svg", "")))
print("\n".join(out))
EOF
)" "True root=True tcf=True red=True blue=True tid=False lambda=False script=True href=False
False root=True tcf=True red=True blue=True tid=False lambda=False script=True href=False"

# Names that need escaping, and bytes that are not UTF-8, still give valid XML.
printf '[a<b> & "c" tid=1];x\xff\x01y 3\n[a<b> & "c" tid=1];z 1\n' >"$T/e1.collapsed"
printf '[a<b> & "c" tid=2];x\xff\x01y 1\n[a<b> & "c" tid=2];z 3\n' >"$T/e2.collapsed"
"$FGBISECT" diff --svg "$T/e.svg" "$T/e1.collapsed" "$T/e2.collapsed" >/dev/null
check_eq "escaped SVG parses" "$(python3 -c 'import sys,xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot(); ns = "{http://www.w3.org/2000/svg}"
print(ascii(sorted(g.find(ns + "title").text.split("\n")[0] for g in r.find(".//*[@id=\"fg-frames\"]").findall(ns + "g"))))' "$T/e.svg")" \
	"['[a<b> & \"c\"]', 'all', 'x\ufffd?y', 'z']"

# The HTML pairs of the shared fixtures against their collapsed twins.
S="${FG_SHARED_FIXTURES:-}/daily"
if [[ -d "$S" ]]; then
	"$FGBISECT" diff --json "$S/day01-broker-0-grpc.html" "$S/day10-broker-0-grpc.html" >"$T/html.json"
	expected 0 8.5 "$S/day01-broker-0-grpc.collapsed" -- "$S/day10-broker-0-grpc.collapsed" >"$T/html.want"
	check_eq "HTML day01 -> day10 equals the twins' computation" "$(same_as "$T/html.want" <"$T/html.json")" "ok 49"
	check_eq "HTML events" "$(json_get '(j["base"]["event"], j["candidate"]["event"])' <"$T/html.json")" "('cpu', 'cpu')"
	"$FGBISECT" diff --json "$S/day01-broker-0-rest.html" "$S/day10-broker-0-rest.html" >"$T/rest.json"
	expected 0 8.5 "$S/day01-broker-0-rest.collapsed" -- "$S/day10-broker-0-rest.collapsed" >"$T/rest.want"
	check_eq "HTML REST day01 -> day10 equals the twins' computation" "$(same_as "$T/rest.want" <"$T/rest.json")" \
		"$(same_as "$T/rest.want" <"$T/rest.json" | grep '^ok')"
	check_eq "REST: TCF among the top growers" \
		"$(json_get 'any("TransactionalColumnFamily" in e["frame"] for e in j["grew"][:10])' <"$T/rest.json")" True
	set +e
	"$FGBISECT" diff "$S/day01-broker-0-grpc.html" "$S/day10-broker-0-rest.html" >/dev/null 2>&1
	check_eq "HTML gRPC vs REST refused" "$?" 2
	set -e
else
	echo "SKIP (part): the shared fixtures are not at '${FG_SHARED_FIXTURES:-}': HTML pairs not compared" >&2
fi

finish
