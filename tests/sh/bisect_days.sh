# ctest-labels: slow
# fgbisect days: the first slow day of 16 daily runs served over HTTP, with
# at most ceil(log2 N) + 2 runs fetched, nothing downloaded the second time,
# skipped runs, the ends checked, the window and its hot files.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
source "$FG_SOURCE_DIR/tests/bisect_lib.sh"
N=16 K=11
make_world $N $K
days() { "$FGBISECT" days --runs "$TMP/runs.txt" --frame TransactionalColumnFamily --threshold 4 "$@"; }

out=$(days --json --repo "$TMP/repo" 2>"$TMP/err")
check_eq "first slow" "$(json_get 'j["first_slow"]["date"], j["first_slow"]["commit"]' <<<"$out")" "('2026-11-11', '$K_ID')"
check_eq "last fast" "$(json_get 'j["last_fast"]["date"], j["last_fast"]["commit"]' <<<"$out")" \
	"('2026-11-10', '${COMMITS[K - 2]}')"
# ceil(log2 16) + 2 = 6 runs of 2 profiles at most.
tested=$(json_get 'len(j["tested"])' <<<"$out")
fetched=$(json_get 'j["fetched_profiles"]' <<<"$out")
[[ $tested -le 6 && $fetched -eq $((2 * tested)) ]] || fail "tested $tested runs, fetched $fetched profiles (at most 6 runs)"
check_eq "downloads" "$(requests)" "$fetched"
check_eq "tested fields" "$(json_get 'sorted(j["tested"][0].keys() & {"date","commit","share","verdict"})' <<<"$out")" \
	"['commit', 'date', 'share', 'verdict']"
check_eq "window" "$(json_get '[c["commit"] for c in j["window_commits"]]' <<<"$out")" "['$K_ID']"
check_eq "hotfiles" "$(json_get '[(h["path"], h["last_commit"], h["changed_in_window"]) for h in j["hotfiles"]]' <<<"$out")" \
	"[('zeebe/db/src/main/java/io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.java', '$K_ID', True)]"
check_eq "decision" "$(json_get 'j["decision"]["kind"], [s["commit"] for s in j["decision"]["suspects"]]' <<<"$out")" \
	"('changed', ['$K_ID'])"
echo "days N=$N: tested $tested runs, fetched $fetched profiles" >&2

# Second identical call: served from the cache, no request at all.
before=$(requests)
out2=$(days --json --repo "$TMP/repo" 2>/dev/null)
check_eq "second call downloads" "$(json_get 'j["downloaded_profiles"]' <<<"$out2")" 0
check_eq "second call requests" "$(requests)" "$before"
check_eq "second call same answer" "$(json_get 'j["first_slow"]["commit"]' <<<"$out2")" "$K_ID"

out=$(days --repo "$TMP/repo" 2>/dev/null)
grep -q "^decision: a hot file changed in the window; suspect commit:$" <<<"$out" || fail "text decision: $out"
grep -q "^  ${K_ID:0:12} 2026-11-11 commit $K$" <<<"$out" || fail "text suspect: $out"

# Text form, without a repository: commits as the runs file gives them.
out=$(days 2>/dev/null)
[[ "$out" == *"first slow: 2026-11-11 ${K_ID:0:8} 6.81% (95% interval 6.16-7.48%)"* ]] || fail "text: $out"
grep -q '^tested [0-9a-f]* 2026-11-01: broker-0 2.64%, broker-1 2.43%' <<<"$out" || fail "tested lines: $out"

# --threshold auto: the ends judged first, the threshold where they
# separate best (checked against tests/tools/auto_threshold.py, which
# computes it apart from fgbisect from the ends' counts), the same answer.
counts() { # counts FILE...: "K/N,K/N" of the frame in each profile
	local f
	for f in "$@"; do
		"$FGBISECT" share --json --frame TransactionalColumnFamily "$f" |
			json_get '"%d/%d" % (j["profiles"][0]["matches"][0]["samples"], j["profiles"][0]["total"])'
	done | paste -sd,
}
want=$(python3 "$FG_SOURCE_DIR/tests/tools/auto_threshold.py" \
	"$(counts "$FX"/day01-broker-[01]-grpc.collapsed.gz)" \
	"$(counts "$FX/day10-broker-0-grpc.collapsed.gz" "$FX/zeebe-regressed.collapsed.gz")")
