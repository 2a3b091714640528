# A JFR recording's chunks read on two threads (-j 2: a second thread loads
# chunk k + 1 while this one visits chunk k, src/formats/jfr.c "Chunks on two
# threads") against one thread (-j 1): the same stdout, stderr and exit
# status, byte for byte, over every JFR fixture, multi-chunk recordings
# written by tests/tools/write_jfr.py, gzip'd and piped copies, and damaged
# ones: a damaged chunk after good ones, a chunk that fails only once its
# stacks are visited followed by one that fails to load (the first failure in
# file order wins), a truncation inside every chunk, --max-size inside every
# chunk.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/in"
zcat "$FG_SOURCE_DIR/fixtures/zeebe-healthy.collapsed.gz" | awk 'NR <= 400' >"$TMP/z.collapsed"
python3 "$FG_SOURCE_DIR/tests/tools/write_jfr.py" --chunks 3 "$TMP/z.collapsed" "$TMP/in/zeebe3.jfr"
python3 "$FG_SOURCE_DIR/tests/tools/write_jfr.py" --chunks 5 "$FG_SOURCE_DIR/fixtures/day01-broker-0-rest.collapsed.gz" "$TMP/in/day5.jfr"
PYTHONPATH="$FG_SOURCE_DIR/tests/tools" python3 - "$TMP/in" <<'PY'
import os, sys
from write_jfr import chunk
out = sys.argv[1]
stacks = {1: ["a/A.main_[j]", "a/B.work_[i]", "sys_write_[k]"], 2: ["a/A.main_[j]", "libc.so"],
          3: ["java/lang/Thread.run_[j]", "a/A.main_[j]", "x/Y.z_[0]"]}
def events(n, shift=0):
    return [(1 + (i + shift) % 3, 1000 + i * 1000) for i in range(n)]
def put(name, data):
    open(os.path.join(out, name), "wb").write(data)
