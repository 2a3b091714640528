# top, subsystems and collapse pool several profiles (the nodes of a run):
# exact values against an independent computation (python over the
# concatenated collapsed stacks of day01's three gRPC brokers), a gRPC+REST
# mix refused with exit 2 and the guard's message, one profile unchanged.
source "$(dirname "$0")/../lib.sh"
FX="$FG_SOURCE_DIR/fixtures"
RULES="$FG_SOURCE_DIR/contrib/zeebe.rules"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
B0="$FX/day01-broker-0-grpc.collapsed.gz"
B1="$FX/day01-broker-1-grpc.collapsed.gz"
B2="$FX/day01-broker-2-grpc.collapsed.gz"
REST="$FX/day01-broker-0-rest.collapsed.gz"

# pooled top (raw names, all frames) against inclusive/self counts summed
# by python over the three files' stacks: each stack counted once per
# distinct frame, its leaf's self.
"$FGBISECT" top --raw -n 0 --json "$B0" "$B1" "$B2" >"$TMP/top.json"
check_eq "pooled top equals the concatenated stacks' counts" "$(python3 - "$TMP/top.json" "$B0" "$B1" "$B2" <<'PY'
import gzip, json, re, sys
got = json.load(open(sys.argv[1]))
incl, self_, total = {}, {}, 0
suffix = re.compile(r"_\[(k|j|i|0|1)\]$")
for path in sys.argv[2:]:
    for line in gzip.open(path, "rt"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        count = int(count)
        total += count
        frames = [suffix.sub("", f) for f in stack.split(";")]
        for f in set(frames):
            incl[f] = incl.get(f, 0) + count
        self_[frames[-1]] = self_.get(frames[-1], 0) + count
want = {f: (incl[f], self_.get(f, 0)) for f in incl}
have = {e["frame"]: (e["samples"], e["self_samples"]) for e in got["frames"]}
bad = [f for f in set(want) | set(have) if want.get(f) != have.get(f)]
print("ok" if not bad and got["total"] == total and got["pooled"] == 3 and len(got["sources"]) == 3
      else f"total {got['total']} vs {total}, {len(bad)} frames differ, e.g. {bad[:2]}")
PY
)" ok

# pooled collapse: each distinct stack once, its count the sum over the three files
"$FGBISECT" collapse "$B0" "$B1" "$B2" >"$TMP/pooled.collapsed"
check_eq "pooled collapse equals the summed stacks" "$(python3 - "$TMP/pooled.collapsed" "$B0" "$B1" "$B2" <<'PY'
import gzip, re, sys
suffix = re.compile(r"_\[(j|i|0|1)\]$")
def read(lines):
    d = {}
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        key = ";".join(suffix.sub("", f) for f in stack.split(";"))
        d[key] = d.get(key, 0) + int(count)
    return d
have = read(open(sys.argv[1]))
lines = sum(1 for _ in open(sys.argv[1]))
want = {}
for path in sys.argv[2:]:
    for k, v in read(gzip.open(path, "rt")).items():
        want[k] = want.get(k, 0) + v
print("ok" if have == want and lines == len(have) else f"{len(have)} stacks ({lines} lines) vs {len(want)}")
PY
)" ok

# pooled subsystems: each subsystem's samples the sum of the three profiles'
for f in "$B0" "$B1" "$B2"; do "$FGBISECT" subsystems --rules "$RULES" --json "$f"; done >"$TMP/each.json"
"$FGBISECT" subsystems --rules "$RULES" --json "$B0" "$B1" "$B2" >"$TMP/subs.json"
check_eq "pooled subsystems add the profiles' attributions" "$(python3 - "$TMP/subs.json" "$TMP/each.json" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
want, total = {}, 0
for line in open(sys.argv[2]):
    one = json.loads(line)
    total += one["total"]
    for s in one["subsystems"]:
        want[s["name"]] = want.get(s["name"], 0) + s["samples"]
have = {s["name"]: s["samples"] for s in got["subsystems"]}
print("ok" if have == want and got["total"] == total == 16834 and got["pooled"] == 3 else f"{have} vs {want}")
PY
)" ok
check_eq "pooled text names all three" \
	"$("$FGBISECT" subsystems --rules "$RULES" "$B0" "$B1" "$B2" | head -1 | cut -d' ' -f1-5)" \
	"$B0 + $B1 + $B2"

# a gRPC profile with a REST one: refused by diff's guard, exit 2, both named
for cmd in "top" "subsystems --rules $RULES" "collapse"; do
	set +e
	$FGBISECT $cmd "$B0" "$REST" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	set -e
	check_eq "$cmd: gRPC+REST exit" "$rc" 2
	check_eq "$cmd: gRPC+REST message" "$(cat "$TMP/err")" \
		"fgbisect: $B0: serves gRPC but $REST serves REST: their request paths differ (--force compares anyway)"
	check_eq "$cmd: nothing printed" "$(wc -c <"$TMP/out")" 0
done
check_eq "--force pools them" "$("$FGBISECT" top --force --json -n 1 "$B0" "$REST" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')" \
	"$(zcat "$B0" "$REST" | awk '{ s += $NF } END { print s }')"
set +e
"$FGBISECT" top "$B0" "$TMP/nope.html" >"$TMP/out" 2>"$TMP/err"
check_eq "a missing second profile: exit" "$?" 4
set -e
check_eq "a missing second profile: named" "$(cat "$TMP/err")" "fgbisect: $TMP/nope.html: cannot open: No such file or directory"
check_eq "a missing second profile: nothing printed" "$(wc -c <"$TMP/out")" 0
check_eq "--unsorted takes one" "$(status "$FGBISECT" collapse --unsorted "$B0" "$B1")" 2

# one profile: no pooled fields, the source as before
"$FGBISECT" top --json -n 1 "$B1" >"$TMP/one.json"
check_eq "one profile's JSON" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["source"], "pooled" in d, "sources" in d)' "$TMP/one.json")" \
	"$B1 False False"
check_eq "one profile's text" "$("$FGBISECT" top -n 1 "$B1" | head -1)" "$B1  collapsed+gzip  5714 samples"
check_eq "no profile" "$(status "$FGBISECT" top)" 2

finish
