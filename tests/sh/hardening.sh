# ctest-labels: slow
# Hardening (issue #15), at the command level: credentials scoped to their
# origin, pathological regular expressions refused before compiling, out of
# memory in run mode a skip.  Real HTTP over loopback (fetch_server.py),
# real git repositories.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
source "$FG_SOURCE_DIR/tests/bisect_lib.sh"
make_world 4 3
cd "$TMP/repo"

# expect NAME CODE PATTERN CMD...: status and a stderr pattern.
expect() {
	local name=$1 code=$2 pat=$3
	shift 3
	set +e
	timeout "$(scaled 120)" "$@" >"$TMP/out" 2>"$TMP/why"
	local rc=$?
	set -e
	check_eq "$name" "$rc" "$code"
	if [[ -n $pat ]]; then
		CHECKS=$((CHECKS + 1))
		grep -q -- "$pat" "$TMP/why" || fail "$name: stderr lacks '$pat': $(head -c 400 "$TMP/why")"
	fi
}
run=("$FGBISECT" --frame TransactionalColumnFamily --threshold 4)
headers_at() {
	python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
		"http://127.0.0.1:$PORT/_headers?host=$1"
}

# ---- credentials go to the runs file's origin only ------------------------------
# The runs file is served by 127.0.0.1 and lists its profiles on "localhost"
# (the same server under another name: another origin).
sed "s#http://127.0.0.1:$PORT/#http://localhost:$PORT/#" "$TMP/runs.txt" >"$TMP/docroot/runs-elsewhere.txt"
cp "$TMP/runs.txt" "$TMP/docroot/runs-here.txt"
RUNS_ELSEWHERE="http://127.0.0.1:$PORT/files/runs-elsewhere.txt"
expect "header, runs file elsewhere: still judged" 1 ": slow" \
	"${run[@]}" --no-cache --header 'X-Api-Key: T0KEN-ELSEWHERE' --runs "$RUNS_ELSEWHERE"
CHECKS=$((CHECKS + 1))
headers_at 127.0.0.1 | grep -q "T0KEN-ELSEWHERE" || fail "the runs file's own host did not get the header"
CHECKS=$((CHECKS + 1))
! headers_at localhost | grep -q "T0KEN-ELSEWHERE" || fail "the header went to a host the runs file lists"
expect "--header-host widens it" 1 ": slow" \
	"${run[@]}" --no-cache --header 'X-Api-Key: T0KEN-WIDENED' --header-host localhost --runs "$RUNS_ELSEWHERE"
CHECKS=$((CHECKS + 1))
headers_at localhost | grep -q "T0KEN-WIDENED" || fail "--header-host localhost: no header at localhost"
# Profiles on the runs file's own origin get it (relative and absolute locations).
expect "header, same origin" 1 ": slow" \
	"${run[@]}" --no-cache --header 'X-Api-Key: T0KEN-HERE' --runs "http://127.0.0.1:$PORT/files/runs-here.txt"
check_eq "header, same origin: requests with it" \
	"$(headers_at 127.0.0.1 | grep -c "T0KEN-HERE")" 3
# A --profile template: its own origin only, not where it redirects.
expect "header, --profile template" 1 ": slow" \
	"${run[@]}" --no-cache --header 'X-Api-Key: T0KEN-TEMPLATE' \
	--profile "http://127.0.0.1:$PORT/elsewhere/{date}-broker-1.collapsed.gz"
CHECKS=$((CHECKS + 1))
headers_at 127.0.0.1 | grep -q "T0KEN-TEMPLATE" || fail "the template's host did not get the header"
CHECKS=$((CHECKS + 1))
! headers_at localhost | grep -q "T0KEN-TEMPLATE" || fail "the header followed a redirect to another host"
check_eq "--header-host malformed" "$(status "${run[@]}" --header-host 'a/b' --runs "$RUNS_ELSEWHERE")" 255

# ---- a planted secret appears nowhere ---------------------------------------------
# In every output (stdout, stderr, --json, the SVG), every file written (the
# cache, the repository) and the command lines of every process while the
# bisection runs (git bisect run, its shell, fgbisect run).
SECRET_H=S3CR3T-HDR-4711 SECRET_P=PASSW0RD-4711
python3 - "$TMP/cmdlines" "$$" <<'PY' &
import os, sys, time
# The command line of every process this test started (a descendant of its
# shell: another test on the machine may plant the same secrets), sampled
# every few milliseconds until killed.
test_shell = int(sys.argv[2])
def parent(pid):
    with open("/proc/%d/stat" % pid, "rb") as f:
        stat = f.read()
    return int(stat[stat.rindex(b")") + 2:].split()[1])
