#!/bin/bash
# The commands that read local files (share, top, collapse, protocol,
# subsystems, diff without --repo) never load libcurl, libgit2 or the module
# holding the network and git code (src/module/lazy.c), as the dynamic loader
# reports (LD_DEBUG=files); a URL input loads it on first use and gives the
# same answer as the file; a binary without its module still reads files,
# and a URL then fails with the module's name (exit 4).
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
SERVER_PID=
trap '[[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
FX="$FG_SOURCE_DIR/fixtures"
tiny="$FX/tiny-3x.html"
healthy="$FX/zeebe-healthy.collapsed.gz"
regressed="$FX/zeebe-regressed.collapsed.gz"
export XDG_CACHE_HOME="$TMP/cache"

# The objects the loader opened for one run (its stderr is the trace; the
# command's own stderr goes there too, its stdout to $TMP/out).
loaded() {
	LD_DEBUG=files "$@" >"$TMP/out" 2>"$TMP/trace" || true
	sed -n 's/.*file=\([^ ]*\) *\[0\]; *\(needed\|dynamically loaded\).*/\1/p' "$TMP/trace" | sort -u
}
heavy() { grep -E 'libcurl|libgit2|fgbisect-netgit' || true; }

for cmd in "share -f TransactionalColumnFamily $healthy" "share --json -f a $tiny" "top $tiny" \
	"collapse $tiny" "protocol $healthy" "subsystems $healthy" "diff $healthy $regressed" \
	"diff --svg $TMP/d.svg $healthy $regressed" "--version"; do
	# shellcheck disable=SC2086
	libs=$(loaded "$FGBISECT" $cmd)
	CHECKS=$((CHECKS + 1))
	[[ -n $libs ]] || fail "$cmd: no loader trace (LD_DEBUG=files)"
	check_eq "$cmd: libcurl/libgit2 not loaded" "$(heavy <<<"$libs")" ""
done
# The trace sees a library when it is loaded: libc is, so the check can fail.
CHECKS=$((CHECKS + 1))
grep -q 'libc\.so' <<<"$(loaded "$FGBISECT" top "$tiny")" || fail "the trace does not show libc"

# A URL: the module and libcurl are loaded, the answer is the file's.
want=$("$FGBISECT" share --json -f TransactionalColumnFamily "$healthy")
mkdir -p "$TMP/docroot"
cp "$healthy" "$TMP/docroot/healthy.collapsed.gz"
python3 "$FG_SOURCE_DIR/tests/tools/fetch_server.py" "$TMP/docroot" >"$TMP/port" &
SERVER_PID=$!
wait_for_file "$TMP/port" || fail "the HTTP server wrote no port"
url="http://127.0.0.1:$(cat "$TMP/port")/files/healthy.collapsed.gz"
libs=$(loaded "$FGBISECT" share --json -f TransactionalColumnFamily "$url")
CHECKS=$((CHECKS + 1))
grep -q 'libcurl' <<<"$libs" && grep -q 'fgbisect-netgit' <<<"$libs" || fail "a URL share did not load libcurl: $libs"
check_eq "URL share" "$(sed "s|$url|$healthy|" "$TMP/out")" "$want"
# file:// too (the module reads it) and a git command.
check_eq "file:// share" "$("$FGBISECT" share --json -f TransactionalColumnFamily "file://$healthy" |
	sed "s|file://$healthy|$healthy|")" "$want"
libs=$(loaded "$FGBISECT" hotfiles --repo "$TMP" --frame a/B.m)
CHECKS=$((CHECKS + 1))
grep -q 'libgit2' <<<"$libs" || fail "hotfiles did not load libgit2: $libs"

# The binary alone, without its module: files still work, a URL says why not.
mkdir "$TMP/alone"
cp "$FGBISECT" "$TMP/alone/fgbisect"
check_eq "alone: share of a file" "$("$TMP/alone/fgbisect" share --json -f TransactionalColumnFamily "$healthy")" "$want"
status=0
"$TMP/alone/fgbisect" share -f TransactionalColumnFamily "$url" >/dev/null 2>"$TMP/err" || status=$?
check_eq "alone: URL share" "$status:$(sed "s|$TMP/alone/[^ ]*|DIR|" "$TMP/err")" \
	"4:fgbisect: cannot find fgbisect-netgit.so in DIR or beside the program"
finish
