# Damaged JFR recordings (docs/bad-inputs.md): each one an error that names
# the problem, exit 3, never a crash or a partial answer.  The recordings are
# written here by tests/tools/write_jfr.py and damaged on purpose.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PYTHONPATH="$FG_SOURCE_DIR/tests/tools" python3 - "$TMP" <<'PY'
import os, sys
from write_jfr import chunk, varint, jstr
out = sys.argv[1]
stacks = {1: ["a/A.main_[j]", "a/B.work_[i]", "sys_write_[k]"], 2: ["a/A.main_[j]", "libc.so"]}
events = [(1 + i % 2, 1000 + i * 1000) for i in range(100)]
def put(name, data):
    open(os.path.join(out, name), "wb").write(data)
good = chunk(stacks, events, 10**18, 10**8)
put("good.jfr", good)
for k in range(1, 10):
    put("cut%d0.jfr" % k, good[: len(good) * k // 10])
# The constant pool's first pool names a type the metadata does not declare.
cp = int.from_bytes(good[16:24], "big")
b = bytearray(good)
i = cp
for _ in range(6):          # size, type, start, duration, delta: varints; then the flush byte
    while b[i] & 0x80:
        i += 1
    i += 1
i += 1                      # the pool count (small)
assert b[i] == 20           # the first pool's type id (threads)
b[i] = 99
put("undeclared-pool.jfr", bytes(b))
b = bytearray(good)
b[i - 1] = 0x7f             # more pools than the checkpoint holds
put("pool-count.jfr", bytes(b))
put("missing-trace.jfr", chunk(stacks, events, 10**18, 10**8, drop_trace=2))
# The first event after the metadata: its size a varint of nine 0xff bytes.
meta = 68
b = bytearray(good)
msize, n = 0, 0
while True:
    msize |= (b[meta + n] & 0x7f) << (7 * n)
    n += 1
    if not b[meta + n - 1] & 0x80:
        break
ev = meta + msize
put("bad-varint.jfr", bytes(b[:ev]) + b"\xff" * 9 + bytes(b[ev + 9:]))
put("deep-metadata.jfr", chunk(stacks, events, 10**18, 10**8, nest=200))
# A type that holds itself inline, and a pool of it: infinite nesting.
put("self-type.jfr", chunk(stacks, events, 10**18, 10**8, extra_classes=[(30, "x.Loop", [("self", 30, 0, 0)])],
                          extra_pools=[(30, [(1, b"\x00" * 64)])]))
put("unfinished.jfr", good[:8] + bytes(8) + good[16:])
put("trailing.jfr", good + b"garbage after the chunk, long enough for a header" * 2)
put("no-events.jfr", chunk(stacks, [], 10**18, 10**8))
# Three chunks, the second damaged, the first larger than the 128 KiB the
# format sniffing reads at once: --max-size between the second's end and the
# third's, and within the first.
first = chunk(stacks, [(1 + i % 2, 1000 + i) for i in range(40000)], 10**18, 10**8)
missing = chunk(stacks, events, 10**18, 10**8, drop_trace=2)
put("second-damaged.jfr", first + missing + good)
open(os.path.join(out, "second-damaged.cap"), "w").write("%d %d\n" % (len(first) + len(missing) + 10, len(first) - 10))
PY

expect() {
	local what=$1 msg=$2 rc=0
	"$FGBISECT" share --frame A "$TMP/$what" >/dev/null 2>"$TMP/err" || rc=$?
	check_eq "$what: exit status ($(head -c 200 "$TMP/err"))" "$rc" 3
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$msg" "$TMP/err" || fail "$what: stderr lacks '$msg': $(head -c 300 "$TMP/err")"
	check_eq "$what: one error line" "$(wc -l <"$TMP/err")" 1
}

out=$("$FGBISECT" share --json --frame a/B.work "$TMP/good.jfr")
check_eq "the undamaged recording" "$(json_get '[j["profiles"][0]["total"], j["profiles"][0]["matches"][0]["samples"]]' <<<"$out")" "[100, 50]"
for k in 1 2 3 4 5 6 7 8 9; do
	expect "cut${k}0.jfr" "truncated"
done
expect undeclared-pool.jfr "constant pool of an undeclared type"
expect pool-count.jfr "corrupt constant pool"
expect missing-trace.jfr "a sample's stack trace is missing"
expect bad-varint.jfr "event size runs past the chunk"
expect deep-metadata.jfr "metadata nests too deeply"
expect self-type.jfr "corrupt constant pool"
expect unfinished.jfr "the recording was not finished"
expect trailing.jfr "not a JFR chunk"
expect no-events.jfr "no samples"
# A chunk is read no further than its end: with --max-size below the
# recording's size, the error is the first chunk's, in file order, that is
# damaged or whose reading crosses the cap (docs/bad-inputs.md).
read -r after_second within_first <"$TMP/second-damaged.cap"
for cap in "$after_second:a sample's stack trace is missing" "$within_first:larger than --max-size"; do
	rc=0
	"$FGBISECT" share --max-size "${cap%%:*}" --frame A "$TMP/second-damaged.jfr" >/dev/null 2>"$TMP/err" || rc=$?
	check_eq "second-damaged.jfr, --max-size ${cap%%:*}: exit status" "$rc" 3
	CHECKS=$((CHECKS + 1))
	grep -qF -- "${cap#*:}" "$TMP/err" || fail "--max-size ${cap%%:*}: stderr lacks '${cap#*:}': $(head -c 300 "$TMP/err")"
done
finish