with open(sys.argv[1], "w") as out:
    while True:
        parents = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    parents[int(name)] = parent(int(name))
                except (OSError, ValueError, IndexError):
                    pass
        for pid in parents:
            p, seen = pid, 0
            while p in parents and p != test_shell and seen < 64:
                p, seen = parents[p], seen + 1
            if p != test_shell:
                continue
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    line = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if line:
                out.write(line + "\n")
        out.flush()
        time.sleep(0.005)
PY
WATCH=$!
U="http://someone:$SECRET_P@127.0.0.1:$PORT/files"
set +e
"$FGBISECT" bisect --good "${COMMITS[0]}" --bad "${COMMITS[3]}" --frame TransactionalColumnFamily --threshold 4 \
	--header "X-Api-Key: $SECRET_H" --profile "$U/{date}-broker-1.collapsed.gz" >"$TMP/s.bisect.out" 2>"$TMP/s.bisect.err"
check_eq "secret: bisect found the commit" "$?:$(grep -c "first slow commit: $K_ID" "$TMP/s.bisect.out")" "0:1"
"$FGBISECT" bisect --json --good "${COMMITS[0]}" --bad "${COMMITS[3]}" --frame TransactionalColumnFamily \
	--threshold 4 --header "X-Api-Key: $SECRET_H" --runs "http://someone:$SECRET_P@127.0.0.1:$PORT/files/runs-here.txt" \
	>"$TMP/s.bisect2.out" 2>"$TMP/s.bisect2.err"
check_eq "secret: bisect with a runs URL" "$?" 0
P1="$U/2026-11-01-broker-0.collapsed.gz" P2="$U/2026-11-04-broker-0.collapsed.gz" P3="$U/2026-11-04-broker-1.collapsed.gz"
for c in "share -f Transactional" "share --json -f Transactional" "top -n 3" "top --json -n 3" "protocol" \
	"protocol --json" "subsystems" "subsystems --json" "collapse"; do
	"$FGBISECT" $c --header "X-Api-Key: $SECRET_H" "$P1" >"$TMP/s.$RANDOM.out" 2>&1
done
"$FGBISECT" diff --header "X-Api-Key: $SECRET_H" --svg "$TMP/s.diff.svg" "$P1" "$P2" >"$TMP/s.diff.out" 2>&1
"$FGBISECT" diff --json --header "X-Api-Key: $SECRET_H" "$P1" -- "$P2" "$P3" >"$TMP/s.diffj.out" 2>&1
"$FGBISECT" diff --peers --header "X-Api-Key: $SECRET_H" "$P1" "$P2" "$P3" >"$TMP/s.peers.out" 2>&1
"$FGBISECT" diff --peers --json --header "X-Api-Key: $SECRET_H" "$P1" "$P2" "$P3" >"$TMP/s.peersj.out" 2>&1
"$FGBISECT" share -f x --header "X-Api-Key: $SECRET_H" "http://someone:$SECRET_P@127.0.0.1:$PORT/status/404" \
	>"$TMP/s.err.out" 2>&1
set -e
kill "$WATCH" 2>/dev/null || fail "secret: the command-line watcher died early"
wait "$WATCH" 2>/dev/null || true
CHECKS=$((CHECKS + 1))
[[ $(wc -l <"$TMP/cmdlines") -gt 100 ]] || fail "secret: the command-line watcher saw too little"
CHECKS=$((CHECKS + 1))
grep -q "git bisect run\|bisect run" "$TMP/cmdlines" || fail "secret: the watcher never saw git bisect run"
# The commands the test itself typed hold the secrets, of course: only
# what fgbisect started is checked.
grep -v -E "^$FGBISECT (bisect|share|top|protocol|subsystems|collapse|diff) " "$TMP/cmdlines" >"$TMP/s.children" || true
for f in "$TMP"/s.* $(find "$TMP/cache" "$TMP/repo" -type f 2>/dev/null); do
	CHECKS=$((CHECKS + 1))
	if zcat -f "$f" 2>/dev/null | grep -q -e "$SECRET_H" -e "$SECRET_P" || grep -q -e "$SECRET_H" -e "$SECRET_P" "$f"; then
		fail "secret: found in $f: $(zcat -f "$f" | grep -o -m1 ".\{0,60\}\($SECRET_H\|$SECRET_P\).\{0,20\}")"
	fi
