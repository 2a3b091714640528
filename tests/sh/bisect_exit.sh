# Every row of run mode's exit-code table (design.md), one case each.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
source "$FG_SOURCE_DIR/tests/bisect_lib.sh"
make_world 4 3
cd "$TMP/repo"
run() { "$FGBISECT" --frame TransactionalColumnFamily --threshold 4 "$@"; }
expect() { # expect NAME CODE PATTERN CMD...
	local name=$1 code=$2 pat=$3; shift 3
	set +e; "$@" >/dev/null 2>"$TMP/why"; local rc=$?; set -e
	check_eq "$name" "$rc" "$code"
	grep -q -- "$pat" "$TMP/why" || fail "$name: stderr lacks '$pat': $(cat "$TMP/why")"
}
R="$TMP/runs.txt"
at() { git checkout -q "$1"; }

at "${COMMITS[0]}"
expect "fast" 0 ": fast" run --runs "$R"
at main
expect "slow" 1 ": slow" run --runs "$R"

# 125: no run for this commit.
grep -v "${COMMITS[3]:0:8}" "$R" >"$TMP/partial.txt"
expect "no run" 125 "no run for this commit" run --runs "$TMP/partial.txt"
# 125: a 404.
sed "s#/files/2026-11-04-broker-1#/files/nothing-here#" "$R" >"$TMP/404.txt"
expect "404" 125 "HTTP status 404" run --runs "$TMP/404.txt"
# 125: a truncated profile (a gzip cut in the middle).
head -c 20000 "$FX/day10-broker-0-grpc.collapsed.gz" >"$TMP/cut.gz"
printf '2026-11-04 %s - - - %s\n' "${COMMITS[3]:0:10}" "$TMP/cut.gz" >"$TMP/cut.txt"
expect "truncated" 125 "cut.gz" run --runs "$TMP/cut.txt"
# 125: too few samples: an explicit --min-samples, and the 1000 a point
# --aggregate implies.  The pooled rule needs no minimum: 4 of 5 samples
# give an interval (37.55-96.38%) wholly above 4%.
printf '2026-11-04 %s - - - %s\n' "${COMMITS[3]:0:10}" "$FG_SOURCE_DIR/fixtures/tiny-3x.html" >"$TMP/tiny.txt"
expect "min samples point" 125 "fewer than --min-samples 1000" run --runs "$TMP/tiny.txt" --aggregate median
expect "min samples" 125 "fewer than --min-samples 7000" run --runs "$R" --min-samples 7000
expect "few samples, wide interval" 1 "pooled 80.00% (95% interval 37.55-96.38%" run --runs "$TMP/tiny.txt"
check_eq "min samples 0" "$(status run --runs "$TMP/tiny.txt" --min-samples 0 --aggregate median)" 1
# 125: within the margin: the interval of 6.81% starts about 2.3 points above 4.
expect "margin" 125 "within the margin 3" run --runs "$R" --margin 3
check_eq "outside the margin" "$(status run --runs "$R" --margin 2)" 1
# 125: a profile whose detected protocol contradicts its line (a REST
# profile listed as grpc), and a `-` line against --protocol.
printf '2026-11-04 %s n0 grpc cpu %s\n' "${COMMITS[3]:0:10}" "$FX/day10-broker-0-rest.collapsed.gz" >"$TMP/proto.txt"
expect "protocol contradiction" 125 "serves rest, not grpc as the runs file says" run --runs "$TMP/proto.txt"
printf '2026-11-04 %s n0 - cpu %s\n' "${COMMITS[3]:0:10}" "$FX/day10-broker-0-rest.collapsed.gz" >"$TMP/proto2.txt"
expect "protocol vs --protocol" 125 "serves rest, not grpc as --protocol says" run --runs "$TMP/proto2.txt" --protocol grpc
check_eq "protocol agrees" "$(status run --runs "$TMP/proto2.txt" --protocol rest)" 1

