#!/bin/bash
# ctest-labels: slow
# days --html: the report of a search over 8 daily runs served over HTTP (a
# real repository, the 5th commit changes TransactionalColumnFamily.java,
# the 6th run's profile is broken), checked in headless Chromium by
# tests/tools/check_report.py: self-contained (no URL, nothing fetched), the
# decision in words, the share chart marks fast, slow and skipped runs in
# their colours, the runs table with intervals and reasons, the window's
# commits, the changed hot file, the embedded flame graph hovers and zooms,
# and it prints.  A search that finds nothing still writes its report.
# diff --html and bisect --html write the same page from their results.
source "$FG_SOURCE_DIR/tests/lib.sh"
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
	echo "SKIP: ****** chromium is not installed: the report was NOT tested in a browser" \
		"(apt-get install -y chromium) ******" >&2
	exit 77
fi
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
source "$FG_SOURCE_DIR/tests/bisect_lib.sh"
make_world 8 5
# The 6th run's first profile: not a profile at all.
sed -i "/^2026-11-06 .* broker-0 /s|http://[^ ]*|broken.collapsed|" "$TMP/runs.txt"
printf 'garbage\n' >"$TMP/broken.collapsed"
days() { "$FGBISECT" days --runs "$TMP/runs.txt" --frame TransactionalColumnFamily --threshold 4 "$@"; }
days --repo "$TMP/repo" --good 2026-11-01 --bad 2026-11-08 --html "$TMP/report.html" >"$TMP/out" 2>"$TMP/err"
check_eq "days with --html" "$?" 0
check_eq "report written" "$(head -c 15 "$TMP/report.html")" "<!DOCTYPE html>"
# (the verdict memoised: tests/lib.sh's browser_passes)
CHECKS=$((CHECKS + 1))
browser_passes "$FG_SOURCE_DIR/tests/tools/check_report.py" "$TMP/report.html" "${K_ID:0:8}" ||
	fail "the report in Chromium"
# days --repo explains the --frame pattern's own frames: its headline (the
# verdicts' pooled shares), its methods beyond noise weighed by the decision.
check_eq "days --repo: the pattern's headline" "$(grep -c '^TransactionalColumnFamily: base 2.53% → candidate 6.81% (+4.28 points ±0.[0-9][0-9])$' "$TMP/out")" 1
check_eq "days --repo: the pattern's methods" "$(grep -c '^  \* +[0-9.]* points ([0-9.]*% → [0-9.]*%, noise [0-9.]*)  io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily\.' "$TMP/out")" 8
# One profile a side (one node): the growers cannot be told from node
# differences and are not weighed; the pattern's frames still decide.
days --repo "$TMP/repo" --good 2026-11-01 --bad 2026-11-08 --node broker-1 --min-nodes 1 --json >"$TMP/one.json" 2>/dev/null
check_eq "days --repo, one node: not separable, the pattern decides" "$(json_get 'j["separable"], j["no_decision"], j["decision"]["kind"], sum(g["weighed"] for g in j["pattern"]["groups"])' <"$TMP/one.json")" "(False, None, 'changed', 8)"
days --repo "$TMP/repo" --good 2026-11-01 --bad 2026-11-08 --node broker-1 --min-nodes 1 >"$TMP/one.txt" 2>/dev/null
check_eq "days --repo, one node: the caution" "$(grep -c '^caution: one profile a side: no node spread to measure' "$TMP/one.txt")" 1

# The top lines: the answer in one line, the inputs by name, the date; the
# profiles' URLs (served by the test) shortened to their names everywhere.
check_eq "days report: the answer on top" "$(grep -c '<p class="answer">TransactionalColumnFamily crossed 4% between 2026-11-04 (2.53%) and 2026-11-05 (6.81%)</p>' "$TMP/report.html")" 1
check_eq "days report: inputs and date" "$(grep -cE '<p class="inputs">inputs: [^<]*/runs.txt<br>written 20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC</p>' "$TMP/report.html")" 1
check_eq "days report: no full URL" "$(grep -c 'http://127' "$TMP/report.html")" 0

