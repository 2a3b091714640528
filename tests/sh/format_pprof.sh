# pprof profiles read natively: async-profiler's own (jfrconv) against the
# collapsed twin of the same samples, and profiles written here from
# collapsed stacks (inlined frames as extra lines of a location, two sample
# types, unsymbolised addresses, labels) read back; damaged ones refused.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
W="$FG_SOURCE_DIR/tests/tools/write_pprof.py"

if [[ -n "${FG_SHARED_FIXTURES:-}" && -d "$FG_SHARED_FIXTURES" ]]; then
	F=$FG_SHARED_FIXTURES/formats
	out=$("$FGBISECT" share --json --frame TransactionalColumnFamily "$F/jfr-v4.5-healthy.pb.gz")
	check_eq "pprof total" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" 5728
	check_eq "pprof samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" 159
	check_eq "pprof format" "$(json_get 'j["profiles"][0]["format"]' <<<"$out")" pprof
	"$FGBISECT" collapse "$F/jfr-v4.5-healthy.pb.gz" | canonical >"$TMP/a"
	canonical <"$F/jfr-v4.5-healthy.collapsed" >"$TMP/b"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/a" "$TMP/b" || fail "pprof collapse differs from its twin: $(diff "$TMP/a" "$TMP/b" | head -3)"
	zcat "$F/jfr-v4.5-healthy.pb.gz" >"$TMP/plain.pb"
	"$FGBISECT" collapse "$TMP/plain.pb" | canonical >"$TMP/a"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/a" "$TMP/b" || fail "uncompressed pprof differs from its twin"
else
	echo "SKIP (part): the shared fixtures are not at '${FG_SHARED_FIXTURES:-}': async-profiler's pprof not checked" >&2
fi

# Inlined functions expand callers first; an address without symbols is named
# after its mapping; the cpu/nanoseconds type is chosen by name.
printf '%s\n' 'a/A.main;a/B.work_[i];a/C.leaf_[i] 3' 'a/A.main;0x4a5b 2' 'a/A.main;a/B.work_[i] 1' 'sys_write_[k] 4' >"$TMP/inl.collapsed"
python3 "$W" "$TMP/inl.collapsed" "$TMP/inl.pb.gz"
check_eq "inlined frames expanded" "$("$FGBISECT" collapse "$TMP/inl.pb.gz" | tr '\n' '|')" \
	"a/A.main;a/B.work 1|a/A.main;a/B.work;a/C.leaf 3|a/A.main;libfake.so+0x4a5b 2|sys_write_[k] 4|"
check_eq "--sample-type cpu" "$("$FGBISECT" collapse --sample-type cpu "$TMP/inl.pb.gz" | head -1)" "a/A.main;a/B.work 10000000"
check_eq "--sample-type cpu/nanoseconds" "$("$FGBISECT" collapse --sample-type cpu/nanoseconds "$TMP/inl.pb.gz" | head -1)" "a/A.main;a/B.work 10000000"
err=$("$FGBISECT" top --sample-type alloc_space "$TMP/inl.pb.gz" 2>&1 >/dev/null) && fail "an absent sample type read"
CHECKS=$((CHECKS + 1))
[[ "$err" == *"no sample type 'alloc_space' in this pprof profile (it has samples/count, cpu/nanoseconds)"* ]] || fail "absent sample type: $err"

