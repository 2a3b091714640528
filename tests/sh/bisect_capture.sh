# ctest-labels: slow
# Capture mode: a command writes the profile of HEAD to $FGBISECT_OUT.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
source "$FG_SOURCE_DIR/tests/bisect_lib.sh"
make_world 3 3
stop_server
cd "$TMP/repo"
mkdir "$TMP/t" && export TMPDIR="$TMP/t"
run() { "$FGBISECT" --frame TransactionalColumnFamily --threshold 4 "$@"; }
expect() { # expect NAME CODE PATTERN CMD...
	local name=$1 code=$2 pat=$3; shift 3
	set +e; "$@" >"$TMP/out" 2>"$TMP/why"; local rc=$?; set -e
	check_eq "$name" "$rc" "$code"
	grep -q -- "$pat" "$TMP/why" || fail "$name: stderr lacks '$pat': $(cat "$TMP/why")"
}

# The command copies a fixture chosen by the commit it is given; its
# chatter on stdout goes to stderr, so --json stays one object.
cat >"$TMP/cap.sh" <<SH
echo "building \$FGBISECT_SHORT of \$FGBISECT_DATE in \$PWD"
if [ "\$FGBISECT_COMMIT" = "${COMMITS[0]}" ]; then f=day01-broker-0-grpc; else f=day10-broker-0-grpc; fi
cp "$FX/\$f.collapsed.gz" "\$FGBISECT_OUT"
SH
expect "capture slow" 1 "building ${COMMITS[2]:0:7} of 2026-11-03 in $TMP/repo" run --json --capture "sh $TMP/cap.sh"
check_eq "capture json" "$(json_get 'j["verdict"], j["profiles"][0]["source"], j["captures"]' <"$TMP/out")" "('slow', 'capture 1', 1)"
git checkout -q "${COMMITS[0]}"
expect "capture fast" 0 ": fast" run --capture "sh $TMP/cap.sh"
# From a subfolder the command still runs at the top of the work tree.
git checkout -q main && mkdir -p sub
expect "capture from a subfolder" 1 "in $TMP/repo\$" bash -c 'cd sub && "$@"' _ "$FGBISECT" --frame TransactionalColumnFamily \
	--threshold 4 --capture "sh $TMP/cap.sh"
rmdir sub
# Failures are skips: exit status, no output, a timeout (the whole group goes).
expect "capture fails" 125 "failed with exit status 3" run --capture 'exit 3'
expect "capture writes nothing" 125 "wrote no profile" run --capture 'true'
expect "capture not a profile" 125 "" run --capture 'echo "<html>502</html>" > "$FGBISECT_OUT"'
start=$(date +%s)
expect "capture timeout" 125 "timed out after 1 s" run --capture-timeout 1 --capture "sleep 30 & echo \$! > $TMP/bg; sleep 30"
(( $(date +%s) - start < 1 + $(scaled 9) )) || fail "the timeout did not stop the capture"
sleep 0.2
# Gone, or a zombie waiting for an init that may not reap it.
state=$(ps -o stat= -p "$(cat "$TMP/bg")" 2>/dev/null || true)
[[ -z "$state" || "$state" == Z* ]] || fail "a background process of the capture survived the timeout ($state)"
check_eq "capture-timeout without capture" "$(status run --capture-timeout 1)" 255

# Few samples: the verdict says how few, and a bisection whose ends cannot
# be judged for it stops saying what to change (and never starts git).
printf 'main;TransactionalColumnFamily.get 1\nmain;other 6\n' >"$TMP/seven.collapsed"
expect "few samples" 125 "cannot tell: the interval .* holds the threshold 4%; .* captures would decide; only 7 samples)" \
	run --capture-repeats 1 --capture "cp $TMP/seven.collapsed \"\$FGBISECT_OUT\""
expect "few samples: bisect stops" 1 "refusing to start: --good ${COMMITS[0]} cannot be judged, nor the 1 commit after it on the first-parent line: ${COMMITS[0]:0:12} (cannot tell: .*; only 7 samples), ${COMMITS[1]:0:12} (.*only 7 samples); so few samples give intervals too wide to decide: profile longer or at a higher rate" \
	"$FGBISECT" bisect --good "${COMMITS[0]}" --bad HEAD --frame TransactionalColumnFamily --threshold 4 \
	--capture-repeats 1 --capture "cp $TMP/seven.collapsed \"\$FGBISECT_OUT\""
check_eq "few samples: HEAD restored" "$(git rev-parse --abbrev-ref HEAD)" main
# --bad HEAD is the HEAD given, not the good end the capture checked out.
grep -q "^fgbisect: ${COMMITS[2]:0:12} " "$TMP/why" || fail "--bad HEAD judged another commit: $(cat "$TMP/why")"

check_eq "capture-repeats without capture" "$(status run --capture-repeats 2)" 255

# --capture-repeats: resampled captures (tests/tools/resample_capture.py,
# seeded by commit and capture number) of six commits, 3.6% before the
# fourth and 4.4% from it, 20,000 samples a capture.  One capture's interval
# (+-0.54 points with the assumed 0.24 pp noise) holds the threshold 4%;
# pooled captures narrow it (the noise of their mean falls as 1/sqrt(k)).
# Three captures: their spread 0.0785 pp moderates the assumed 0.24 (as 4
# captures' worth): sqrt((4 * 0.24^2 + 2 * 0.0785^2) / 6) / sqrt(3) = 0.1161;
# the third look's boundary 2.0087 (of 3), as a t on 6^2 / 2 = 18 df (the
# spread's 2, weighted 2 of 6) 2.16: 3.60 +- 0.30.
export XDG_CACHE_HOME="$TMP/xdg"
git init -q -b main "$TMP/six"
for i in 1 2 3 4 5 6; do
	echo "$i" >"$TMP/six/f"
	git -C "$TMP/six" add f
	GIT_AUTHOR_DATE="2026-11-0${i}T12:00:00Z" GIT_COMMITTER_DATE="2026-11-0${i}T12:00:00Z" \
		git -C "$TMP/six" commit -q -m "commit $i"
