# ctest-labels: slow
# The bad-input matrix of docs/bad-inputs.md, case by case, on share, top and
# collapse: every case ends with the documented status and message, never
# with a signal or 126/127.  Inputs are made here (python3, printf, gzip);
# only the cases marked "shared" need ../shared/fixtures and are skipped
# without it (the rest runs anyway).
source "$(dirname "$0")/../lib.sh"
FX="$FG_SOURCE_DIR/fixtures"
TMP=$(mktemp -d)
trap 'chmod -R u+rwX "$TMP"; rm -rf "$TMP"' EXIT

# expect CASE STATUS MESSAGE ARGS...: runs fgbisect ARGS; checks the status,
# that stderr holds MESSAGE (when not empty), and for a failure that stderr is
# the one error line.  Output in $TMP/out, stderr in $TMP/err.
expect() {
	local what=$1 want=$2 msg=$3 rc=0
	shift 3
	# A reader that blocks (a FIFO) fails the case instead of hanging the test.
	timeout "$(scaled 120)" "$FGBISECT" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	check_eq "$what: exit status ($(head -c 200 "$TMP/err"))" "$rc" "$want"
	if [[ -n $msg ]]; then
		CHECKS=$((CHECKS + 1))
		grep -qF -- "$msg" "$TMP/err" || fail "$what: stderr lacks '$msg': $(head -c 300 "$TMP/err")"
	fi
	if [[ $want -ne 0 && $rc -ne 0 ]]; then
		check_eq "$what: one error line" "$(wc -l <"$TMP/err")" 1
	fi
}

# each3 CASE STATUS MESSAGE FILE: the same for share, top and collapse.
each3() {
	expect "$1 (share)" "$2" "$3" share -f run "$4"
	expect "$1 (top)" "$2" "$3" top "$4"
	expect "$1 (collapse)" "$2" "$3" collapse "$4"
}

# status_of ARGS...: the exit status of fgbisect ARGS, output discarded.
status_of() {
	local rc=0
	"$FGBISECT" "$@" >/dev/null 2>&1 || rc=$?
	echo "$rc"
}

# ---- inputs -----------------------------------------------------------------
zcat "$FX/zeebe-healthy.collapsed.gz" >"$TMP/healthy.collapsed"
gzip -9 -c "$TMP/healthy.collapsed" >"$TMP/healthy.collapsed.gz"
python3 - "$TMP" <<'PY'
import gzip, os, random, sys, zlib
d = sys.argv[1]
def put(name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("latin-1"))

HEAD = ("<!DOCTYPE html>\n<html lang='en'>\n<head><meta charset='utf-8'></head>\n<body>\n"
        "<h1>generated</h1>\n<script>\n\tlet inverted = false;\n</script><script>\n")
FOOT = "\nsearch();\n</script></body></html>\n"
def v3(cpool, calls):
    """A 3.x page: cpool entries as written (prefix byte included), calls."""
    pool = ",\n".join("'" + s + "'" for s in cpool)
    return HEAD + "const cpool = [\n" + pool + "\n];\nunpack(cpool);\n\n" + "".join(c + "\n" for c in calls) + FOOT
def v2(frames):
    return HEAD + "".join("f(%d,%d,%d,%d,'%s')\n" % f for f in frames) + FOOT

def encode(frames):
    """3.x calls for (level, left, width, key) frames in DFS order, as the
    writers do: u() for a first child, n() for a next sibling, else f()."""
    out, prev = [], None
    for level, left, width, key in frames:
        if prev is None:
            out.append("n(%d,%d)" % (key, width))
        elif level == prev[0] + 1 and left == prev[1]:
            out.append("u(%d,%d)" % (key, width))
        elif level == prev[0] and left == prev[1] + prev[2]:
            out.append("n(%d,%d)" % (key, width))
        else:
            out.append("f(%d,%d,%d,%d)" % (key, level, left - prev[1], width))
        prev = (level, left, width)
    return out