done
# ... while the server got them where they belong.
CHECKS=$((CHECKS + 1))
headers_at 127.0.0.1 | grep -q "$SECRET_H" || fail "secret: the header never reached the server"
CHECKS=$((CHECKS + 1))
grep -q "someone@127.0.0.1\|127.0.0.1:$PORT/files/2026" "$TMP/s.diff.out" || fail "secret: diff does not name its sources"

# ---- a runs file by URL is never read stale from the cache ---------------------------
# The same URL, twice, with a day added in between: the second call sees it.
cp "$TMP/runs.txt" "$TMP/docroot/runs-growing.txt"
grep -v "2026-11-04" "$TMP/runs.txt" >"$TMP/docroot/runs-growing.txt"
expect "runs file, before the new day" 125 "no run for this commit" \
	"${run[@]}" --runs "http://127.0.0.1:$PORT/files/runs-growing.txt"
cp "$TMP/runs.txt" "$TMP/docroot/runs-growing.txt"
expect "runs file, after the new day: read afresh" 1 ": slow" \
	"${run[@]}" --runs "http://127.0.0.1:$PORT/files/runs-growing.txt"

# ---- regular expressions that would take minutes to compile -----------------------
for re in 'x{0,32767}' 'a{256}' '((a{0,40}){0,40}){0,40}' "$(printf '(%.0s' {1..40})a$(printf ')%.0s' {1..40})"; do
	t0=$SECONDS
	expect "regex $re: refused" 2 "regular expression" "$FGBISECT" share -E -f "$re" "$FX/tiny-3x.html"
	CHECKS=$((CHECKS + 1))
	[[ $((SECONDS - t0)) -lt 5 ]] || fail "regex $re: took $((SECONDS - t0)) s"
done
expect "regex: bound above 255" 2 "a repetition count above 255 is refused" \
	"$FGBISECT" share -E -f 'x{0,32767}' "$FX/tiny-3x.html"
expect "regex: nested bounds" 2 "too large once its repetitions are expanded" \
	"$FGBISECT" share -E -f '((a{0,40}){0,40}){0,40}' "$FX/tiny-3x.html"
expect "regex in run mode: a configuration error" 255 "a repetition count above 255" \
	"$FGBISECT" run -E -f 'x{0,32767}' --threshold 4 --runs "$TMP/runs.txt"
for re in 'a{2,3}' '((a{0,20}){0,20}){0,20}' '[{]x{1,255}' 'Transactional(Column)+Family'; do
	expect "regex $re: accepted" 0 "" "$FGBISECT" share -E -f "$re" "$FX/tiny-3x.html"
done

# ---- sums that cannot overflow: a run whose two profiles hold 2^64-1 samples each ----
printf 'a;TransactionalColumnFamily 18446744073709551615\n' >"$TMP/max.collapsed"
HEAD_ID=$(git rev-parse HEAD)
printf '2026-11-04 %s n0 grpc cpu %s\n2026-11-04 %s n1 grpc cpu %s\n' \
	"$HEAD_ID" "$TMP/max.collapsed" "$HEAD_ID" "$TMP/max.collapsed" >"$TMP/max-runs.txt"
expect "pooled overflow in run mode: skip" 125 "pooled sample counts of this build would overflow 64 bits" \
	"${run[@]}" --json --min-samples 1 --runs "$TMP/max-runs.txt"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/out" 2>/dev/null ||
	fail "pooled overflow in run mode: the --json output is not JSON: $(head -c 300 "$TMP/out")"
CHECKS=$((CHECKS + 1))

# ---- out of memory in run mode is a skip (125), never 255 ---------------------------
# One 300 MB line, allowed by --max-line, under a 400 MB address-space limit.
python3 - "$TMP/docroot/huge-line.collapsed.gz" <<'PY'
import sys, zlib
z = zlib.compressobj(9, zlib.DEFLATED, 31)
with open(sys.argv[1], "wb") as f:
    f.write(b"".join(z.compress(b"a" * (1 << 20)) for _ in range(300)) + z.flush() )
PY
if (ulimit -v 400000 && exec "$FGBISECT" --version) >/dev/null 2>&1; then
	expect "out of memory: skip" 125 "out of memory" \
		bash -c 'ulimit -v 400000; exec "$@"' - "$FGBISECT" run --frame a --threshold 4 --max-line 1G \
		--profile "$TMP/docroot/huge-line.collapsed.gz"
else
	echo "note: the binary cannot run under ulimit -v (a sanitizer build): out of memory not tested" >&2
fi

