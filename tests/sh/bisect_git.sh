# ctest-labels: slow
# The bisect driver under a real `git bisect run`, and `fgbisect bisect` end
# to end: a repository of 14 commits, profiles served over HTTP, healthy
# before commit 9 and regressed from it.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
source "$FG_SOURCE_DIR/tests/bisect_lib.sh"
make_world 14 9
cd "$TMP/repo"

# The card's one-liner, as written, with the runs file in git config.
git config fgbisect.runs "$TMP/runs.txt"
git bisect start --term-old fast --term-new slow >/dev/null
git bisect slow main >/dev/null
git bisect fast "${COMMITS[0]}" >/dev/null
git bisect run "$FGBISECT" --frame TransactionalColumnFamily --threshold 4 >"$TMP/bisect.out" 2>&1 || true
found=$(git bisect log | sed -n 's/^# first slow commit: \[\([0-9a-f]*\)\].*/\1/p')
check_eq "git bisect run names commit K" "$found" "$K_ID"
# One verdict line of fgbisect's own per commit git marked (git's "running
# ... --frame TransactionalColumnFamily" echo must not count), each naming
# the commit git checked out.
marked=$(git bisect log | sed -n 's/^git bisect \(fast\|slow\) \([0-9a-f]*\)$/\2/p' | tail -n +3 | cut -c1-12)
judged=$(sed -n 's/^fgbisect: \([0-9a-f]\{12\}\) 2026-11-[0-9]*: broker-0 [0-9.]*%, broker-1 [0-9.]*%; pooled .*: \(fast\|slow\) (.*)$/\1/p' \
	"$TMP/bisect.out")
[[ -n "$marked" ]] || fail "git bisect marked no commit"
check_eq "a verdict line per judged commit" "$judged" "$marked"
git bisect reset >/dev/null 2>&1

# The traps a new user falls into abort git bisect run (255) instead of
# marking every commit slow: a bare call, a forgotten --frame, an empty
# argument.
for args in "" "TransactionalColumnFamily --threshold 4" "--frame TransactionalColumnFamily --threshold 4 ''"; do
	git bisect start --term-old fast --term-new slow main "${COMMITS[0]}" >/dev/null
	eval "set -- $args"
	git bisect run "$FGBISECT" "$@" >"$TMP/trap.out" 2>&1 && rc=0 || rc=$?
	marks=$(git bisect log | grep -c '^git bisect \(fast\|slow\) ' || true)
	check_eq "trap '$args': git aborted, nothing marked" "$rc/$marks" "1/0"
	grep -q "exit code 255 from" "$TMP/trap.out" \
		|| fail "trap '$args': git did not see 255: $(tail -3 "$TMP/trap.out")"
	git bisect reset >/dev/null 2>&1
done

