# ctest-labels: slow
# One large HTML page read on two threads (the default with a core to spare)
# against -j 1 (one thread): stdout, stderr and exit status of every command
# on the large page, of share and diff on every fixture, and of share on
# copies of the large page cut short or with one
# byte changed before and after where the cut falls (about a third of the
# frame block).  Only pages whose frame block is 4 MiB or more are split, so
# the small fixtures check that nothing else changed.  The pages are the
# project's own (FG_PAGES: tests/tools/make_pages.sh, a generated large page
# of 777 k frames), and with ../shared its real pages and javac's large page
# (3.3 M frames) instead of the generated one (not under the sanitizers).
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
P=${FG_PAGES:?FG_PAGES must name the generated pages}
SH="${FG_SHARED_FIXTURES:-}"
inputs=("$FG_SOURCE_DIR"/fixtures/*.html "$FG_SOURCE_DIR"/fixtures/*.gz "$P"/*.html "$P"/escape.collapsed)
other=$P/zeebe-healthy-4.0.html
large=$P/large.html.gz
PAT=io/camunda/zeebe/stream
if [[ -n $SH && -d $SH ]]; then
	inputs+=("$SH"/*/*.html "$SH"/*/*.collapsed)
	other=$SH/versions/v4.5-healthy.html
	# Under the sanitizers the generated large page (the same code, a
	# quarter of the reading).
	if [[ ${FG_SANITIZED:-0} != 1 ]]; then
		large=$SH/large/javac-large.html.gz
		PAT=com/sun/tools/javac/comp/Attr.
	fi
else
	echo "SKIP (part): the shared fixtures are not at '$SH': the real pages and javac's large page not read" >&2
fi

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
	same "$f" share -f "$PAT" -f io/camunda "$f"
	same "$f" share --json --self -f "${PAT%/*}" -f io/camunda "$f"
	same "$f" top -n 30 "$f"
	same "$f" top --json --self "$f"
	same "$f" subsystems -v "$f"
	same "$f" protocol "$f"
	same "$f" collapse "$f"
	same "$f" collapse --annotate --normalise "$f"
	same "$f" diff "$other" -- "$f"
}

# A small input is read on one thread whatever -j says: two commands show
# that nothing else changes (all nine on each of some 70 inputs were 1,260
# runs of fgbisect, most of this test's time, for the same one-thread read).
for f in "${inputs[@]}"; do
	same "$f" share --json --self -f "${PAT%/*}" -f io/camunda "$f"
	same "$f" diff "$other" -- "$f"
done

# The large page, plain (it is split) and gzip (it is not).
zcat "$large" >"$TMP/large.html"
commands "$TMP/large.html" "$other"
same gzip share -f "$PAT" "$large"
size=$(stat -c %s "$TMP/large.html")

# Damaged copies: cut short (in the first part, in the second, inside a
# line), a byte changed (before the cut, after it; in a level, an offset,
# a key), a line doubled after the cut.
for at in $((size / 5)) $((size / 2)) $((size * 9 / 10)) $((size - 100)); do
	head -c "$at" "$TMP/large.html" >"$TMP/cut.html"
	same "cut at $at" share -f "$PAT" "$TMP/cut.html"
	same "cut at $at" top "$TMP/cut.html"
done
line_count=$(wc -l <"$TMP/large.html")
# splice M FILE: the large page with its M-th line replaced by FILE's lines
# (head and tail copy the 34 MB page in a fraction of what awk over every
# line took: 16 such copies were most of this test's CPU).
splice() {
	{
		head -n $(($1 - 1)) "$TMP/large.html"
		cat "$2"
		tail -n +$(($1 + 1)) "$TMP/large.html"
	} >"$TMP/bad.html"
}
# A line after the frame block (its error names the line: where the second
# thread stopped, counted on).
m=$(grep -n -m 1 '^search(' "$TMP/large.html" | cut -d: -f1)
{ echo x; sed -n "${m}p" "$TMP/large.html"; } >"$TMP/line"
splice "$m" "$TMP/line"
same "a line after the block" share -f "$PAT" "$TMP/bad.html"
same "a line after the block" collapse "$TMP/bad.html"
for pct in 20 40 60 95; do
	n=$((line_count * pct / 100))
	for k in 0 1 2 3; do
		m=$((n + k * 997))
		# The m-th line's first number one more (a key, a level: f(K,L,..)),
		# its last number doubled, or the line doubled.
		head -n "$m" "$TMP/large.html" | tail -n 1 | awk -v k="$k" 'k == 0 { sub(/\(/, "(1") }
			k == 1 && /^f\(/ { n = split($0, a, ","); $0 = a[1] "," a[2]+1; for (i = 3; i <= n; i++) $0 = $0 "," a[i] }
			k == 2 { sub(/\)$/, "0)") }
			k == 3 { print }
			{ print }' >"$TMP/line"
		splice "$m" "$TMP/line"
		same "line $m changed ($k)" share -f "$PAT" "$TMP/bad.html"
	done
done
finish