done
mapfile -t SIX < <(git -C "$TMP/six" log --format=%H --reverse)
for i in 0 1 2 3 4 5; do echo "${SIX[i]} $((i < 3 ? 36 : 44))e-1"; done >"$TMP/shares"
mkdir "$TMP/state"
resampled="python3 $FG_SOURCE_DIR/tests/tools/resample_capture.py --pattern TransactionalColumnFamily \
--shares $TMP/shares --state $TMP/state --samples 20000 $FX/day01-broker-0-grpc.collapsed.gz $FX/day10-broker-0-grpc.collapsed.gz"
cd "$TMP/six"
git checkout -q "${SIX[1]}"
expect "one capture cannot tell" 125 "capture 1 of at most 1: 3.50% of 20000 samples; 1 pooled: skip$" \
	run --capture-repeats 1 --capture "$resampled"
rm -f "$TMP/state/"*
expect "captured again until decided" 0 "capture 2 of at most 3: 3.77% of 20000 samples; 2 pooled: skip, capturing again" \
	run --json --capture "$resampled"
grep -q "capture 1 3.50%, capture 2 3.77%, capture 3 3.52%; pooled 3.60% (interval 3.30-3.90% at look 3 of 3, z 2.16: .*noise 0.12 pp for 3 captures pooled, their spread 0.08 pp a capture).*: fast" "$TMP/why" ||
	fail "the pooled verdict: $(cat "$TMP/why")"
check_eq "captures in json" "$(json_get 'j["captures"], j["noise_source"], j["noise_estimate"], j["noise"]' <"$TMP/out")" \
	"(3, 'captures', 0.0785, 0.1161)"
# A whole bisection: the ends and every commit captured until decided, the
# summary and the report from the captures kept in the cache.
rm -f "$TMP/state/"*
git checkout -q main
"$FGBISECT" bisect --good "${SIX[0]}" --bad main --frame TransactionalColumnFamily --threshold 4 --json \
	--capture "$resampled" --capture-repeats 5 --html "$TMP/six.html" >"$TMP/out" 2>"$TMP/why" && rc=0 || rc=$?
check_eq "bisect with repeats" "$rc" 0
check_eq "first slow, its share and its parent's, from the kept captures" \
	"$(json_get 'j["first_slow"]["commit"], j["first_slow"]["verdict"], j["first_slow"]["captures"], j["parent"]["commit"], j["parent"]["verdict"], j["parent"]["share"]' <"$TMP/out")" \
	"('${SIX[3]}', 'slow', 4, '${SIX[2]}', 'fast', 3.5433)"
for end in "${SIX[0]}" "${SIX[5]}"; do
	grep -q "^fgbisect: ${end:0:12} capture 2 of at most 5: " "$TMP/why" || fail "end ${end:0:12} not captured again: $(cat "$TMP/why")"
done
grep -q "warning" "$TMP/why" && fail "warnings: $(grep warning "$TMP/why")"
grep -q "the first slow commit's parent" "$TMP/six.html" || fail "the report has no flame graph of the parent against the first slow commit"
# Without the cache nothing is kept: the summary says so, never a share.
rm -f "$TMP/state/"*
"$FGBISECT" bisect --good "${SIX[0]}" --bad main --frame TransactionalColumnFamily --threshold 4 --json --no-cache \
	--capture "$resampled" --capture-repeats 5 >"$TMP/out" 2>"$TMP/why" && rc=0 || rc=$?
check_eq "no cache: the parent not kept" "$rc/$(json_get 'j["parent"]["verdict"], j["parent"]["reason"][:30]' <"$TMP/out")" \
	"0/('skip', 'no capture of this commit is k')"
cd "$TMP/repo"

check_eq "private temp folders removed" "$(ls -A "$TMP/t")" ""

# contrib/capture/perf.sh, where perf can sample.
if perf record -o /dev/null true >/dev/null 2>&1; then
	expect "perf.sh" 0 ": fast" "$FGBISECT" --frame fgbisect_no_such_frame --threshold 50 --min-samples 1 \
		--capture "$FG_SOURCE_DIR/contrib/capture/perf.sh sh -c 'i=0; while [ \$i -lt 200000 ]; do i=\$((i+1)); done'"
	grep -q "perf.sh: warning" "$TMP/why" && fail "perf.sh at its default rate warned: $(cat "$TMP/why")"
	expect "perf.sh: few samples warned" 0 "perf.sh: warning: only [0-9]* samples at 4999 Hz: too few" \
		env PERF_MIN_SAMPLES=100000000 "$FGBISECT" --frame fgbisect_no_such_frame --threshold 50 --min-samples 1 \
		--capture "$FG_SOURCE_DIR/contrib/capture/perf.sh sh -c 'i=0; while [ \$i -lt 200000 ]; do i=\$((i+1)); done'"
else
	echo "SKIP: contrib/capture/perf.sh not tested: 'perf record -o /dev/null true' fails here" >&2
fi
finish