# 125: one node disagrees with the others (a regression on one broker only):
# pooled 4.04%, chi2 178 (phi 89 unmoderated, 30.4 moderated) widens the interval to 2.65-6.00%, and the reason
# names the node instead of guessing.
{
	printf '2026-11-04 %s n0 grpc cpu %s\n' "${COMMITS[3]:0:10}" "$FX/day01-broker-0-grpc.collapsed.gz"
	printf '2026-11-04 %s n1 grpc cpu %s\n' "${COMMITS[3]:0:10}" "$FX/day01-broker-1-grpc.collapsed.gz"
	printf '2026-11-04 %s n2 grpc cpu %s\n' "${COMMITS[3]:0:10}" "$FX/day10-broker-0-grpc.collapsed.gz"
} >"$TMP/nodes.txt"
expect "a node disagrees" 125 "skip (n2 6.57% disagrees with the other nodes (2.53%, phi 30.4): the interval 2.65-6.00% holds the threshold 4%)" \
	run --runs "$TMP/nodes.txt"
out=$(run --runs "$TMP/nodes.txt" --json 2>/dev/null) || true
check_eq "a node disagrees: json" "$(json_get 'j["verdict"], j["basis"], j["disagreeing"], "%.2f %.2f %.2f %.1f" % (j["share"], j["interval"][0], j["interval"][1], j["phi"])' <<<"$out")" \
	"('skip', 'nodes', 'n2', '4.04 2.65 6.00 30.4')"

# A partial run: one of three nodes missing (or cut mid-line) is left out
# and named, and the run is judged on the two read (the default needs a
# majority and at least 2); --min-nodes 3 makes it a skip.  Two nodes
# listed need both (the 404 case above).
partial() { # partial NAME THIRD-PROFILE
	{
		printf '2026-11-04 %s n0 grpc cpu %s\n' "${COMMITS[3]:0:10}" "$FX/day01-broker-0-grpc.collapsed.gz"
		printf '2026-11-04 %s n1 grpc cpu %s\n' "${COMMITS[3]:0:10}" "$FX/day01-broker-1-grpc.collapsed.gz"
		printf '2026-11-04 %s n2 grpc cpu %s\n' "${COMMITS[3]:0:10}" "$2"
	} >"$TMP/$1.txt"
}
partial gone "$TMP/gone.collapsed.gz"
{ zcat "$FX/day01-broker-2-grpc.collapsed.gz" || true; } | head -c 300000 >"$TMP/cut.collapsed"
partial cut "$TMP/cut.collapsed"
expect "partial run: fast on 2 of 3" 0 "^fgbisect: ${COMMITS[3]:0:12} 2026-11-04: n0 2.64%, n1 2.43%, n2 not read; pooled 2.53% .*: fast (the whole interval is below 4%; judged on 2 of 3 profiles, left out: n2: cannot open" \
	run --runs "$TMP/gone.txt"
expect "partial run: truncated named" 0 "left out: n2: truncated: the data ends in the middle of line $(( $(wc -l <"$TMP/cut.collapsed") + 1 )), after 300000 bytes" \
	run --runs "$TMP/cut.txt"
out=$(run --runs "$TMP/gone.txt" --json 2>/dev/null) || true
check_eq "partial run: json" "$(json_get '[(p["node"], p["read"], (p["error"] or "")[:11]) for p in j["profiles"]], j["samples"], j["total"]' <<<"$out")" \
	"([('n0', True, ''), ('n1', True, ''), ('n2', False, 'cannot open')], $(
	for f in "$FX"/day01-broker-[01]-grpc.collapsed.gz; do
		"$FGBISECT" share --json --frame TransactionalColumnFamily "$f" |
			json_get '"%d %d" % (j["profiles"][0]["matches"][0]["samples"], j["profiles"][0]["total"])'
	done | awk '{ s += $1; t += $2 } END { print s ", " t }'))"
expect "partial run: --min-nodes 3" 125 "skip (2 of 3 profiles read, fewer than the 3 needed (--min-nodes): n2: cannot open" \
	run --runs "$TMP/gone.txt" --min-nodes 3