# Each verdict line names the commit, date, per-node shares, aggregate, interval, threshold.
git checkout -q "${COMMITS[2]}"
err=$("$FGBISECT" --frame TransactionalColumnFamily --threshold 4 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "fast commit" "$rc" 0
[[ "$err" == *"${COMMITS[2]:0:12} 2026-11-03: broker-0 2.64%, broker-1 2.43%; pooled 2.53% (95% interval "*": sampling 2.26-2.84%, phi 1.00, noise 0.24 pp assumed), threshold 4%: fast (the whole interval is below 4%)" ]] \
	|| fail "verdict line: $err"
# From a subfolder, with `run` spelled out and the environment's runs file.
mkdir -p sub && git checkout -q main
out=$(cd sub && FGBISECT_RUNS="$TMP/runs.txt" "$FGBISECT" run --json --frame TransactionalColumnFamily --threshold 4) \
	&& rc=0 || rc=$?
check_eq "slow commit" "$rc" 1
check_eq "json verdict" "$(json_get 'j["verdict"], j["commit"], j["date"], len(j["profiles"])' <<<"$out")" \
	"('slow', '${COMMITS[13]}', '2026-11-14', 2)"
# Pooled: (445 + 390) / (6775 + 5489) samples; the median of the nodes would be 6.84.
check_eq "json pooled" "$(json_get '"%.2f" % j["share"], j["basis"], j["noise_source"]' <<<"$out")" "('6.81', 'interval', 'default')"
rmdir sub

# fgbisect bisect: both ends judged, then git bisect, a summary, a reset.
out=$("$FGBISECT" bisect --json --good "${COMMITS[0]}" --bad main --frame TransactionalColumnFamily --threshold 4 \
	2>"$TMP/err") && rc=0 || rc=$?
check_eq "bisect status" "$rc" 0
check_eq "bisect first slow" "$(json_get 'j["first_slow"]["commit"]' <<<"$out")" "$K_ID"
check_eq "bisect parent fast" "$(json_get 'j["parent"]["verdict"], j["parent"]["commit"]' <<<"$out")" \
	"('fast', '${COMMITS[7]}')"
check_eq "bisect reset" "$(git rev-parse --abbrev-ref HEAD)" "main"
[[ ! -e .git/BISECT_LOG ]] || fail "the bisection was not reset"
out=$("$FGBISECT" bisect --good "${COMMITS[0]}" --bad main --frame TransactionalColumnFamily --threshold 4 2>/dev/null)
[[ "$out" == "first slow commit: $K_ID 2026-11-09 commit 9"* ]] || fail "bisect text summary: $out"
# git's "bisect found first bad commit" has no newline: ours starts a line.
"$FGBISECT" bisect --good "${COMMITS[0]}" --bad main --frame TransactionalColumnFamily --threshold 4 2>"$TMP/err" >/dev/null
grep -q '^bisect found first bad commit$' "$TMP/err" || fail "git's last line glued: $(grep 'first bad commit' "$TMP/err")"
grep -q "^fgbisect: ${K_ID:0:12} 2026-11-09: broker-0 6.57%" "$TMP/err" || fail "verdict of the first slow commit: $(cat "$TMP/err")"

# Undecidable ends move inward along the first-parent line (their profiles
# are missing): the answer is the same, the moved ends are named.
sed -e "/^2026-11-01 /d" -e "s#/files/2026-11-14-broker-0#/files/missing#" "$TMP/runs.txt" >"$TMP/ends.txt"
out=$("$FGBISECT" bisect --json --good "${COMMITS[0]}" --bad main --runs "$TMP/ends.txt" --frame TransactionalColumnFamily \
	--threshold 4 2>"$TMP/err") && rc=0 || rc=$?
check_eq "moved ends: status" "$rc" 0
check_eq "moved ends" "$(json_get 'j["first_slow"]["commit"], j["good"]["commit"], j["bad"]["commit"], [(e["commit"], e["reason"].split(": ")[-1]) for e in j["skipped_ends"]]' <<<"$out")" \
	"('$K_ID', '${COMMITS[1]}', '${COMMITS[12]}', [('${COMMITS[0]}', 'no run for this commit in the runs file'), ('${COMMITS[13]}', 'HTTP status 404')])"
grep -q "^fgbisect bisect: the good end ${COMMITS[0]:0:12} cannot be judged; trying its child on the first-parent line$" "$TMP/err" \
	|| fail "moved good end: $(cat "$TMP/err")"
# The walk past an undecidable end is bounded: runs missing for the good
# end and the 6 commits after it; 5 steps (the default) stop with every
# commit tried named, its reason and sample count, and what to change;
# --end-steps 7 walks far enough.  No bisection is started.
sed -e "/^2026-11-0[1-7] /d" "$TMP/runs.txt" >"$TMP/far.txt"
err=$("$FGBISECT" bisect --good "${COMMITS[0]}" --bad main --runs "$TMP/far.txt" --frame TransactionalColumnFamily \
	--threshold 4 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "bounded walk: status" "$rc" 1
names=""
for i in 0 1 2 3 4 5; do names+="${names:+, }${COMMITS[i]:0:12} (no run for this commit in the runs file)"; done
check_eq "bounded walk: the stop" "$(grep 'refusing to start' <<<"$err")" \
	"fgbisect bisect: refusing to start: --good ${COMMITS[0]} cannot be judged, nor the 5 commits after it on the first-parent line: $names; stopped after 5 commits (--end-steps); their profiles cannot be used: fix them, or give another --good"
check_eq "bounded walk: steps" "$(grep -c 'trying its child' <<<"$err")" 5
[[ ! -e .git/BISECT_LOG ]] || fail "a bounded walk started git bisect"
out=$("$FGBISECT" bisect --json --end-steps 7 --good "${COMMITS[0]}" --bad main --runs "$TMP/far.txt" \
	--frame TransactionalColumnFamily --threshold 4 2>/dev/null) && rc=0 || rc=$?
check_eq "--end-steps 7" "$rc/$(json_get 'j["first_slow"]["commit"], j["good"]["commit"], len(j["skipped_ends"])' <<<"$out")" \
	"0/('$K_ID', '${COMMITS[7]}', 7)"
# An undecidable good end is never called slow: when the first commit that
# can be judged past it is slow, the stop says so of that commit.
sed -e "/^2026-11-0[1-9] /d" "$TMP/runs.txt" >"$TMP/late.txt"
err=$("$FGBISECT" bisect --end-steps 20 --good "${COMMITS[0]}" --bad main --runs "$TMP/late.txt" \
	--frame TransactionalColumnFamily --threshold 4 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "undecidable good end: status" "$rc" 1
line=$(grep 'refusing to start' <<<"$err")
[[ "$line" == "fgbisect bisect: refusing to start: --good ${COMMITS[0]} cannot be judged, nor the 8 commits after it on the first-parent line: "*"; the first that can, ${COMMITS[9]:0:12}, is slow, not fast (the whole interval is at or above 4%): the regression is at or before it, among commits that cannot be judged" ]] ||
	fail "undecidable good end: $line"
# --threshold auto: the ends give the threshold (4.54%, as days computes it
# from the same profiles: bisect_days.sh checks the value), git bisect run
# judges at it, and the answer is the same; ends alike refuse.
out=$("$FGBISECT" bisect --json --good "${COMMITS[0]}" --bad main --frame TransactionalColumnFamily --threshold auto \
	--runs "$TMP/runs.txt" 2>"$TMP/err") && rc=0 || rc=$?
check_eq "auto: bisect" "$rc/$(json_get 'j["first_slow"]["commit"], j["threshold_auto"]["threshold"], j["first_slow"]["threshold"], j["good"]["verdict"]' <<<"$out")" \
	"0/('$K_ID', 4.54, 4.54, 'fast')"
grep -q "^fgbisect bisect: threshold auto: 4.54%, the point of equal standardised distance" "$TMP/err" || fail "auto: bisect line: $(cat "$TMP/err")"
grep -q "^fgbisect: ${COMMITS[0]:0:12} .*threshold 4.54%: fast" "$TMP/err" || fail "auto: the good end at 4.54%: $(cat "$TMP/err")"
check_eq "auto: git bisect run's threshold" "$(grep -c 'threshold 4.54%' "$TMP/err")" "$(grep -c '^fgbisect: [0-9a-f]\{12\} ' "$TMP/err")"
err=$("$FGBISECT" bisect --good "${COMMITS[0]}" --bad "${COMMITS[3]}" --frame TransactionalColumnFamily --threshold auto \
	--runs "$TMP/runs.txt" 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "auto: ends alike" "$rc" 1
[[ "$err" == *"refusing to start: --threshold auto: the good end's share 2.53% is not below the bad end's 2.53%"* ]] || fail "auto: ends alike: $err"
# A relative --runs survives git's change to the top of the work tree.
mkdir -p deep && cp "$TMP/runs.txt" deep/r.txt && git config --unset fgbisect.runs
out=$(cd deep && "$FGBISECT" bisect --json --good "${COMMITS[0]}" --bad main --runs r.txt --frame TransactionalColumnFamily \
	--threshold 4 2>/dev/null) && rc=0 || rc=$?
check_eq "bisect relative --runs" "$rc/$(json_get 'j["first_slow"]["commit"]' <<<"$out" 2>/dev/null)" "0/$K_ID"
rm -rf deep

# A mistyped frame: the bad end is 0%, fast: refused before git starts.
err=$("$FGBISECT" bisect --good "${COMMITS[0]}" --bad main --runs "$TMP/runs.txt" \
	--frame TransactionalColumnFamliy --threshold 4 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "refused" "$rc" 1
[[ "$err" == *"mistyped"* && "$err" == *"refusing to start: --bad main is fast"* ]] || fail "refusal: $err"
[[ "$err" == *"frames near 'TransactionalColumnFamliy': 'io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily."* ]] ||
	fail "no frame names near the mistyped pattern: $err"
[[ ! -e .git/BISECT_LOG ]] || fail "a refused bisection started git bisect"
# Good end not fast (threshold below every share).
check_eq "good not fast" "$(status "$FGBISECT" bisect --good "${COMMITS[0]}" --bad main --runs "$TMP/runs.txt" \
	--frame TransactionalColumnFamily --threshold 1)" 1
check_eq "bisect usage" "$(status "$FGBISECT" bisect --bad main --frame X --threshold 4)" 2
"$FGBISECT" bisect --help | grep '^usage: fgbisect bisect' >/dev/null || fail "bisect --help"
finish
