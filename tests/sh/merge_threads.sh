# --merge-threads drops async-profiler's thread frames (-t): a hand-written
# -t profile gives exact stacks, counts and a single column in the SVG, read
# as collapsed stacks (the stack path) and as an async-profiler page (the
# frame path); the real day01 broker's stacks equal python's strip of the
# first frame; a bracketed name that is no thread frame stays.
source "$(dirname "$0")/../lib.sh"
FX="$FG_SOURCE_DIR/fixtures"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# 13 samples; T.get runs on two actor threads (3 + 2), [GC_active] is a
# root frame of its own (not a thread), one sample is its thread's alone.
cat >"$TMP/t.collapsed" <<'C'
[zb-actors-0 tid=11];A.run;T.get 3
[zb-actors-1 tid=12];A.run;T.get 2
[zb-actors-1 tid=12];A.run 1
[tid=13];B.x 4
[GC_active] 2
[zb-actors-0 tid=11] 1
C
python3 "$FG_SOURCE_DIR/tests/tools/write_asprof_html.py" "$TMP/t.collapsed" "$TMP/t.html"
for f in t.collapsed t.html; do
	check_eq "$f: merged stacks" "$("$FGBISECT" collapse --merge-threads "$TMP/$f" | tr '\n' '|')" \
		"A.run 1|A.run;T.get 5|B.x 4|[GC_active] 2|"
	check_eq "$f: unsorted stream, merged" \
		"$("$FGBISECT" collapse -u --merge-threads "$TMP/$f" | canonical | tr '\n' '|')" \
		"A.run 1|A.run;T.get 5|B.x 4|[GC_active] 2|"
	check_eq "$f: top, merged" "$("$FGBISECT" top --json --merge-threads -n 0 "$TMP/$f" |
		json_get '[(e["frame"], e["samples"], e["self_samples"]) for e in j["frames"]]')" \
		"[('A.run', 6, 1), ('T.get', 5, 5), ('B.x', 4, 4), ('[GC_active]', 2, 2)]"
	check_eq "$f: share of T.get, merged" \
		"$("$FGBISECT" share --json --merge-threads -f T.get "$TMP/$f" | json_get 'j["profiles"][0]["matches"][0]["samples"], j["profiles"][0]["total"]')" "(5, 13)"
done
# Without the option the thread frames stay (the -t split, normalised).
check_eq "unmerged: top lists the threads" "$("$FGBISECT" top --json -n 0 "$TMP/t.collapsed" |
	json_get 'sorted(e["frame"] for e in j["frames"] if "actors" in e["frame"])')" "['[zb-actors-0]', '[zb-actors-1]']"

# The differential SVG: one T.get rectangle merged, two split.
"$FGBISECT" diff --merge-threads --svg "$TMP/m.svg" "$TMP/t.collapsed" "$TMP/t.html" >/dev/null
"$FGBISECT" diff --svg "$TMP/s.svg" "$TMP/t.collapsed" "$TMP/t.html" >/dev/null
check_eq "SVG: T.get drawn once, merged" "$(grep -c '<title>T\.get$' "$TMP/m.svg")" 1
check_eq "SVG: T.get drawn per thread, split" "$(grep -c '<title>T\.get$' "$TMP/s.svg")" 2

# A real -t profile: the collapsed twin of day01 broker 0 (13 threads).
B0="$FX/day01-broker-0-grpc.collapsed.gz"
want=$(zcat "$B0" | python3 -c '
import re, sys, collections
c = collections.Counter()
for line in sys.stdin:
    stack, _, n = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if re.fullmatch(r"\[(.* )?tid=[0-9]+\]", frames[0]):
        frames = frames[1:]
    c[";".join(frames)] += int(n)
for k, n in c.items():
    print(k, n)' | canonical | sha256sum)
check_eq "day01 broker 0: merged stacks equal python's" "$("$FGBISECT" collapse --merge-threads "$B0" | canonical | sha256sum)" "$want"
check_eq "day01 broker 0: distinct merged stacks" "$("$FGBISECT" collapse --merge-threads "$B0" | wc -l)" 760
check_eq "day01 broker 0: no thread frame left" \
	"$("$FGBISECT" collapse --merge-threads "$B0" | grep -c 'tid=' || true)" 0
check_eq "day01 broker 0: ActorThread.run, merged" "$("$FGBISECT" top --json --raw --merge-threads -n 1 "$B0" |
	json_get 'j["frames"][0]["frame"], j["frames"][0]["samples"], j["total"]')" \
	"('io/camunda/zeebe/scheduler/ActorThread.run', 4451, 5616)"
# The real async-profiler page of the same broker (../shared): the frame
# path gives what its collapsed twin's stacks give.
if [[ -n "${FG_SHARED_FIXTURES:-}" && -d "$FG_SHARED_FIXTURES" ]]; then
	check_eq "day01 broker 0 page: merged stacks equal the twin's" \
		"$("$FGBISECT" collapse --merge-threads "$FG_SHARED_FIXTURES/daily/day01-broker-0-grpc.html" | canonical | sha256sum)" "$want"
else
	echo "SKIP (part): the shared fixtures are missing: the real -t page was NOT read" >&2
fi
finish