check_eq "partial run: --min-nodes 1, two nodes, one 404" "$(status run --runs "$TMP/404.txt" --min-nodes 1)" 1

# 125: a profile that measures another event than its line says (an
# allocation graph listed as cpu); the same graph listed as alloc is judged.
sed 's|<h1>CPU profile</h1>|<h1>Allocation profile</h1>|' "$FX/tiny-3x.html" >"$TMP/alloc.html"
printf '2026-11-04 %s n0 - cpu %s\n' "${COMMITS[3]:0:10}" "$TMP/alloc.html" >"$TMP/event.txt"
expect "event contradiction" 125 "measures alloc" run --runs "$TMP/event.txt" --min-samples 1
printf '2026-11-04 %s n0 - alloc %s\n' "${COMMITS[3]:0:10}" "$TMP/alloc.html" >"$TMP/event2.txt"
check_eq "event agrees" "$(status run --runs "$TMP/event2.txt" --event alloc --min-samples 1)" 1

# 255: bad option, missing option, unreadable runs file, mixed protocols,
# outside a git repository, no source at all, malformed runs file.
check_eq "unknown option" "$(status run --runs "$R" --bogus)" 255
check_eq "bad threshold" "$(status run --runs "$R" --threshold x)" 255
check_eq "no threshold" "$(status "$FGBISECT" --frame X --runs "$R")" 255
check_eq "two sources" "$(status run --runs "$R" --profile x)" 255
expect "unreadable runs file" 255 "no-such-runs.txt" run --runs "$TMP/no-such-runs.txt"
printf '2026-11-04 %s n0 grpc cpu a.gz\n2026-11-04 %s n1 rest cpu b.gz\n' "${COMMITS[3]:0:10}" "${COMMITS[3]:0:10}" >"$TMP/mixed.txt"
expect "mixed protocols" 255 "mix protocols" run --runs "$TMP/mixed.txt"
printf '2026-11-04 %s n0 grpc\n' "${COMMITS[3]:0:10}" >"$TMP/bad.txt"
expect "malformed runs file" 255 "expected 6 fields" run --runs "$TMP/bad.txt"
expect "outside a repository" 255 "not in a git repository" env GIT_CEILING_DIRECTORIES="$TMP" \
	bash -c 'cd "$1" && shift && "$@"' _ "$TMP/docroot" "$FGBISECT" --frame X --threshold 4 --runs "$R"
expect "no source" 255 "no profiles" run
# Whatever is not a known command is run mode, and its usage errors are 255
# (2 would read as "slow" to git bisect): a bare call, a forgotten --frame,
# an empty argument, a mistyped command.
expect "bare call" 255 "nothing to judge" "$FGBISECT"
expect "forgotten --frame" 255 "'TransactionalColumnFamily' is not a command; in run mode the pattern goes after --frame" \
	"$FGBISECT" TransactionalColumnFamily --threshold 4 --runs "$R"
expect "empty argument" 255 "'' is not a command (an empty argument)" "$FGBISECT" "" --threshold 4 --runs "$R"
expect "empty argument after --frame" 255 "unexpected argument ''" "$FGBISECT" --frame X --threshold 4 --runs "$R" ""
expect "mistyped command" 255 "'shar' is not a command" "$FGBISECT" shar x.html
expect "run: forgotten --frame" 255 "is not a command" "$FGBISECT" run TransactionalColumnFamily --threshold 4
check_eq "help still 0" "$(status "$FGBISECT" --help)" 0
# A fixed --profile (no placeholder) is one file for every commit: missing,
# it is a configuration error; and it needs no repository.
expect "fixed --profile missing" 255 "names one file for every commit, and it cannot be used" \
	run --profile "$TMP/nonexistent.html"
