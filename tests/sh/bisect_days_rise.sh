# ctest-labels: quick
# days when the first slow day cannot be told: eight daily runs of three
# nodes (5,000 samples each, written here with exact counts) whose
# TransactionalColumnFamily share rises about 0.6 points from day 4 against
# 0.2 points of day noise.  The ends alone do not separate (--threshold
# auto) or cannot be told at 3.2% (a threshold), binary segmentation finds
# no change point at 99%, but the share rose between the ends
# (bisect/days.h, fg_days_rise_between): the answer is the window the data
# support, of kind "rise", its figures checked against
# tests/tools/changepoint.py; with --repo (a repository made by real git,
# day 4's commit changes TransactionalColumnFamily.ensureInOpenTransaction,
# decoys change other classes) the decision names day 4's commit.  Flat
# runs still find nothing (exit 1).
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP" XDG_CACHE_HOME="$TMP/cache"

SHARES=(2.9 3.1 2.8 3.5 3.3 3.7 3.4 3.6) # percent, day 1..8; 50 samples a point of 5,000
TCF=zeebe/db/src/main/java/io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.java
PSM=zeebe/stream-platform/src/main/java/io/camunda/zeebe/stream/impl/ProcessingStateMachine.java
ACT=zeebe/scheduler/src/main/java/io/camunda/zeebe/scheduler/ActorThread.java
java() { # java PATH METHOD EDITS: a class with one method holding EDITS statements
	local pkg cls i
	pkg=${1#*src/main/java/}
	pkg=${pkg%/*}
	cls=${1##*/}
	mkdir -p "$TMP/repo/${1%/*}"
	{
		printf 'package %s;\n\nclass %s {\n    void %s(Runnable r) {\n' "${pkg//\//.}" "${cls%.java}" "$2"
		for ((i = 0; i < $3; i++)); do printf '        step%d();\n' "$i"; done
		printf '        r.run();\n    }\n}\n'
	} >"$TMP/repo/$1"
}
commit() { # commit DAY MESSAGE HOUR
	git -C "$TMP/repo" add -A
	GIT_AUTHOR_DATE="2026-11-0$1T$3:00:00Z" GIT_COMMITTER_DATE="2026-11-0$1T$3:00:00Z" \
		git -C "$TMP/repo" commit -q -m "$2"
}
git init -q -b main "$TMP/repo"
java "$TCF" ensureInOpenTransaction 0
java "$PSM" onCommand 0
java "$ACT" run 0
commit 1 import 08
mkdir "$TMP/runs"
COUNTS=()
for ((d = 1; d <= 8; d++)); do
	if ((d > 1)); then
		java "$PSM" onCommand "$d" && commit "$d" "decoy $d: ProcessingStateMachine" 08
		java "$ACT" run "$d" && commit "$d" "decoy $d: ActorThread" 09
	fi
	((d == 4)) && java "$TCF" ensureInOpenTransaction 1 && commit 4 "db: begin a transaction every time" 10
	id=$(git -C "$TMP/repo" rev-parse HEAD)
	((d == 4)) && PLANTED=$id
	k=$(python3 -c "print(round(${SHARES[d - 1]} * 50))")
	for n in 0 1 2; do
		{
			echo "java/lang/Thread.run;io/camunda/zeebe/scheduler/ActorThread.run;io/camunda/zeebe/stream/impl/ProcessingStateMachine.onCommand;io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction $k"
			echo "java/lang/Thread.run;io/camunda/zeebe/scheduler/ActorThread.run;io/camunda/zeebe/stream/impl/ProcessingStateMachine.onCommand $((2500 - k))"
			echo "java/lang/Thread.run;io/camunda/zeebe/scheduler/ActorThread.run 2500"
		} >"$TMP/runs/day$d-$n.collapsed"
		echo "2026-11-0$d ${id:0:10} broker-$n grpc cpu $TMP/runs/day$d-$n.collapsed"
	done
	COUNTS+=("$k/5000,$k/5000,$k/5000")
done >"$TMP/runs.txt"
days() { "$FGBISECT" days --runs "$TMP/runs.txt" --frame TransactionalColumnFamily "$@"; }

want=$(python3 "$FG_SOURCE_DIR/tests/tools/changepoint.py" "${COUNTS[@]}")
rise=$(tail -1 <<<"$want")
[[ $rise == rise\ * ]] || fail "changepoint.py finds no rise between the ends: $want"
check_eq "no change point" "$(wc -l <<<"$want")" 2
read -r _ at lo hi before after z conf noise <<<"$rise"
check_eq "the rise's window (runs, 0-based)" "$at $lo $hi" "3 2 5"

# --threshold auto: the ends do not separate, every run is scanned, no
# change point; the rise between the ends is the answer.
out=$(days --threshold auto --json --repo "$TMP/repo" 2>"$TMP/err") || fail "auto: exit $?: $(cat "$TMP/err")"
check_eq "auto: the window" \
	"$(json_get 'j["window_kind"], j["change_point"]["method"], j["last_fast"]["date"], j["first_slow"]["date"], len(j["window_runs"]), j["change_point"]["most_likely"]["date"], j["change_point"]["changes"]' <<<"$out")" \
	"('rise', 'fallback', '2026-11-02', '2026-11-06', 4, '2026-11-04', [])"
check_eq "auto: the rise against changepoint.py" \
	"$(json_get '" ".join("%.4f" % j["change_point"]["rise_between"][k] for k in ("before", "after", "z")) + " %.6f %.4f" % (j["change_point"]["rise_between"]["confidence"], j["change_point"]["rise_between"]["noise"])' <<<"$out")" \
	"$before $after $z $conf $noise"
check_eq "auto: the window's commits" "$(json_get 'len(j["window_commits"])' <<<"$out")" 9
check_eq "auto: the decision" "$(json_get 'j["decision"]["kind"], [s["commit"] for s in j["decision"]["suspects"]]' <<<"$out")" \
	"('changed', ['$PLANTED'])"
grep -q "^threshold auto: the ends do not differ beyond their noise: .*: every run scanned$" "$TMP/err" ||
	fail "auto: the fallback line: $(cat "$TMP/err")"

# The text: the first slow day cannot be told, the window and its commits.
out=$(days --threshold auto --repo "$TMP/repo" 2>/dev/null)
grep -qF "the first slow day cannot be told: no change point, but the share rose between the ends ($(printf '%.2f%% -> %.2f%%, z %.2f, confidence %.2f%%' "$before" "$after" "$z" "$(python3 -c "print(100 * $conf)")"), one-sided over every split)" <<<"$out" ||
	fail "auto: text: $out"
grep -q "between 2026-11-02 [0-9a-f]\{12\} (fast) and 2026-11-06 [0-9a-f]\{12\} (slow): 4 runs, 9 commits, most likely 2026-11-04$" <<<"$out" ||
	fail "auto: text window: $out"
grep -q "^  none rises; the share rose between the ends: " <<<"$out" || fail "auto: change point text: $out"

# The report says so too, and pools the runs either side in its flame graph.
days --threshold auto --repo "$TMP/repo" --html "$TMP/report.html" >/dev/null 2>&1 || fail "report: exit $?"
grep -q "The first slow run cannot be told: TransactionalColumnFamily rose between 2026-11-02 (fast) and 2026-11-06 (slow), 4 runs" "$TMP/report.html" ||
	fail "report: the answer"
grep -q "the runs read before the window" "$TMP/report.html" || fail "report: the flame graph's heading"

# A threshold at which the ends cannot be told: every run scanned, the same
# window.
out=$(days --threshold 3.2 --json 2>"$TMP/err") || fail "3.2: exit $?: $(cat "$TMP/err")"
check_eq "3.2: the window" "$(json_get 'j["window_kind"], j["last_fast"]["date"], j["first_slow"]["date"], j["change_point"]["method"]' <<<"$out")" \
	"('rise', '2026-11-02', '2026-11-06', 'scan')"
grep -q "^the good end 2026-11-01 cannot be told at 3.2% (cannot tell: the interval .* holds the threshold 3.2%.*): every run scanned$" "$TMP/err" ||
	fail "3.2: the line: $(cat "$TMP/err")"
# A threshold the good end is judged above: refused as before, nothing scanned.
err=$(days --threshold 2 --json 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "2: refused" "$rc $(grep -c '^tested' <<<"$err")" "1 1"

# Flat runs (day 1's counts every day): nothing found, exit 1.
sed -i 's#/day[2-8]-\([0-2]\).collapsed$#/day1-\1.collapsed#' "$TMP/runs.txt"
err=$(days --threshold auto 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "flat: no rise" "$rc $(tail -1 <<<"$err")" \
	"1 fgbisect days: no rise of the share is a change point of the runs read (0 change point(s), none a rise): nothing found"
finish
