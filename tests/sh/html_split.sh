# ctest-labels: slow
# One large HTML page read on two threads (the default with a core to spare)
# against -j 1 (one thread): every command's stdout, stderr and exit status,
# over every fixture, the large page, and copies of it cut short or with one
# byte changed before and after where the cut falls (about a third of the
# frame block).  Only pages whose frame block is 4 MiB or more are split, so
# the small fixtures check that nothing else changed.
source "$(dirname "$0")/../lib.sh"
need_shared
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SH="$FG_SHARED_FIXTURES"

# same NAME ARGS...: the command with -j 1 and without (two threads for a
# large page; diff reads its two profiles one at a time with -j 2, so -j 4).
same() {
	local name=$1 j=2
	shift
	[[ $1 == diff ]] && j=4
	set +e
	local cmd=$1
	shift
	"$FGBISECT" "$cmd" -j 1 "$@" >"$TMP/one.out" 2>"$TMP/one.err"
	local one=$?
	"$FGBISECT" "$cmd" -j "$j" "$@" >"$TMP/two.out" 2>"$TMP/two.err"
	local two=$?
	set -e
	CHECKS=$((CHECKS + 1))
	if [[ $one != "$two" ]] || ! cmp -s "$TMP/one.out" "$TMP/two.out" || ! cmp -s "$TMP/one.err" "$TMP/two.err"; then
		fail "$name: $cmd $* -j $j differs from -j 1 (exit $two against $one): $(diff "$TMP/one.err" "$TMP/two.err" | head -3) $(diff "$TMP/one.out" "$TMP/two.out" | head -3)"
	fi
}

commands() {
	local f=$1 other=$2
	same "$f" share -f com/sun/tools/javac/comp/Attr. -f io/camunda "$f"
	same "$f" share --json --self -f com/sun/tools/javac -f io/camunda "$f"
	same "$f" top -n 30 "$f"
	same "$f" top --json --self "$f"
	same "$f" subsystems -v "$f"
	same "$f" protocol "$f"
	same "$f" collapse "$f"
	same "$f" collapse --annotate --normalise "$f"
	same "$f" diff "$other" -- "$f"
}

for f in "$FG_SOURCE_DIR"/fixtures/*.html "$FG_SOURCE_DIR"/fixtures/*.gz "$SH"/*/*.html "$SH"/*/*.collapsed; do
	commands "$f" "$SH/versions/v4.5-healthy.html"
done

# The large page, plain (it is split) and gzip (it is not).
zcat "$SH/large/javac-large.html.gz" >"$TMP/large.html"
commands "$TMP/large.html" "$SH/versions/v4.5-healthy.html"
same gzip share -f com/sun/tools/javac/comp/Attr. "$SH/large/javac-large.html.gz"
size=$(stat -c %s "$TMP/large.html")

# Damaged copies: cut short (in the first part, in the second, inside a
# line), a byte changed (before the cut, after it; in a level, an offset,
# a key), a line doubled after the cut.
for at in $((size / 5)) $((size / 2)) $((size * 9 / 10)) $((size - 100)); do
	head -c "$at" "$TMP/large.html" >"$TMP/cut.html"
	same "cut at $at" share -f com/sun/tools/javac/comp/Attr. "$TMP/cut.html"
	same "cut at $at" top "$TMP/cut.html"
done
line_count=$(wc -l <"$TMP/large.html")
# A line after the frame block (its error names the line: where the second
# thread stopped, counted on).
awk 'done != 1 && /^search\(/ { print "x"; done = 1 } { print }' "$TMP/large.html" >"$TMP/bad.html"
same "a line after the block" share -f com/sun/tools/javac/comp/Attr. "$TMP/bad.html"
same "a line after the block" collapse "$TMP/bad.html"
for pct in 20 40 60 95; do
	n=$((line_count * pct / 100))
	for k in 0 1 2 3; do
		m=$((n + k * 997))
		# The m-th line's first number one more (a key, a level: f(K,L,..)),
		# its last number doubled, or the line doubled.
		awk -v m="$m" -v k="$k" 'NR == m && k == 0 { sub(/\(/, "(1") }
			NR == m && k == 1 && /^f\(/ { n = split($0, a, ","); $0 = a[1] "," a[2]+1; for (i = 3; i <= n; i++) $0 = $0 "," a[i] }
			NR == m && k == 2 { sub(/\)$/, "0)") }
			NR == m && k == 3 { print }
			{ print }' "$TMP/large.html" >"$TMP/bad.html"
		same "line $m changed ($k)" share -f com/sun/tools/javac/comp/Attr. "$TMP/bad.html"
	done
done
finish