t_want=$(printf '%.2f' "${want%% *}")
out=$(days --threshold auto --json 2>"$TMP/err")
check_eq "auto: the threshold" "$(json_get '" ".join("%.4f" % j["threshold_auto"][k] for k in ("threshold", "good", "bad", "good_sd", "bad_sd", "distance"))' <<<"$out")" "$want"
check_eq "auto: the answer" "$(json_get 'j["first_slow"]["date"], j["last_fast"]["date"], j["tested"][0]["threshold"]' <<<"$out")" \
	"('2026-11-11', '2026-11-10', $t_want)"
grep -q "^threshold auto: $t_want%, the point of equal standardised distance between the good end's 2.53% (sd 0.31 pp) and the bad end's 6.81% (sd 0.36 pp)" "$TMP/err" ||
	fail "auto: the line: $(head -1 "$TMP/err")"
# Ends that do not differ (both healthy): every run is scanned, no rise is
# found: exit 1, saying so.
out=$(days --threshold auto --bad 2026-11-05 2>"$TMP/err") && rc=0 || rc=$?
check_eq "auto: ends alike: status" "$rc" 1
check_eq "auto: ends alike: why" "$out" "threshold auto: the good end's share 2.53% is not below the bad end's 2.53%: there is no regression between them to find: every run scanned"
check_eq "auto: ends alike: nothing found" "$(cat "$TMP/err")" \
	"fgbisect days: no rise of the share is a change point of the runs read (0 change point(s), none a rise): nothing found"
check_eq "auto: not in run mode" "$(status "$FGBISECT" --frame X --threshold auto --runs "$TMP/runs.txt")" 255

# --scan: every run judged, all profiles fetched at once through the cache
# (each downloaded once), the change point checked against
# tests/tools/changepoint.py, which computes it apart from fgbisect from the
# runs' node counts; a second call downloads nothing.
healthy=$(counts "$FX"/day01-broker-[01]-grpc.collapsed.gz)
regressed=$(counts "$FX/day10-broker-0-grpc.collapsed.gz" "$FX/zeebe-regressed.collapsed.gz")
cp_args() { # cp_args MISSING: the runs' counts, run MISSING (1-based) not read
	local i
	for ((i = 1; i <= N; i++)); do
		if ((i == $1)); then echo -; elif ((i < K)); then echo "$healthy"; else echo "$regressed"; fi
	done
}
cp_json='"\n".join(["%d %d %d %.4f %.4f %.4f %.6f" % (int(c["date"][8:]) - 1, int(j["window_runs"][0]["date"][8:]) - 1,
	int(j["window_runs"][-1]["date"][8:]) - 1, c["before"], c["after"], c["z"], c["confidence"]) for c in j["change_point"]["changes"]]
	+ ["%.4f %.4f %.4f %d" % tuple(j["change_point"][k] for k in ("noise", "noise_floor", "noise_estimate", "noise_df"))])'
rm -rf "$XDG_CACHE_HOME"
before=$(requests)
out=$(days --scan --json 2>"$TMP/err")
check_eq "scan: the answer" "$(json_get 'j["first_slow"]["date"], j["last_fast"]["date"], j["change_point"]["most_likely"]["date"], j["change_point"]["method"], len(j["tested"]), j["change_point"]["left_out"]' <<<"$out")" \
	"('2026-11-11', '2026-11-10', '2026-11-11', 'scan', 16, [])"
check_eq "scan: the change point" "$(json_get "$cp_json" <<<"$out")" "$(python3 "$FG_SOURCE_DIR/tests/tools/changepoint.py" $(cp_args 0))"
check_eq "scan: downloads" "$(json_get 'j["downloaded_profiles"], j["fetched_profiles"]' <<<"$out") $(($(requests) - before))" "(32, 32) 32"
out=$(days --scan --json 2>/dev/null)
check_eq "scan: second call" "$(json_get 'j["downloaded_profiles"], j["first_slow"]["date"]' <<<"$out")" "(0, '2026-11-11')"
out=$(days --scan 2>/dev/null)
grep -q '^the change point: confidence 100.00%; the first slow run is one of 1 (2026-11-11), most likely 2026-11-11$' <<<"$out" ||
	fail "scan: text: $out"
grep -q "^  2026-11-11 ${K_ID:0:8} 2.53% -> 6.81% (z [0-9.]*, confidence 100.00%)  <- the rise$" <<<"$out" || fail "scan: change line: $out"
# A run next to the step that cannot be read (both nodes 404) is left out,
# named, and may be the first slow one.
sed 's#/files/2026-11-10-broker-#/files/missing-2026-11-10-broker-#' "$TMP/runs.txt" >"$TMP/scan.txt"
out=$("$FGBISECT" days --runs "$TMP/scan.txt" --frame TransactionalColumnFamily --threshold 4 --scan --json 2>/dev/null)
check_eq "scan: left out" "$(json_get '[(r["date"], "404" in r["reason"]) for r in j["change_point"]["left_out"]], [w["date"] for w in j["window_runs"]], j["change_point"]["most_likely"]["date"]' <<<"$out")" \
	"([('2026-11-10', True)], ['2026-11-10', '2026-11-11'], '2026-11-11')"