expect "fixed --profile outside a repository" 1 "^fgbisect: ? -: day10-broker-0-grpc.collapsed.gz 6.57%; pooled 6.57%" \
	env GIT_CEILING_DIRECTORIES="$TMP" bash -c 'cd "$1" && shift && "$@"' _ "$TMP/docroot" "$FGBISECT" \
	--frame TransactionalColumnFamily --threshold 4 --profile "$FX/day10-broker-0-grpc.collapsed.gz"
# A runs file by URL through the default (compressed) cache, twice: the
# second read is the cache entry.
cp "$R" "$TMP/docroot/runs.txt"
expect "--runs URL" 1 ": slow" run --runs "http://127.0.0.1:$PORT/files/runs.txt"
expect "--runs URL from the cache" 1 ": slow" run --runs "http://127.0.0.1:$PORT/files/runs.txt"
check_eq "days --runs URL" "$(status "$FGBISECT" days --runs "http://127.0.0.1:$PORT/files/runs.txt" \
	--frame TransactionalColumnFamily --threshold 4)" 0
gzip -c "$R" >"$TMP/runs.txt.gz"
expect "gzip runs file" 1 ": slow" run --runs "$TMP/runs.txt.gz"
expect "bad header" 255 "header" run --runs "$R" --header 'no colon'

# A mistyped frame: a warning, and still a verdict (0% is a real share).
expect "mistyped frame" 0 "is it mistyped" "$FGBISECT" --frame TransactionalColumnFamliy --threshold 4 --runs "$R"
# Under `fgbisect bisect` (which warned once, at the ends) run mode does not
# say it again at every commit.
FGBISECT_QUIET_PATTERN=1 "$FGBISECT" --frame TransactionalColumnFamliy --threshold 4 --runs "$R" 2>"$TMP/why" || true
check_eq "mistyped frame, once per bisection" "$(grep -c mistyped "$TMP/why")" 0
# The frame names near it, from the profiles read.
expect "mistyped frame, suggestion" 0 \
	"frames near 'TransactionalColumnFamliy': 'io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily" \
	"$FGBISECT" --frame TransactionalColumnFamliy --threshold 4 --runs "$R"
# In a bisection, matching nothing at HEAD nor at the slow end is a
# configuration mistake: git must abort, not mark a commit fast.
git bisect start --term-old fast --term-new slow main "${COMMITS[0]}" >/dev/null
expect "mistyped frame in a bisection" 255 \
	"pattern 'TransactionalColumnFamliy' matches no frame at HEAD nor at the slow end ${COMMITS[3]:0:12} (refs/bisect/slow): it is mistyped; frames near it: 'io/camunda" \
	"$FGBISECT" --frame TransactionalColumnFamliy --threshold 4 --runs "$R"
# A frame absent at HEAD but present at the slow end: 0% is a real share.
at "${COMMITS[1]}"
expect "frame absent at HEAD only" 0 "pooled 0.00% .*: fast" \
	"$FGBISECT" --frame Arena::grow --threshold 4 --runs "$R"
git bisect reset >/dev/null 2>&1
at main

# --profile with placeholders; --aggregate; --json keeps the exit code.
cp "$FX/day10-broker-0-grpc.collapsed.gz" "$TMP/p-${COMMITS[3]}-2026-11-04.gz"
expect "--profile template" 1 "6.57%" run --profile "$TMP/p-{commit}-{date}.gz"
expect "--profile missing" 125 "p-${COMMITS[3]:0:7}" run --profile "$TMP/p-{short}.gz"
expect "--profile bad placeholder" 255 "unknown placeholder '{sha}'" run --profile "$TMP/p-{sha}.gz"
out=$(run --runs "$R" --aggregate min --json 2>/dev/null) && rc=0 || rc=$?
check_eq "json exit code" "$rc" 1
check_eq "aggregate min" "$(json_get '"%.2f" % j["share"]' <<<"$out")" "6.57"
check_eq "git never sees 126/127" "$(status "$FGBISECT" --frame X --threshold 4 --capture "exit 127")" 125
"$FGBISECT" run --help | grep '^usage: fgbisect \[run\]' >/dev/null || fail "run --help"
finish