# ---- a runs file fetched over HTTP may not name local files -------------------------
# (as a web page's file:// links are refused: a local file, /proc/self/environ
# or another build's profile, could decide the verdict).  --runs-local reads
# them; a runs file that is itself local may name anything.
sed -E "s#http://127.0.0.1:$PORT/files/#file://$TMP/docroot/#" "$TMP/runs.txt" >"$TMP/docroot/runs-local.txt"
expect "runs file over HTTP naming file:// locations: abort" 255 \
	"runs-local.txt:2: a runs file fetched over HTTP names a local file ('file://$TMP/docroot/" \
	"${run[@]}" --no-cache --runs "http://127.0.0.1:$PORT/files/runs-local.txt"
expect "runs file over HTTP naming file:// locations, --runs-local: judged" 1 ": slow" \
	"${run[@]}" --no-cache --runs-local --runs "http://127.0.0.1:$PORT/files/runs-local.txt"
expect "local runs file naming file:// locations: judged" 1 ": slow" \
	"${run[@]}" --no-cache --runs "$TMP/docroot/runs-local.txt"
# A path in a runs file fetched over HTTP is on the runs file's host.
sed -E "s#http://127.0.0.1:$PORT/files/#/files/#" "$TMP/runs.txt" >"$TMP/docroot/runs-abs.txt"
expect "runs file over HTTP naming /paths: on its host" 1 ": slow" \
	"${run[@]}" --no-cache --runs "http://127.0.0.1:$PORT/files/runs-abs.txt"

# ---- a cache entry rewritten in place while it is read ------------------------------
# fgbisect renames its entries into place; another program may truncate one
# and write it again.  A hit is read from a copy of the entry, and a copy
# caught half rewritten is a miss (fetched again): 40 reads while a loop
# rewrites the entry never fail (before the copy: 6 to 9 of 50 were
# "empty file, not a profile").
first=$(awk '/^[^#]/ {print $NF; exit}' "$TMP/runs.txt")
mkdir -p "$TMP/xdg"
XDG_CACHE_HOME="$TMP/xdg" "$FGBISECT" share -f TransactionalColumnFamily "$first" >"$TMP/want"
entry=$(ls "$TMP/xdg/fgbisect/"*.gz)
cp "$entry" "$TMP/entry.gz"
(while :; do : >"$entry"; cat "$TMP/entry.gz" >"$entry"; done) &
rewriter=$!
failed=0
for ((i = 0; i < 40; i++)); do
	if ! XDG_CACHE_HOME="$TMP/xdg" "$FGBISECT" share -f TransactionalColumnFamily "$first" >"$TMP/got" 2>"$TMP/why" ||
		! cmp -s "$TMP/want" "$TMP/got"; then
		failed=$((failed + 1))
		cp "$TMP/why" "$TMP/why-failed"
	fi
done
kill "$rewriter"
wait "$rewriter" 2>/dev/null || true
check_eq "entry rewritten in place while read: failed reads of 40" "$failed" "0$([[ $failed == 0 ]] || echo " ($(cat "$TMP/why-failed"))")"
CHECKS=$((CHECKS + 1))
[[ -z $(find "$TMP/xdg/fgbisect" -name 'tmp-*') ]] || fail "copies left in the cache: $(ls "$TMP/xdg/fgbisect")"

# ---- the network and git module: out of memory a skip, missing or broken an abort --
# The smallest address-space limit (in steps of 4 MB) under which the
# program runs leaves no room to map the module and its libraries.
limit=
for ((kb = 8192; kb <= 65536; kb += 4096)); do
	if (ulimit -v $kb && exec "$FGBISECT" --version) >/dev/null 2>&1; then
		limit=$kb
		break
	fi
done
if [[ -n $limit ]]; then
	expect "module unmapped for lack of memory: skip" 125 "out of memory: cannot load the network and git module" \
		bash -c 'ulimit -v $1; shift; exec "$@"' - "$limit" "${run[@]}" --runs "$TMP/runs.txt"
else
	echo "note: the binary cannot run under ulimit -v (a sanitizer build): the module out of memory not tested" >&2
fi
mkdir -p "$TMP/nomodule" "$TMP/badmodule"
cp "$FGBISECT" "$TMP/nomodule/fgbisect"
cp "$FGBISECT" "$TMP/badmodule/fgbisect"
head -c 4096 /dev/urandom >"$TMP/badmodule/fgbisect-netgit.so"
expect "module missing: abort" 255 "cannot find fgbisect-netgit.so" \
	"$TMP/nomodule/fgbisect" --frame TransactionalColumnFamily --threshold 4 --runs "$TMP/runs.txt"
expect "module broken: abort" 255 "cannot load the network and git module" \
	"$TMP/badmodule/fgbisect" --frame TransactionalColumnFamily --threshold 4 --runs "$TMP/runs.txt"

finish