# A 3.x page of some size: 400 frames in 4 levels, of several types.
pool = ["all"] + [" a/b/Class%03d.method" % i for i in range(100)] + [" do_syscall_64"]
tree = [(0, 0, 4000, 0 << 3 | 3)]
for i in range(100):
    tree += [(1, 40 * i, 40, (i + 1) << 3 | 1), (2, 40 * i, 30, ((i + 7) % 100 + 1) << 3 | 2),
             (3, 40 * i + 1, 9, 101 << 3 | 5), (2, 40 * i + 30, 10, ((i + 3) % 100 + 1) << 3)]
put("gen3.html", v3(pool, encode(tree)))
frames = [(0, 0, 4000, 3, "all")]
for i in range(100):
    frames += [(1, 40 * i, 40, 1, "a/b/Class%03d.method" % i), (2, 40 * i, 30, 2, "a/b/Inl%03d.m" % i),
               (3, 40 * i + 1, 9, 5, "do_syscall_64")]
put("gen2.html", v2(frames))

# Not profiles.
put("page.html", "<!DOCTYPE html>\n<html><head><title>x</title></head><body><p>a page</p></body></html>\n")
for i in range(5):
    random.seed(i)
    put("random%d.bin" % i, bytes(random.randrange(256) for _ in range(65536)))
put("x.jfr", b"FLR\0\0\2\0\1" + bytes(range(256)) * 4)
pprof = b"\x0a\x0c\x08\x01\x10\x02\x1a\x06cpu\x00ns" + bytes(range(200))
put("x.pb", pprof)
put("x.pb.gz", gzip.compress(pprof))
put("x.svg", '<?xml version="1.0" standalone="no"?>\n<svg version="1.1" width="1200" height="300">\n'
             '<g><title>all (5 samples, 100%)</title></g>\n</svg>\n')

