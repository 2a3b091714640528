# Profiles inside archives (issue #31): zip, tar.gz and a gzip'd member read
# as the profile itself, from a path, stdin and a URL through the cache;
# ARCHIVE#MEMBER and globs; several profiles an error that lists them; a zip
# bomb and an endless line stopped by --max-size / --max-line in bounded
# memory; damaged and nested archives; runs scan over artifact zips; and a
# local profile that is no archive never maps libarchive.  Archives are made
# by Python's zipfile and tarfile, the expected shares computed by Python
# from the collapsed stacks.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
stop_server() { [[ -n ${SERVER_PID:-} ]] && kill "$SERVER_PID" 2>/dev/null; wait 2>/dev/null || true; }
cd "$TMP"
export XDG_CACHE_HOME=$TMP/cache
fx=$FG_SOURCE_DIR/fixtures
gunzip -c "$fx/zeebe-regressed.collapsed.gz" >regressed.collapsed
gunzip -c "$fx/zeebe-healthy.collapsed.gz" >healthy.collapsed
python3 - <<'PY'
import gzip, io, tarfile, zipfile
reg, hea = open("regressed.collapsed", "rb").read(), open("healthy.collapsed", "rb").read()
with zipfile.ZipFile("one.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("run/", b"")                       # a folder: passed over
    z.writestr("run/.meta", b"x")                 # hidden: passed over
    z.writestr("run/regressed.collapsed", reg)
with zipfile.ZipFile("stored.zip", "w", zipfile.ZIP_STORED) as z:
    z.writestr("regressed.collapsed.gz", gzip.compress(reg))
with tarfile.open("one.tar.gz", "w:gz") as t:
    info = tarfile.TarInfo("regressed.collapsed"); info.size = len(reg)
    t.addfile(info, io.BytesIO(reg))
with zipfile.ZipFile("two.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("a/regressed.collapsed", reg)
    z.writestr("b/healthy.collapsed", hea)
    z.writestr("empty.collapsed", b"")
with zipfile.ZipFile("nested.zip", "w") as z:
    z.write("one.zip")
with zipfile.ZipFile("none.zip", "w") as z:
    z.writestr("dir/", b"")
# A member that is not a profile, whole (its line ends): a syntax error of
# the member, never "truncated" (the zip's own bytes have no lines).
with zipfile.ZipFile("bad.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("p.txt", b"i\n")
# 64 MiB of one stack, about 70 KB deflated; and one 64 MiB line.
with zipfile.ZipFile("bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("bomb.collapsed", "w") as f:
        block = b"a;b;c 1\n" * 8192
        for _ in range(1024):
            f.write(block)
with zipfile.ZipFile("line.zip", "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("line.collapsed", "w") as f:
        for _ in range(1024):
            f.write(b"a" * 65536)
# Damaged: a byte of the deflated data flipped, and cut short.
raw = bytearray(open("one.zip", "rb").read())
raw[len(raw) // 2] ^= 0xFF
open("damaged.zip", "wb").write(raw)
open("short.zip", "wb").write(open("one.zip", "rb").read()[:400])
PY

# The share of TransactionalColumnFamily computed from the collapsed stacks.
truth() {
	python3 -c '
import sys
total = hit = 0
for line in open(sys.argv[1], encoding="utf-8"):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    total += int(n)
    hit += int(n) if "TransactionalColumnFamily" in stack else 0
print("%d %d %.4f" % (total, hit, 100.0 * hit / total))' "$1"
}
want=$(truth regressed.collapsed)
want_healthy=$(truth healthy.collapsed)
got() { # got SOURCE [options]: "total samples share" of share --json
	local src=$1
	shift
	"$FGBISECT" share --json -f TransactionalColumnFamily "$@" "$src" 2>"$TMP/err" |
		json_get '"%d %d %.4f" % (j["profiles"][0]["total"], j["profiles"][0]["matches"][0]["samples"], j["profiles"][0]["matches"][0]["share"])'
}
# expect NAME CODE MESSAGE CMD...: the exit status and the whole of stderr.
expect() {
	local name=$1 code=$2 msg=$3
	shift 3
	set +e
	"$@" >/dev/null 2>"$TMP/err"
	local rc=$?
	set -e
	check_eq "$name: status" "$rc" "$code"
	check_eq "$name: message" "$(cat "$TMP/err")" "$msg"
}
share=("$FGBISECT" share -f TransactionalColumnFamily)

check_eq "plain collapsed" "$(got regressed.collapsed)" "$want"
check_eq "zip, member in a folder" "$(got one.zip)" "$want"
check_eq "stored zip, gzip'd member" "$(got stored.zip)" "$want"
check_eq "tar.gz" "$(got one.tar.gz)" "$want"
check_eq "zip from stdin" "$(got - <one.zip)" "$want"
check_eq "named member" "$(got 'two.zip#a/regressed.collapsed')" "$want"
check_eq "member by its last component" "$(got 'two.zip#healthy.collapsed')" "$want_healthy"
check_eq "member by a glob" "$(got 'two.zip#*regr*')" "$want"
check_eq "--reversed reads the member" "$("$FGBISECT" top --reversed -n 1 one.zip | tail -1)" \
	"$("$FGBISECT" top --reversed -n 1 regressed.collapsed | tail -1)"

expect "several profiles" 2 \
	"fgbisect: two.zip: the archive holds 2 profiles: a/regressed.collapsed, b/healthy.collapsed; name one as ARCHIVE#MEMBER (a name or a glob)" \
	"${share[@]}" two.zip
expect "several matches" 2 \
	"fgbisect: two.zip: the archive holds 2 profiles that match '*.collapsed': a/regressed.collapsed, b/healthy.collapsed; name one as ARCHIVE#MEMBER (a name or a glob)" \
	"${share[@]}" 'two.zip#*.collapsed'
expect "no match" 3 \
	"fgbisect: two.zip: no member of the archive matches 'nope'; it holds: a/regressed.collapsed, b/healthy.collapsed" \
	"${share[@]}" 'two.zip#nope'
expect "a member that is not a profile" 3 \
	"fgbisect: bad.zip#p.txt: line 1: not a collapsed stack (expected 'frame;frame;... COUNT')" "${share[@]}" bad.zip
expect "no profile" 3 "fgbisect: none.zip: the archive holds no profile (no file in it)" "${share[@]}" none.zip
expect "member of no archive" 2 \
	"fgbisect: regressed.collapsed: not an archive (zip, tar, tar.gz), so it has no member 'x'" \
	"${share[@]}" 'regressed.collapsed#x'
expect "nested" 3 \
	"fgbisect: nested.zip#one.zip: an archive inside an archive: not read; unpack the outer one first" \
	"${share[@]}" nested.zip
expect "damaged" 3 \
	"fgbisect: damaged.zip#run/regressed.collapsed: damaged archive member: ZIP bad CRC: 0x4a88cd3a should be 0x2c7723b8" \
	"${share[@]}" damaged.zip
expect "cut short" 3 "fgbisect: short.zip#run/regressed.collapsed: damaged archive member: ZIP decompression failed (-5)" \
	"${share[@]}" short.zip

# Bombs: stopped at the cap, in memory that does not grow with the member.
set +e
/usr/bin/env time -f %M -o mem "${share[@]}" --max-size 16M bomb.zip >/dev/null 2>err
rc=$?
set -e
check_eq "zip bomb" "$rc:$(cat err)" \
	"3:fgbisect: bomb.zip#bomb.collapsed: content is larger than --max-size (16777216 bytes); a zip bomb?"
CHECKS=$((CHECKS + 1))
[[ $(tail -1 mem) -lt 65536 ]] || fail "zip bomb: peak $(tail -1 mem) KB, not under 64 MB"
expect "endless line" 3 \
	"fgbisect: line.zip#line.collapsed: line 1 is longer than --max-line (1048576 bytes); a zip bomb?" \
	"${share[@]}" --max-line 1M line.zip

# libarchive is mapped for an archive only.
libs() { LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -o 'file=[^ ]*libarchive[^ ]*' | sort -u | wc -l; }
check_eq "a plain profile maps no libarchive" "$(libs "${share[@]}" regressed.collapsed)" 0
check_eq "a zip maps libarchive" "$(libs "${share[@]}" one.zip)" 1

# A URL through the cache: one download, then none; the member named by the
# fragment (never sent: the same cache entry).
mkdir docroot
cp one.zip two.zip docroot/
python3 "$FG_SOURCE_DIR/tests/tools/fetch_server.py" docroot >port &
SERVER_PID=$!
for _ in $(seq 100); do [[ -s port ]] && break; sleep 0.05; done
base=http://127.0.0.1:$(cat port)
count() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' \
	"$base/_count?path=$1"; }
check_eq "URL zip" "$(got "$base/files/one.zip")" "$want"
check_eq "URL zip again" "$(got "$base/files/one.zip")" "$want"
check_eq "URL zip: downloaded once" "$(count /files/one.zip)" 1
check_eq "URL#member" "$(got "$base/files/two.zip#healthy.collapsed")" "$want_healthy"
check_eq "URL#other member, cached" "$(got "$base/files/two.zip#a/regressed.collapsed")" "$want"
check_eq "URL#member: downloaded once" "$(count /files/two.zip)" 1
expect "URL several profiles" 2 \
	"fgbisect: $base/files/two.zip: the archive holds 2 profiles: a/regressed.collapsed, b/healthy.collapsed; name one as ARCHIVE#MEMBER (a name or a glob)" \
	"${share[@]}" "$base/files/two.zip"

# runs scan: artifact zips as GitHub serves them, read back by days.
mkdir art
python3 - <<'PY'
import zipfile
for day, sha, src in (("2026-08-30", "abc1234", "healthy"), ("2026-08-31", "abd1235", "regressed")):
    for pod in (0, 1):
        d = day.replace("-", "")
        art = f"art/flamegraph-medic-daily-{day}-{sha}-test-grpc-cpu-camunda-{pod}-{d}.zip"
        with zipfile.ZipFile(art, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(f"{src}.collapsed", f"c8-medic-daily-{day}-{sha}-test-grpc-camunda-{pod}-flamegraph-grpc-cpu-{d}.html")
with zipfile.ZipFile("art/flamegraph-medic-daily-2026-09-01-abe1236-test-grpc-cpu-camunda-0-20260901.zip", "w") as z:
    z.writestr("notes.txt", "no flame graph")
open("art/junk.zip", "wb").write(b"PK\3\4 not a zip")
PY
"$FGBISECT" runs scan art -o runs.txt 2>err
check_eq "runs scan: runs" "$(awk '!/^#/ {print $1, $2, $3, $4, $5}' runs.txt | tr '\n' ,)" \
	"2026-08-30 abc1234 camunda-0 grpc cpu,2026-08-30 abc1234 camunda-1 grpc cpu,2026-08-31 abd1235 camunda-0 grpc cpu,2026-08-31 abd1235 camunda-1 grpc cpu,"
check_eq "runs scan: location" "$(awk '!/^#/ {print $6; exit}' runs.txt)" \
	"art/flamegraph-medic-daily-2026-08-30-abc1234-test-grpc-cpu-camunda-0-20260830.zip#c8-medic-daily-2026-08-30-abc1234-test-grpc-camunda-0-flamegraph-grpc-cpu-20260830.html"
check_eq "runs scan: skipped" "$(cat err)" \
	"fgbisect: warning: art/flamegraph-medic-daily-2026-09-01-abe1236-test-grpc-cpu-camunda-0-20260901.zip: skipped: an archive without a flame graph (.html, .html.gz) in it
fgbisect: warning: art/junk.zip: skipped: damaged archive: Truncated ZIP file header"
check_eq "share of a scanned location" "$(got "$(awk '!/^#/ {print $6; exit}' runs.txt)")" "$want_healthy"
"$FGBISECT" days --runs runs.txt -f TransactionalColumnFamily --threshold 5 --json >days.json 2>err || true
check_eq "days over the zips" "$(json_get '" ".join(r["commit"] + ":" + r["verdict"] for r in j["tested"])' <days.json)" \
	"abc1234:fast abd1235:slow"
finish