# Labels are ignored unless asked: --label KEY puts [KEY=VALUE] under the
# root (as pprof -tagroot), the first key nearest the root, [no KEY] for a
# sample without it; values of a key given twice are joined by ','; numeric
# labels with their unit.  The writer turns the leading [KEY=VALUE] frames of
# a stack into labels.
cat >"$TMP/lab.collapsed" <<'TXT'
[endpoint=/api/jobs];[tenant=a];main;handle;query 5
[endpoint=/api/jobs];[tenant=b];main;handle;query 3
[endpoint=/health];main;handle 2
[tenant=a];main;gc 1
[endpoint=/api/jobs];[endpoint=/v2/jobs];[bytes=#4096 bytes];main;handle 4
[req=#17];main;handle 1
TXT
python3 "$W" --labels "$TMP/lab.collapsed" "$TMP/lab.pb.gz"
check_eq "labels ignored" "$("$FGBISECT" collapse "$TMP/lab.pb.gz" | tr '\n' '|')" "main;gc 1|main;handle 7|main;handle;query 8|"
check_eq "--label endpoint --label tenant" "$("$FGBISECT" collapse --label endpoint --label tenant "$TMP/lab.pb.gz")" \
"[endpoint=/api/jobs,/v2/jobs];[no tenant];main;handle 4
[endpoint=/api/jobs];[tenant=a];main;handle;query 5
[endpoint=/api/jobs];[tenant=b];main;handle;query 3
[endpoint=/health];[no tenant];main;handle 2
[no endpoint];[no tenant];main;handle 1
[no endpoint];[tenant=a];main;gc 1"
check_eq "--label, numeric" "$("$FGBISECT" collapse --label bytes --label req "$TMP/lab.pb.gz" | grep -v '^\[no bytes\];\[no req\]')" \
"[bytes=4096 bytes];[no req];main;handle 4
[no bytes];[req=17];main;handle 1"
# The label every sample of the writer carries, and the streamed analyses.
check_eq "--label thread" "$("$FGBISECT" top --json --label thread "$TMP/lab.pb.gz" | json_get '[(f["frame"], f["samples"]) for f in j["frames"] if "thread" in f["frame"]]')" \
	"[('[thread=main]', 16)]"
check_eq "share of a label" "$("$FGBISECT" share --json --label tenant -f '[tenant=a]' "$TMP/lab.pb.gz" | json_get 'j["profiles"][0]["matches"][0]["samples"]')" 6
err=$("$FGBISECT" top --label nope "$TMP/lab.pb.gz" 2>&1 >/dev/null) && fail "an absent label read"
CHECKS=$((CHECKS + 1))
[[ "$err" == *"no sample of this pprof profile has the label 'nope'"* ]] || fail "absent label: $err"
check_eq "absent label: exit 2" "$(status "$FGBISECT" top --label nope "$TMP/lab.pb.gz")" 2

# A whole profile through the writer: the same stacks back.
python3 "$W" "$FG_SOURCE_DIR/fixtures/zeebe-healthy.collapsed.gz" "$TMP/z.pb.gz"
"$FGBISECT" collapse "$TMP/z.pb.gz" | canonical >"$TMP/a"
zcat "$FG_SOURCE_DIR/fixtures/zeebe-healthy.collapsed.gz" | canonical >"$TMP/b"
CHECKS=$((CHECKS + 1))
cmp -s "$TMP/a" "$TMP/b" || fail "pprof written from zeebe-healthy differs: $(diff "$TMP/a" "$TMP/b" | head -3)"
# Location ids packed, as Go writes them: the same stacks, in the same order.
python3 "$W" --packed "$FG_SOURCE_DIR/fixtures/zeebe-healthy.collapsed.gz" "$TMP/zp.pb.gz"
"$FGBISECT" collapse --unsorted "$TMP/z.pb.gz" >"$TMP/a"
"$FGBISECT" collapse --unsorted "$TMP/zp.pb.gz" >"$TMP/b"
CHECKS=$((CHECKS + 1))
cmp -s "$TMP/a" "$TMP/b" || fail "packed location ids differ from one a field: $(diff "$TMP/a" "$TMP/b" | head -3)"
python3 "$W" --packed --labels "$TMP/inl.collapsed" "$TMP/inlp.pb"
check_eq "packed ids, inlined frames expanded" "$("$FGBISECT" collapse "$TMP/inlp.pb" | tr '\n' '|')" \
	"a/A.main;a/B.work 1|a/A.main;a/B.work;a/C.leaf 3|a/A.main;libfake.so+0x4a5b 2|sys_write_[k] 4|"

# Damaged profiles: exit 3 and a message naming the problem.
python3 "$W" "$TMP/inl.collapsed" "$TMP/inl.pb"
PYTHONPATH="$FG_SOURCE_DIR/tests/tools" python3 - "$TMP" <<'PY'
import os, sys
from write_pprof import field, varint
out = sys.argv[1]
good = open(os.path.join(out, "inl.pb"), "rb").read()
for k in range(1, 10):
    open(os.path.join(out, "cut%d0.pb" % k), "wb").write(good[: len(good) * k // 10])
st = field(1, field(1, 1) + field(2, 2))
strs = b"".join(field(6, x) for x in (b"", b"samples", b"count", b"f", b"g"))
fn = field(5, field(1, 1) + field(2, 3))
loc = field(4, field(1, 1) + field(4, field(1, 1)))
cases = {
    "bad-varint.pb": st + b"\x12" + b"\xff" * 11 + strs,
    "missing-function.pb": st + field(2, field(1, 1) + field(2, 1)) + field(4, field(1, 1) + field(4, field(1, 9))) + strs,
    "missing-location.pb": st + field(2, field(1, 7) + field(2, 1)) + fn + loc + strs,
    "negative.pb": st + field(2, field(1, 1) + field(2, 2**64 - 5)) + fn + loc + strs,
    "values.pb": st + field(2, field(1, 1) + field(2, varint(1) + varint(2))) + fn + loc + strs,
    "zero.pb": st + field(2, field(1, 1) + field(2, 0)) + fn + loc + strs,
    "group.pb": st + b"\x13" + strs,
    # Location ids after the value: one a field, then a packed run.
    "mixed.pb": st + field(2, field(2, 2) + field(1, 1) + field(1, varint(2) + varint(1))) + fn +
                field(5, field(1, 2) + field(2, 4)) + loc + field(4, field(1, 2) + field(4, field(1, 2))) + strs,
}
for name, data in cases.items():
    open(os.path.join(out, name), "wb").write(data)
PY
expect() {
	local what=$1 msg=$2 rc=0
	"$FGBISECT" share --frame f "$TMP/$what" >/dev/null 2>"$TMP/err" || rc=$?
	check_eq "$what: exit status ($(head -c 200 "$TMP/err"))" "$rc" 3
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$msg" "$TMP/err" || fail "$what: stderr lacks '$msg': $(head -c 300 "$TMP/err")"
}
for k in 1 2 3 4 5 6 7 8 9; do
	expect "cut${k}0.pb" "pprof: "
done
expect bad-varint.pb "pprof: malformed protobuf"
expect missing-function.pb "a location names a function that is not in the profile"
expect missing-location.pb "a sample names a location that is not in the profile"
expect negative.pb "a negative sample value"
expect values.pb "a sample's values do not match the sample types"
expect zero.pb "no samples: every sample is 0"
expect group.pb "pprof: malformed protobuf"
check_eq "location ids after the value, one a field and packed" "$("$FGBISECT" collapse "$TMP/mixed.pb")" "f;g;f 2"

# ---- stacks deeper than --max-depth (default 1,000,000 frames) -------------
# A sample of N frames costs some 9 bytes a frame to read however few bytes
# it takes gzip'd (10^8 frames: 97 KB, which took 3.5 s and 882 MB): a
# stack deeper than any profiler writes is refused, in pprof (packed and one
# id a field), collapsed and perf script alike; --max-depth raises it.
python3 - "$TMP" <<'PY'
import gzip, sys
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    return bytes(out + bytes([v]))
def field(n, wire, payload):
    return varint(n << 3) + varint(payload) if wire == 0 else varint(n << 3 | 2) + varint(len(payload)) + payload
def deep(n, packed):
    ids = field(1, 2, b"\x01" * (n - 1) + b"\x02") if packed else (field(1, 0, 1) * (n - 1) + field(1, 0, 2))
    msg = field(1, 2, field(1, 0, 2) + field(2, 0, 3))
    msg += field(2, 2, ids + field(2, 2, varint(1)))
    msg += field(2, 2, field(1, 2, b"\x02") + field(2, 2, varint(3)))
    for i in (1, 2):
        msg += field(4, 2, field(1, 0, i) + field(4, 2, field(1, 0, i)))
    msg += field(5, 2, field(1, 0, 1) + field(2, 0, 1)) + field(5, 2, field(1, 0, 2) + field(2, 0, 4))
    for s in (b"", b"f", b"samples", b"count", b"g"):
        msg += field(6, 2, s)
    return msg
for n in (1000000, 1000001):
    with gzip.open("%s/deep%d.pb.gz" % (sys.argv[1], n), "wb") as f:
        f.write(deep(n, True))
with gzip.open("%s/deep-fields.pb.gz" % sys.argv[1], "wb") as f:
    f.write(deep(1000001, False))
with open("%s/deep.collapsed" % sys.argv[1], "w") as f:
    f.write("a;" * 1000000 + "b 1\n")  # 1,000,001 frames
with open("%s/deep.perf" % sys.argv[1], "w") as f:
    f.write("app 1 1.0: cpu-clock:\n" + "\t1 a (/bin/app)\n" * 1000000 + "\n")  # and the command
PY
check_eq "pprof, 1,000,000 frames: read" "$("$FGBISECT" share --frame g "$TMP/deep1000000.pb.gz" | awk 'NR == 2 {print $2}')" 4
for f in deep1000001.pb.gz deep-fields.pb.gz deep.collapsed deep.perf; do
	expect "$f" "a stack deeper than --max-depth (1000000 frames; profilers write thousands at most)"
done
check_eq "pprof, 1,000,001 frames, --max-depth 1000001: read" \
	"$("$FGBISECT" share --max-depth 1000001 --frame g "$TMP/deep1000001.pb.gz" | awk 'NR == 2 {print $2}')" 4
check_eq "collapsed, 1,000,001 frames, --max-depth 2000000: read" \
	"$("$FGBISECT" top --max-depth 2000000 -n 1 "$TMP/deep.collapsed" | awk 'NR == 3 {print $2}')" 1
finish