# Gzip: corrupt, trailing garbage, two members, bombs.
gz = bytearray(gzip.compress(open(os.path.join(d, "healthy.collapsed"), "rb").read(), 9))
bad = bytearray(gz); bad[len(bad) // 2] ^= 0x55; bad[len(bad) // 2 + 1] ^= 0xaa
put("corrupt.gz", bytes(bad))
hdr = bytearray(gz); hdr[10] = 0xff  # the first deflate block: type 3, reserved
put("badblock.gz", bytes(hdr))
crc = bytearray(gz); crc[-6] ^= 1
put("badcrc.gz", bytes(crc))
put("garbage.gz", bytes(gz) + b"trailing garbage\n")
put("members.gz", gzip.compress(b"a;b 1\n") + gzip.compress(b"a;c 2\n"))
z = zlib.compressobj(9, zlib.DEFLATED, 31)
bomb = z.compress(b"a;b 1\n" * (1 << 20)) + b"".join(z.compress(b"a;c 1\n" * (1 << 20)) for _ in range(10)) + z.flush()
put("lines-bomb.gz", bomb)       # 66 MB of valid lines
z = zlib.compressobj(9, zlib.DEFLATED, 31)
put("nul-bomb.gz", z.compress(b"a;b 1\n") + b"".join(z.compress(bytes(1 << 20)) for _ in range(256)) + z.flush())

# NUL bytes, CRLF.
put("nul.collapsed", b"a;b 1\na;\0c 2\n")
put("nul.html", v3(["all", " x"], ["n(0,2)", "u(8\0)"]).encode("latin-1"))
put("crlf.collapsed", open(os.path.join(d, "healthy.collapsed"), "rb").read().replace(b"\n", b"\r\n"))

# Long lines, deep stacks.
put("longname.collapsed", "a;" + "N" * (4 << 20) + ";b 3\nb 1\n")
put("longname.html", v3(["all", " " + "N" * (2 << 20)], ["n(0,3)", "u(8)"]))
depth = 100000
put("deep.collapsed", ";".join("f%d" % i for i in range(depth)) + " 5\n" + ";".join("f%d" % i for i in range(depth // 2)) + " 2\n")
put("deep.html", v3(["all", " f0", "!1", "!2"], ["n(0,7)"] + ["u(%d)" % ((1 + i % 3) << 3) for i in range(depth)]))

# Inconsistent HTML.
put("index.html", v3(["all", " x"], ["n(0,5)", "u(800,5)"]))
put("jump.html", v3(["all", " x"], ["n(0,5)", "f(8,2,0,5)"]))
put("wider.html", v3(["all", " x", "!y"], ["n(0,5)", "u(8,4)", "u(16,5)"]))
put("wider2.html", v2([(0, 0, 5, 3, "all"), (1, 1, 5, 1, "x")]))
put("overlap.html", v2([(0, 0, 5, 3, "all"), (1, 0, 3, 1, "x"), (1, 2, 3, 1, "y")]))
put("zero.html", v3(["all", " x"], ["n(0,0)"]))
put("zero.collapsed", "a;b 0\nc 0\n")
put("somezero.collapsed", "a;b 0\nc 2\n")
put("big.html", v3(["all", " x"], ["n(0,99999999999999999999)"]))
put("offset.html", v3(["all", " x"], ["n(0,9999999999999999999)", "f(8,1,9000000000000000000,1)", "f(8,1,9999999999999999999,1)"]))
put("overflow.collapsed", "a;b 18446744073709551616\n")
put("sum.collapsed", "a;b 18446744073709551615\na;c 1\n")
put("max.collapsed", "a;b 18446744073709551615\n")
# Where real tools differ: FlameGraph's scripts accept a tab before the
# count and blanks after it.
put("blanks.collapsed", "a;b\t5\na;c 3  \na;d 2\t\r\n")
put("diffline.html", v3(["all", " x"], ["n(0,5)", "d=3", "u(8,5)"]))
put("afterfooter.html", v3(["all", " x"], ["n(0,5)", "u(8,5)"]) + "n(8,5)\n")
put("afterfooter2.html", v2([(0, 0, 5, 3, "all"), (1, 0, 5, 1, "x")]) + "f(1,0,5,1,'y')\n")

# Names that are not UTF-8: lone continuation, overlong NUL, surrogate, latin-1.
put("latin.collapsed", b"a;caf\xe9 1\na;\x80\xc0\x80;\xed\xa0\x80 2\nb;\xff\xfe\"\\x 3\n")
put("latin.html", v3(["all", " caf\xe9", "!\xff\x80"], ["n(0,3)", "u(8,2)", "u(16)"]).encode("latin-1"))
PY

# ---- not a profile ------------------------------------------------------------
: >"$TMP/empty"
each3 "empty file" 3 "empty file, not a profile" "$TMP/empty"
for i in 0 1 2 3 4; do
	each3 "random bytes $i" 3 "" "$TMP/random$i.bin"
done
each3 "text" 3 "not a collapsed stack" "$FG_SOURCE_DIR/README.md"
each3 "HTML page, no flame graph" 3 "without async-profiler flame graph data" "$TMP/page.html"
each3 "JFR header, garbage after it" 3 "truncated: chunk 1 should hold" "$TMP/x.jfr"
each3 "pprof header, garbage after it" 3 "pprof: malformed protobuf" "$TMP/x.pb"
each3 "gzip pprof, garbage" 3 "pprof: malformed protobuf" "$TMP/x.pb.gz"
each3 "SVG without frames" 3 "an SVG without flame graph frames" "$TMP/x.svg"

# ---- files that cannot be read ------------------------------------------------
each3 "directory" 4 "a directory, not a regular file" "$TMP"
mkfifo "$TMP/fifo"
each3 "FIFO (no writer: must not block)" 4 "a FIFO, not a regular file" "$TMP/fifo"
each3 "character device" 4 "a character device, not a regular file" /dev/null
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/sock"
each3 "socket" 4 "cannot open: No such device or address" "$TMP/sock"
git init -q "$TMP/repo" && cd "$TMP/repo" # run mode wants a repository (and HEAD) for --runs
git -c user.name=t -c user.email=t@example.org commit -q --allow-empty -m x
expect "FIFO as a runs file" 255 "a FIFO, not a regular file" run -f a --threshold 1 --runs "$TMP/fifo"
cd - >/dev/null
expect "FIFO as a rules file" 4 "a FIFO, not a regular file" subsystems --rules "$TMP/fifo" "$FX/tiny-3x.html"
# What a shell's process substitution passes (/dev/fd/N, a connected pipe) still works.
expect "process substitution" 0 "" collapse <(cat "$FX/tiny-3x.html")
each3 "missing file" 4 "No such file or directory" "$TMP/nothing-here"
each3 "read error" 4 "read error" /proc/self/mem
echo "a;b 1" >"$TMP/secret"
chmod 000 "$TMP/secret"
if [[ $(id -u) -ne 0 ]]; then
	each3 "unreadable file" 4 "Permission denied" "$TMP/secret"
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$FGBISECT"; then
	# root reads anything: drop to nobody for this case.
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FGBISECT" top "$TMP/secret" >/dev/null 2>"$TMP/err" || rc=$?
	check_eq "unreadable file (as nobody)" "$rc" 4
	grep -q "Permission denied" "$TMP/err" || fail "unreadable file: $(cat "$TMP/err")"
else
	echo "note: running as root without setpriv or a binary nobody may run: the unreadable-file case is not checked" >&2
fi

# ---- truncation at every 10% --------------------------------------------------
# HTML and gzip: always an error.  (A cut right after the search() line, with
# the closing tags gone, cannot be seen; no 10% cut lands there.)
cut() { head -c "$(($(stat -c %s "$1") * $2 / 10))" "$1"; }
pages=("$FX/tiny-3x.html" "$TMP/gen3.html" "$TMP/gen2.html")
if [[ -d "${FG_SHARED_FIXTURES:-}" ]]; then
	for f in formats/g1-v2.6-healthy.html formats/g2-v2.10-healthy.html formats/g3-v3.0-healthy.html \
		formats/g5-v4.5-healthy.html formats/diff-v4.5.html daily/day01-broker-0-grpc.html; do
		pages+=("$FG_SHARED_FIXTURES/$f")
	done
else
	echo "note: ../shared/fixtures missing: truncation checked on the generated pages only" >&2
fi
for page in "${pages[@]}"; do
	name=$(basename "$page")
	check_eq "$name whole" "$(status_of collapse "$page")" 0
	gzip -c "$page" >"$TMP/page.gz"
	check_eq "$name.gz whole" "$(status_of collapse "$TMP/page.gz")" 0
	for p in 1 2 3 4 5 6 7 8 9; do
		cut "$page" "$p" >"$TMP/cut.html"
		expect "$name cut at $((p * 10))%" 3 "" top "$TMP/cut.html"
		cut "$TMP/page.gz" "$p" >"$TMP/cut.gz"
		expect "$name.gz cut at $((p * 10))%" 3 "" top "$TMP/cut.gz"
		# The same bytes, decompressed and cut: the page is cut.
		gzip -c "$TMP/cut.html" >"$TMP/cutz.gz"
		check_eq "$name cut at $((p * 10))%, gzip" "$(status_of share -f x "$TMP/cutz.gz")" 3
	done
	# Closing tags cut: seen.
	head -c -5 "$page" >"$TMP/cut.html"
	expect "$name without its last 5 bytes" 3 "truncated: the page ends before </html>" collapse "$TMP/cut.html"
	# The last bytes of a gzip stream (CRC, length) are read too.
	head -c -2 "$TMP/page.gz" >"$TMP/cut.gz"
	expect "$name.gz without its last 2 bytes" 3 "truncated gzip data" collapse "$TMP/cut.gz"
done

# Collapsed: a cut inside a line's frames is an error; a cut inside the
# count still reads as a line: a last line without '\n' gets a warning; a
# cut exactly at a line end cannot be seen.
for p in 1 2 3 4 5 6 7 8 9; do
	cut "$TMP/healthy.collapsed" "$p" >"$TMP/cut.collapsed"
	kind=$(python3 -c '
import re, sys
data = open(sys.argv[1], "rb").read()
last = data[data.rfind(b"\n") + 1:]
print("whole" if not last else "count" if re.fullmatch(rb".* [0-9]+", last) else "frames")' "$TMP/cut.collapsed")
	case $kind in
	whole) expect "collapsed cut at $((p * 10))% ($kind)" 0 "" share -f run "$TMP/cut.collapsed" ;;
	count) expect "collapsed cut at $((p * 10))% ($kind)" 0 "may be cut short" share -f run "$TMP/cut.collapsed" ;;
	frames) expect "collapsed cut at $((p * 10))% ($kind)" 3 "not a collapsed stack" share -f run "$TMP/cut.collapsed" ;;
	esac
	cut "$TMP/healthy.collapsed.gz" "$p" >"$TMP/cut.gz"
	expect "collapsed.gz cut at $((p * 10))%" 3 "truncated gzip data" top "$TMP/cut.gz"
done
printf 'a;b 1\na;b;c 12' >"$TMP/cut.collapsed"
expect "cut inside the count" 0 "the last line has no newline: the file may be cut short" collapse "$TMP/cut.collapsed"
check_eq "cut inside the count: output" "$(cat "$TMP/out")" $'a;b 1\na;b;c 12'
printf 'a;b 1\na;b;c' >"$TMP/cut.collapsed"
each3 "cut inside the frames" 3 "truncated: the data ends in the middle of line 2" "$TMP/cut.collapsed"

# ---- gzip ---------------------------------------------------------------------
# Garbage from a corrupt stream may reach the parser before zlib sees the
# damage: the status is 3 either way.
each3 "corrupt gzip" 3 "" "$TMP/corrupt.gz"
each3 "corrupt gzip block" 3 "corrupt gzip data: invalid block type" "$TMP/badblock.gz"
each3 "gzip with a bad CRC" 3 "corrupt gzip data: incorrect data check" "$TMP/badcrc.gz"
each3 "gzip with trailing garbage" 3 "trailing garbage after gzip data" "$TMP/garbage.gz"
expect "two gzip members" 0 "" collapse "$TMP/members.gz"
check_eq "two gzip members: output" "$(cat "$TMP/out")" $'a;b 1\na;c 2'
expect "gzip bomb (lines)" 3 "content is larger than --max-size (16777216 bytes); a gzip bomb?" \
	share --max-size 16M -f a "$TMP/lines-bomb.gz"
check_eq "gzip bomb under a larger --max-size" "$(status_of top --max-size 100M "$TMP/lines-bomb.gz")" 0
# 256 MB of NULs in one line: refused at the first buffer, not after reading it all.
if [[ -x /usr/bin/time ]]; then
	rc=0
	/usr/bin/time -f '%M' -o "$TMP/rss" "$FGBISECT" top "$TMP/nul-bomb.gz" >/dev/null 2>"$TMP/err" || rc=$?
	check_eq "NUL bomb" "$rc" 3
	grep -q "NUL byte in the data at line 2" "$TMP/err" || fail "NUL bomb: $(cat "$TMP/err")"
	CHECKS=$((CHECKS + 1))
	[[ $(tail -1 "$TMP/rss") -lt 65536 ]] || fail "NUL bomb: peak RSS $(tail -1 "$TMP/rss") KB"
else
	each3 "NUL bomb" 3 "NUL byte in the data at line 2" "$TMP/nul-bomb.gz"
fi
# One endless line (200 MB of 'a', no newline) under a large --max-size:
# stopped by --max-line (64 MiB by default) with bounded memory, not grown
# to the size of the bomb.
python3 - "$TMP/line-bomb.gz" <<'PY'
import sys, zlib
z = zlib.compressobj(9, zlib.DEFLATED, 31)
with open(sys.argv[1], "wb") as f:
    f.write(b"".join(z.compress(b"a" * (1 << 20)) for _ in range(200)) + z.flush())
PY
rc=0
python3 - "$TMP/rss" "$FGBISECT" top --max-size 1G "$TMP/line-bomb.gz" >/dev/null 2>"$TMP/err" <<'PY' || rc=$?
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
PY
check_eq "line bomb: status" "$rc" 3
CHECKS=$((CHECKS + 1))
grep -q "line 1 is longer than --max-line (67108864 bytes); a gzip bomb?" "$TMP/err" || fail "line bomb: $(cat "$TMP/err")"
CHECKS=$((CHECKS + 1))
[[ $(cat "$TMP/rss") -lt 300000 ]] || fail "line bomb: peak RSS $(cat "$TMP/rss") KB (want < 300 MB; unbounded it is over 380)"
expect "--max-line below a 4 MB name" 3 "line 1 is longer than --max-line (1048576 bytes)" \
	top --max-line 1M "$TMP/longname.collapsed"
check_eq "--max-line too small" "$(status_of top --max-line 1K "$TMP/longname.collapsed")" 2

# A pipe that delivers the gzip magic one byte at a time.
rc=0
{ head -c 1 "$TMP/members.gz"; sleep 0.2; tail -c +2 "$TMP/members.gz"; } |
	"$FGBISECT" collapse - >"$TMP/out" 2>"$TMP/err" || rc=$?
check_eq "gzip magic split across reads" "$rc:$(cat "$TMP/out")" $'0:a;b 1\na;c 2'

# ---- content ------------------------------------------------------------------
each3 "NUL in collapsed stacks" 3 "NUL byte in the data at line 2" "$TMP/nul.collapsed"
each3 "NUL in an HTML page" 3 "NUL byte in the data" "$TMP/nul.html"
expect "CRLF collapsed" 0 "" collapse "$TMP/crlf.collapsed"
"$FGBISECT" collapse "$TMP/healthy.collapsed" >"$TMP/lf"
CHECKS=$((CHECKS + 1))
cmp -s "$TMP/out" "$TMP/lf" || fail "CRLF collapsed reads differently"
sed 's/$/\r/' "$FX/tiny-3x.html" >"$TMP/crlf.html"
expect "CRLF HTML" 0 "" collapse "$TMP/crlf.html"
check_eq "CRLF HTML: output" "$(cat "$TMP/out")" "$("$FGBISECT" collapse "$FX/tiny-3x.html")"

expect "4 MB frame name (collapsed)" 0 "" top --json "$TMP/longname.collapsed"
check_eq "4 MB frame name: length" "$(json_get 'max(len(f["frame"]) for f in j["frames"])' <"$TMP/out")" $((4 << 20))
expect "2 MB frame name (HTML)" 0 "" collapse "$TMP/longname.html"
check_eq "2 MB frame name (HTML): output" "$(wc -c <"$TMP/out")" $(((2 << 20) + 3))

# 100,000 frames deep, on a 256 KB C stack: nothing recurses per level.
for f in deep.collapsed deep.html; do
	for rev in "" --reversed; do
		rc=0
		(ulimit -s 256 && exec "$FGBISECT" share $rev --json -f f9 "$TMP/$f") >"$TMP/out" 2>"$TMP/err" || rc=$?
		check_eq "$f $rev share" "$rc:$(json_get 'j["profiles"][0]["total"]' <"$TMP/out")" "0:7"
		rc=0
		(ulimit -s 256 && exec "$FGBISECT" top $rev -n 3 "$TMP/$f") >"$TMP/out" 2>"$TMP/err" || rc=$?
		check_eq "$f $rev top" "$rc" 0
		rc=0
		(ulimit -s 256 && exec "$FGBISECT" collapse $rev "$TMP/$f") >"$TMP/out" 2>"$TMP/err" || rc=$?
		check_eq "$f $rev collapse" "$rc:$(awk '{n = split($1, a, ";"); if (n > m) m = n} END {print m}' "$TMP/out")" "0:100000"
	done
done

each3 "string index out of range" 3 "string index out of range" "$TMP/index.html"
each3 "level jump" 3 "level jumps by more than one" "$TMP/jump.html"
each3 "child wider than its parent (3.x)" 3 "frame is wider than its parent" "$TMP/wider.html"
each3 "child wider than its parent (2.x)" 3 "frame is wider than its parent" "$TMP/wider2.html"
each3 "overlapping siblings" 3 "frame overlaps its previous sibling" "$TMP/overlap.html"
each3 "zero samples (HTML)" 3 "no samples: an empty flame graph (its root has width 0)" "$TMP/zero.html"
each3 "zero samples (collapsed)" 3 "no samples: every stack counts 0" "$TMP/zero.collapsed"
expect "some stacks of 0 samples" 0 "" collapse "$TMP/somezero.collapsed"
check_eq "some stacks of 0 samples: output" "$(cat "$TMP/out")" "c 2"
each3 "width beyond 64 bits (HTML)" 3 "malformed frame call" "$TMP/big.html"
each3 "offset beyond 64 bits (HTML)" 3 "offset overflows" "$TMP/offset.html"
each3 "count beyond 64 bits" 3 "line 1: sample count overflows 64 bits" "$TMP/overflow.collapsed"
each3 "counts summing beyond 64 bits" 3 "line 2: sample counts overflow 64 bits" "$TMP/sum.collapsed"
expect "count of 2^64-1" 0 "" share --json -f b "$TMP/max.collapsed"
check_eq "count of 2^64-1: total" "$(json_get 'j["profiles"][0]["total"]' <"$TMP/out")" 18446744073709551615
# Pooled across profiles, the same counts would wrap: refused, not a share of 643%.
expect "pooled counts beyond 64 bits (diff)" 3 "the pooled sample counts of the base profiles overflow 64 bits" \
	diff --json "$TMP/max.collapsed" "$TMP/max.collapsed" -- "$TMP/max.collapsed"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/out" || fail "pooled overflow: --json output is not JSON"
CHECKS=$((CHECKS + 1))

# ---- terminal output: control characters escaped, UTF-8 never cut -----------------
printf 'a;\033]0;pwned\007b\033[2J 5\nc\302\233x;d 1\n' >"$TMP/ctl.collapsed"
for c in "top" "share -f pwned" "collapse"; do
	"$FGBISECT" $c "$TMP/ctl.collapsed" >"$TMP/out" 2>&1 || true
done
"$FGBISECT" top "$TMP/ctl.collapsed" >"$TMP/out" 2>&1
CHECKS=$((CHECKS + 1))
! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$TMP/out" || fail "top printed a control character: $(cat -v "$TMP/out")"
CHECKS=$((CHECKS + 1))
grep -qF 'pwned\x07b\x1b[2J' "$TMP/out" || fail "top: the escaped name is not shown: $(cat -v "$TMP/out")"
expect "control characters in a file name" 4 "No such file or directory" top "$TMP/$(printf 'x\033[2Jy')"
CHECKS=$((CHECKS + 1))
! LC_ALL=C grep -q $'\x1b' "$TMP/err" || fail "an error message printed a raw ESC: $(cat -v "$TMP/err")"
# Commit subjects and paths come from a repository: hotfiles, days and bisect
# print them escaped too.
if command -v git >/dev/null; then
	repo="$TMP/ctlrepo"
	mkdir -p "$repo/src/main/java/a"
	git -C "$repo" init -q
	printf 'package a;\nclass B {\n  void m() {\n  }\n}\n' >"$repo/src/main/java/a/B.java"
	git -C "$repo" add -A
	git -C "$repo" -c user.name=t -c user.email=t@e commit -q -m $'first'
	printf '// x\n' >>"$repo/src/main/java/a/B.java"
	git -C "$repo" -c user.name=t -c user.email=t@e commit -qam $'evil \033]0;pwned\007 \033[2J subject'
	"$FGBISECT" hotfiles --repo "$repo" --good HEAD~1 --bad HEAD --frame a/B.m >"$TMP/out" 2>&1 ||
		fail "hotfiles on a repository with a control character in a subject: exit $?"
	CHECKS=$((CHECKS + 1))
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/out" ||
		fail "hotfiles printed a control character: $(cat -v "$TMP/out")"
	CHECKS=$((CHECKS + 1))
	grep -qF 'evil \x1b]0;pwned\x07 \x1b[2J subject' "$TMP/out" ||
		fail "hotfiles: the escaped subject is not shown: $(cat -v "$TMP/out")"
else
	echo "SKIP: git not found: escaped commit subjects not tested" >&2
fi
long=$(python3 -c 'print("\u00e9" * 700)')
expect "a long UTF-8 file name" 4 "" top "$TMP/$long"
python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8", "strict")' "$TMP/err" ||
	fail "a truncated message split a UTF-8 character"
CHECKS=$((CHECKS + 1))

# ---- where real tools differ --------------------------------------------------
expect "tab before the count, blanks after it" 0 "" collapse "$TMP/blanks.collapsed"
check_eq "tab and blanks: output" "$(cat "$TMP/out")" $'a;b 5\na;c 3\na;d 2'
each3 "d= line in a graph that is not differential" 3 \
	"line 16: a d= line in a graph that is not differential (maxdiff < 0)" "$TMP/diffline.html"
each3 "frames after the footer (3.x)" 3 "frame data after the page footer" "$TMP/afterfooter.html"
each3 "frames after the footer (2.x)" 3 "frame data after the page footer" "$TMP/afterfooter2.html"

# Names that are not UTF-8 work; JSON stays valid UTF-8; collapse keeps the bytes.
for f in latin.collapsed latin.html; do
	for c in "top --json -n 0" "share --json -f caf -f x"; do
		expect "$f $c" 0 "" $c "$TMP/$f"
		python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))' \
			"$TMP/out" || fail "$f $c: not valid UTF-8 JSON"
		CHECKS=$((CHECKS + 1))
	done