# Nothing to search (the threshold is below every run): exit 1, the report says why.
days --threshold 1 --html "$TMP/none.html" >/dev/null 2>&1 && rc=0 || rc=$?
check_eq "refused search" "$rc" 1
check_eq "refusal in the report" "$(grep -c 'is slow, not fast: nothing to search' "$TMP/none.html")" 1
check_eq "no flame graph without a window" "$(grep -c 'fg-diff' "$TMP/none.html")" 0
# diff --html: the lists and the flame graph, inlined (no XML declaration).
FX="$FG_SOURCE_DIR/fixtures"
"$FGBISECT" diff --html "$TMP/diff.html" "$FX"/day01-broker-{0,1,2}-grpc.collapsed.gz -- "$FX/day10-broker-0-grpc.collapsed.gz" >/dev/null
check_eq "diff report lists the regressed frame" "$(grep -c '<code>io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction</code></td><td class="n">2.18%</td><td class="n">5.71%</td><td class="n">+3.53</td>' "$TMP/diff.html")" 1
check_eq "diff report: the answer on top" "$(grep -c '<p class="answer">[0-9]* frames grew and [0-9]* shrank beyond noise; the most significant: <code>[^<]*</code> [0-9.]*% → [0-9.]*% ([+-][0-9.]* points, [0-9.]* times its noise)</p>' "$TMP/diff.html")" 1
check_eq "diff report: the inputs by side" "$(grep -c '<p class="inputs">base: [^<]*/day01-broker-0-grpc.collapsed.gz, [^<]*/day01-broker-1-grpc.collapsed.gz, [^<]*/day01-broker-2-grpc.collapsed.gz; candidate: [^<]*/day10-broker-0-grpc.collapsed.gz<br>written' "$TMP/diff.html")" 1
check_eq "diff report holds the flame graph" "$(grep -c '<svg class="fg-diff"' "$TMP/diff.html") $(grep -c '<?xml' "$TMP/diff.html")" "1 0"
check_eq "--html is not for --peers" "$(status "$FGBISECT" diff --peers --html "$TMP/p.html" "$FX"/day01-broker-{0,1,2}-grpc.collapsed.gz)" 2
check_eq "unwritable report" "$(days --html /nonexistent/r.html 2>&1 >/dev/null | grep -c 'cannot create the report')" 1

# bisect --html: the commits it judged against the threshold, the first slow
# one, and the flame graph of its parent against it.
bisect() { (cd "$TMP/repo" && "$FGBISECT" bisect --runs "$TMP/runs.txt" --good "${COMMITS[0]}" --bad main \
	--frame TransactionalColumnFamily "$@"); }
bisect --threshold 4 --html "$TMP/bisect.html" >"$TMP/bisect.out" 2>/dev/null && rc=0 || rc=$?
check_eq "bisect with --html" "$rc" 0
# The first slow commit explained: the pattern's frames of its parent against
# it, looked up in (parent, first slow], the decision over those beyond noise.
check_eq "bisect: the pattern's headline and the decision" \
	"$(grep -c '^TransactionalColumnFamily: base 2.53% → candidate 6.81% (+4.28 points ±0.[0-9][0-9])$\|^decision: a hot file changed in the window; suspect commit:$\|^  '"${K_ID:0:12}"' 2026-11-05 commit 5$' "$TMP/bisect.out")" 3
check_eq "bisect report: the headline, the hot file" \
	"$(grep -c '<p class="summary">TransactionalColumnFamily: base 2.53% → candidate 6.81%\|<tr class="changed"><td><code>zeebe/db/src/main/java/io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.java' "$TMP/bisect.html")" 2
check_eq "bisect report: the first slow commit in words" \
	"$(grep -c "The first slow commit is ${K_ID:0:12} (commit 5)\. Its share of TransactionalColumnFamily is" "$TMP/bisect.html")" 1
check_eq "bisect report: the judged commits in the chart" \
	"$(grep -o '>good end<\|>parent<\|>first slow<\|>bad end<' "$TMP/bisect.html" | sort | uniq | wc -l)" 4
check_eq "bisect report: the first slow commit listed" "$(grep -c "The first slow commit (1)" "$TMP/bisect.html")" 1
check_eq "bisect report holds the flame graph" "$(grep -c '<svg class="fg-diff"' "$TMP/bisect.html")" 1
# Only the ends have runs: every commit between is undecidable, the bisection
# is inconclusive, and its report lists git's candidates for the first slow
# commit (commits 2-7: 2026-11-02..07 have no run).
grep -v '^2026-11-0[2-7] ' "$TMP/runs.txt" >"$TMP/ends.txt"
(cd "$TMP/repo" && "$FGBISECT" bisect --runs "$TMP/ends.txt" --good "${COMMITS[0]}" --bad main \
	--frame TransactionalColumnFamily --threshold 4 --html "$TMP/bisect-inc.html") >/dev/null 2>&1 && rc=0 || rc=$?
check_eq "inconclusive bisection" "$rc" 3
check_eq "inconclusive report: the answer and the candidates" \
	"$(grep -c '<p class="answer">Inconclusive: the first slow commit is one of 7 that could not be judged</p>\|<h2>Candidates for the first slow commit (not judged) (7)</h2>' "$TMP/bisect-inc.html") $(grep -c '<tr><td class="id">' "$TMP/bisect-inc.html")" "2 7"
bisect --threshold 1 --html "$TMP/bisect-none.html" >/dev/null 2>&1 && rc=0 || rc=$?
check_eq "refused bisection" "$rc" 1
check_eq "refusal in the bisect report" "$(grep -c 'No bisection: --good .* is slow, not fast' "$TMP/bisect-none.html")" 1
check_eq "no flame graph without a bisection" "$(grep -c 'fg-diff' "$TMP/bisect-none.html")" 0
finish