check_eq "scan: left out: the change point" "$(json_get "$cp_json" <<<"$out")" "$(python3 "$FG_SOURCE_DIR/tests/tools/changepoint.py" $(cp_args 10))"
# --threshold auto with --scan: half way between the two sides.
out=$(days --scan --threshold auto 2>/dev/null)
grep -q '^threshold auto: 4.67%, half way between the two sides of the change point (2.53%, se 0.[0-9]* pp, and 6.81%, se 0.[0-9]* pp)$' <<<"$out" ||
	fail "scan: auto: $(head -3 <<<"$out")"
# No rise (the healthy runs only): exit 1, saying so.
err=$(days --scan --bad 2026-11-10 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "scan: no rise" "$rc $err" "1 fgbisect days: no rise of the share is a change point of the runs read (0 change point(s), none a rise): nothing found"

# Partial runs: a third node listed for the two runs around the answer,
# missing (a 404) on both: each run is judged on the two nodes read, the
# missing one named in its JSON entry; the answer and the hot files (from
# the profiles read) are those of the complete runs.
for d in 10 11; do
	echo "2026-11-$d ${COMMITS[d - 1]:0:8} broker-2 grpc cpu http://127.0.0.1:$PORT/files/missing-2026-11-$d-broker-2.collapsed.gz"
done >>"$TMP/runs.txt"
out=$(days --json --repo "$TMP/repo" 2>"$TMP/err")
check_eq "partial runs: the answer" "$(json_get 'j["first_slow"]["date"], j["last_fast"]["date"], [h["path"].split("/")[-1] for h in j["hotfiles"]]' <<<"$out")" \
	"('2026-11-11', '2026-11-10', ['TransactionalColumnFamily.java'])"
grep -q "2026-11-11: broker-0 6.57%, broker-1 7.11%, broker-2 not read; pooled 6.81% .*: slow (.*judged on 2 of 3 profiles, left out: broker-2: HTTP status 404" "$TMP/err" ||
	fail "partial runs: the verdict line: $(cat "$TMP/err")"
check_eq "partial runs: the JSON entry" "$(json_get '[(p["node"], p["read"], p["error"]) for t in j["tested"] if t["date"] == "2026-11-11" for p in t["profiles"]]' <<<"$out")" \
	"[('broker-0', True, None), ('broker-1', True, None), ('broker-2', False, 'HTTP status 404')]"
sed -i '/broker-2/d' "$TMP/runs.txt"

# An undecidable run next to the answer (a 404) is skipped like git skips
# and reported; the search still ends on the right day.
sed -i 's#/files/2026-11-10-broker-1#/files/missing-2026-11-10#' "$TMP/runs.txt"
out=$(days --json 2>/dev/null)
check_eq "skip reported" "$(json_get '[t["date"] for t in j["tested"] if t["verdict"] == "skip"]' <<<"$out")" "['2026-11-10']"
check_eq "skip: first slow" "$(json_get 'j["first_slow"]["date"], j["last_fast"]["date"], [s["date"] for s in j["skipped_between"]]' <<<"$out")" \
	"('2026-11-11', '2026-11-09', ['2026-11-10'])"

# Undecidable ends (404s) move inward to their nearest decidable neighbours
# instead of stopping the search; the answer names them (2026-11-10 is still
# the undecidable run of the case above).
sed -e 's#/files/2026-11-01-broker-0#/files/missing-2026-11-01#' -e 's#/files/2026-11-16-broker-0#/files/missing-2026-11-16#' \
	"$TMP/runs.txt" >"$TMP/ends.txt"
out=$("$FGBISECT" days --runs "$TMP/ends.txt" --frame TransactionalColumnFamily --threshold 4 --json 2>/dev/null)
check_eq "skipped ends" "$(json_get '[(e["date"], "404" in e["reason"]) for e in j["skipped_ends"]]' <<<"$out")" \
	"[('2026-11-01', True), ('2026-11-16', True)]"
check_eq "ends moved inward: answer" "$(json_get 'j["tested"][1]["date"], j["tested"][3]["date"], j["first_slow"]["date"], [w["date"] for w in j["window_runs"]]' <<<"$out")" \
	"('2026-11-02', '2026-11-15', '2026-11-11', ['2026-11-10', '2026-11-11'])"
out=$("$FGBISECT" days --runs "$TMP/ends.txt" --frame TransactionalColumnFamily --threshold 4 2>/dev/null)
grep -q '^the good end 2026-11-01 could not be judged: searched from 2026-11-02 (1 run(s) skipped)$' <<<"$out" || fail "moved good end: $out"
grep -q '^the bad end 2026-11-16 could not be judged: searched up to 2026-11-15 (1 run(s) skipped)$' <<<"$out" || fail "moved bad end: $out"
# The window of several runs is named.
sed -i 's#/files/2026-11-09-broker-1#/files/missing-2026-11-09#' "$TMP/runs.txt"
out=$(days 2>/dev/null)
grep -q '^the first slow run is one of 3: 2 between them could not be judged (2026-11-09, 2026-11-10) or 2026-11-11$' <<<"$out" \
	|| fail "window text: $out"
out=$(days --json 2>/dev/null)
check_eq "window runs" "$(json_get '[w["date"] for w in j["window_runs"]]' <<<"$out")" "['2026-11-09', '2026-11-10', '2026-11-11']"

# The noise: assumed, and estimated from the spread of the judged runs on
# each side (here nodes of different days and versions, 2.43-2.84% and
# 6.57-7.11%): sqrt(0.0076282), the variance between the runs of a side less
# the Wilson variance of their counts; an assumption below it is warned about.
{
	echo "2026-12-01 aaaa0001 n0 grpc cpu $FX/day01-broker-0-grpc.collapsed.gz"
	echo "2026-12-02 aaaa0002 n0 grpc cpu $FX/day01-broker-1-grpc.collapsed.gz"
	echo "2026-12-03 aaaa0003 n0 - cpu $FX/day10-broker-0-grpc.collapsed.gz"
	echo "2026-12-04 aaaa0004 n0 - cpu $FX/zeebe-regressed.collapsed.gz"
} >"$TMP/spread.txt"
out=$("$FGBISECT" days --runs "$TMP/spread.txt" --frame TransactionalColumnFamily --threshold 4 --json 2>"$TMP/err")
check_eq "noise json" "$(json_get 'j["noise"]["assumed"], j["noise"]["source"], j["noise"]["estimate_runs"], j["noise"]["estimate_df"], "%.4f" % j["noise"]["estimate"]' <<<"$out")" \
	"(0.24, 'default', 4, 2, '0.0873')"
! grep -q "spread more than the noise assumed" "$TMP/err" || fail "warned at the default noise: $(cat "$TMP/err")"
"$FGBISECT" days --runs "$TMP/spread.txt" --frame TransactionalColumnFamily --threshold 4 --noise 0.01 >"$TMP/out" 2>"$TMP/err"
grep -q "^fgbisect: warning: the judged runs spread more than the noise assumed (about 0.09 pp from 4 runs, against 0.01 pp)" "$TMP/err" \
	|| fail "noise warning: $(cat "$TMP/err")"
grep -q "^noise: 0.01 pp (--noise); the spread of 4 judged runs suggests 0.09 pp$" "$TMP/out" || fail "noise line: $(cat "$TMP/out")"

# --good/--bad choose the ends; a good end that is slow refuses (exit 1).
out=$(days --json --good 2026-11-05 --bad 2026-11-12 2>/dev/null)
check_eq "ends" "$(json_get 'j["tested"][0]["date"], j["tested"][1]["date"], j["first_slow"]["date"]' <<<"$out")" \
	"('2026-11-05', '2026-11-12', '2026-11-11')"
err=$(days --good 2026-11-12 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "good end slow" "$rc" 1
[[ "$err" == *"the good end 2026-11-12"*"is slow, not fast"* ]] || fail "good end message: $err"
err=$(days --frame X 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "mistyped frame" "$rc" 2
err=$("$FGBISECT" days --runs "$TMP/runs.txt" --frame TransactionalColumnFamliy --threshold 4 2>&1 >/dev/null) && rc=0 || rc=$?
check_eq "mistyped frame: bad end fast" "$rc" 1
[[ "$err" == *mistyped* && "$err" == *"the bad end"*"is fast, not slow"* ]] || fail "mistyped: $err"
check_eq "bad date" "$(status days --good 2026-13-01)" 2
check_eq "no --threshold" "$(status "$FGBISECT" days --runs "$TMP/runs.txt" --frame X)" 2
"$FGBISECT" days --help | grep '^usage: fgbisect days' >/dev/null || fail "days --help"
finish