done
"$FGBISECT" collapse "$TMP/latin.collapsed" >"$TMP/out"
check_eq "non-UTF-8 names kept byte for byte" "$(LC_ALL=C sort "$TMP/out" | od -An -c | tr -s ' \n' ' ')" \
	"$(LC_ALL=C sort "$TMP/latin.collapsed" | od -An -c | tr -s ' \n' ' ')"
# An error naming a file whose name is not UTF-8: the JSON error is valid.
cp "$TMP/nul.collapsed" "$TMP/caf"$'\xe9'
expect "error on a non-UTF-8 file name, --json" 3 "NUL byte" top --json "$TMP/caf"$'\xe9'
python3 -c 'import json, sys; print(json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))["error"]["code"])' \
	"$TMP/out" >"$TMP/code" || fail "JSON error: not valid UTF-8 JSON"
check_eq "JSON error code" "$(cat "$TMP/code")" invalid-profile

# ---- closed pipes ---------------------------------------------------------------
# Output larger than a pipe buffer, read 10 bytes of: an error status or
# success, never a signal, never 126/127.
profiles=()
for i in $(seq 100); do profiles+=("$TMP/healthy.collapsed"); done
frames=()
for l in a c e i l n o r s t; do frames+=(-f "$l"); done
for args in "share ${frames[*]} ${profiles[*]}" "share --json ${frames[*]} ${profiles[*]}" \
	"top -n 0 $TMP/healthy.collapsed" "top --json -n 0 $TMP/healthy.collapsed" \
	"collapse $TMP/healthy.collapsed" "collapse --annotate $TMP/deep.collapsed"; do
	set +e
	# shellcheck disable=SC2086
	"$FGBISECT" $args 2>"$TMP/err" | head -c 10 >/dev/null
	rc=${PIPESTATUS[0]}
	set -e
	CHECKS=$((CHECKS + 1))
	[[ $rc -le 1 ]] || fail "${args:0:40}... | head -c 10: exit $rc"
	CHECKS=$((CHECKS + 1))
	[[ ! -s "$TMP/err" ]] || fail "${args:0:40}... | head -c 10: stderr $(head -c 200 "$TMP/err")"
done

finish