a = chunk(stacks, events(300), 10**18, 10**8)
b = chunk(stacks, events(200, 1), 10**18 + 10**8, 10**8)
c = chunk(stacks, events(100, 2), 10**18 + 2 * 10**8, 10**8)
missing = chunk(stacks, events(100), 10**18 + 10**8, 10**8, drop_trace=2)  # fails when visited
good = a + b + c
put("good3.jfr", good)
put("missing-second.jfr", a + missing + c)
# A chunk that fails when visited, then one that fails to load: the first wins.
put("missing-then-trailing.jfr", a + missing + b"garbage, not a chunk header, long enough for one" * 2)
put("missing-then-cut.jfr", a + missing + b[: len(b) // 2])
put("missing-first.jfr", missing + b + c)
# Samples in the second chunk only (which the second thread loads).
put("empty-first.jfr", chunk(stacks, [], 10**18, 10**8) + b)
put("trailing.jfr", good + b"garbage after the chunks, long enough for a header" * 2)
put("unfinished-third.jfr", a + b + c[:8] + bytes(8) + c[16:])
# A byte of the second and of the third chunk's constant pool or events.
for k, (lo, hi) in enumerate([(len(a), len(a) + len(b)), (len(a) + len(b), len(good))]):
    for m, at in enumerate([lo + 70, (lo + hi) // 2, hi - 40, hi - 3]):
        d = bytearray(good)
        d[at] ^= 0xff
        put("mut%d-%d.jfr" % (k + 2, m), bytes(d))
# A truncation inside every chunk, and at each chunk boundary.
for k, end in enumerate([len(a), len(a) + len(b), len(good)]):
    start = end - [len(a), len(b), len(c)][k]
    for q in (1, 2, 3):
        put("cut%d-%d.jfr" % (k + 1, q), good[: start + (end - start) * q // 4])
    put("cut%d-end.jfr" % (k + 1), good[:end])
caps = []
for end in (len(a), len(a) + len(b), len(good)):
    caps += [end - 100, end, end + 1]
open(os.path.join(out, "..", "caps"), "w").write(" ".join(map(str, caps)) + "\n")
PY
if [[ -n "${FG_SHARED_FIXTURES:-}" && -d "$FG_SHARED_FIXTURES" ]]; then
	cp "$FG_SHARED_FIXTURES/formats/jfr-v4.5-healthy.jfr" "$TMP/in/healthy.jfr"
	cat "$TMP/in/healthy.jfr" "$TMP/in/zeebe3.jfr" >"$TMP/in/concat.jfr"
else
	echo "SKIP (part): the shared fixtures are not at '${FG_SHARED_FIXTURES:-}': async-profiler's JFR not checked" >&2
fi
for f in "$FG_SOURCE_DIR"/tests/fuzz/seeds/*.jfr "$FG_SOURCE_DIR"/tests/fuzz/regressions/*jfr*; do
	[[ -f $f ]] && cp "$f" "$TMP/in/"
done
gzip -c "$TMP/in/day5.jfr" >"$TMP/in/day5.jfr.gz"

# same WHAT ARGS...: the command with -j 1 and with -j 2 (stdin from
# $STDIN when set): the same output, messages and status.
STDIN=/dev/null
same() {
	local what=$1 rc1=0 rc2=0
	shift
	"$FGBISECT" "$1" -j 1 "${@:2}" <"$STDIN" >"$TMP/o1" 2>"$TMP/e1" || rc1=$?
	"$FGBISECT" "$1" -j 2 "${@:2}" <"$STDIN" >"$TMP/o2" 2>"$TMP/e2" || rc2=$?
	CHECKS=$((CHECKS + 1))
	if [[ $rc1 != "$rc2" ]] || ! cmp -s "$TMP/o1" "$TMP/o2" || ! cmp -s "$TMP/e1" "$TMP/e2"; then
		fail "$what: -j 1 and -j 2 differ: status $rc1/$rc2, $(diff "$TMP/e1" "$TMP/e2" | head -3) $(diff "$TMP/o1" "$TMP/o2" | head -3)"
	fi
}
read -r -a caps <"$TMP/caps"
for f in "$TMP"/in/*; do
	n=$(basename "$f")
	same "$n share" share -f a/B -f java -f Attr "$f"
	same "$n share --json --threads" share --json --threads -f a/ -f run "$f"
	same "$n share --event alloc --from 10%" share --event alloc --from 10% -f a "$f"
	same "$n top" top --self "$f"
	same "$n collapse" collapse --annotate --threads "$f"
done
for f in good3 missing-second; do
	for cap in "${caps[@]}"; do
		same "$f.jfr --max-size $cap" share --max-size "$cap" -f a/B "$TMP/in/$f.jfr"
	done
done
for f in day5.jfr.gz good3.jfr missing-second.jfr cut2-2.jfr; do
	STDIN=$TMP/in/$f
	same "$f from stdin" share -f a/B -f java -
done
STDIN=/dev/null
# The checks above see a difference: a damaged recording fails with the
# message of its first damaged chunk; samples in the second chunk alone count.
for what in "missing-then-trailing:chunk 2: corrupt constant pool: a sample's stack trace is missing" \
	"missing-then-cut:chunk 2: corrupt constant pool: a sample's stack trace is missing" \
	"cut3-2:truncated: chunk 3 should hold" "empty-first:"; do
	rc=0
	"$FGBISECT" share -j 2 -f a "$TMP/in/${what%%:*}.jfr" >/dev/null 2>"$TMP/err" || rc=$?
	check_eq "${what%%:*}: exit status" "$rc" "$([[ -n ${what#*:} ]] && echo 3 || echo 0)"
	CHECKS=$((CHECKS + 1))
	[[ -z ${what#*:} ]] || grep -qF -- "${what#*:}" "$TMP/err" ||
		fail "${what%%:*}: stderr lacks '${what#*:}': $(head -c 300 "$TMP/err")"
done
finish
