# SIGINT and SIGTERM clean up (issue #15): a capture's process group is
# killed and its temporary folder removed, a download leaves no tmp- file in
# the cache, a bisection fgbisect started is stopped and reset; the exit
# status is 130 / 143, never death by the signal.  Real signals, real git
# bisect run, real HTTP over loopback.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
source "$FG_SOURCE_DIR/tests/bisect_lib.sh"
make_world 4 3
cd "$TMP/repo"
export TMPDIR="$TMP/tmp"
mkdir -p "$TMPDIR"

# start NAME CMD...: runs CMD in the background; its pid in $PID.
start() {
	local name=$1
	shift
	"$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PID=$!
}
# finish_with NAME WHAT SIGNAL STATUS: sends SIGNAL to what start NAME
# started, checks the exit status.
finish_with() {
	local name=$1 what=$2 sig=$3 want=$4 rc=0
	kill -s "$sig" "$PID"
	wait "$PID" || rc=$?
	check_eq "$what: exit status ($(head -c 300 "$TMP/$name.err"))" "$rc" "$want"
}
# wait_for FILE: until it exists (10 s at most, scaled).
wait_for() {
	for _ in $(seq $((200 * TIME_FACTOR))); do [[ -e $1 ]] && return 0; sleep 0.05; done
	fail "waited in vain for $1"
}
# alive PID: running (a zombie waiting for a reaper counts as gone).
alive() { [[ -e /proc/$1/stat ]] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat"; }
# gone PID: dead within 5 s, scaled (a signal takes a moment to land on a loaded machine).
gone() {
	for _ in $(seq $((100 * TIME_FACTOR))); do alive "$1" || return 0; sleep 0.05; done
	return 1
}
capture_cmd='sleep 300 & echo $! >"$BG"; echo $$ >"$SH"; sleep 300'

# ---- a capture interrupted: its whole process group goes, its folder too ---------
for sig in TERM INT; do
	[[ $sig == INT ]] && want=130 || want=143
	export BG="$TMP/bg.$sig" SH="$TMP/sh.$sig"
	start "capture-$sig" "$FGBISECT" run --frame a --threshold 4 --capture "$capture_cmd"
	wait_for "$BG"
	wait_for "$SH"
	sleep 0.2
	finish_with "capture-$sig" "capture, SIG$sig" "$sig" "$want"
	sleep 0.2
	CHECKS=$((CHECKS + 2))
	gone "$(cat "$BG")" || fail "capture, SIG$sig: the background process of the capture survived"
	gone "$(cat "$SH")" || fail "capture, SIG$sig: the capture's shell survived"
	check_eq "capture, SIG$sig: temporary folder left" "$(ls "$TMPDIR")" ""
done

# ---- a capture that ends normally takes what it left in its group along -------------
export BG="$TMP/bg.normal"
rc=0
"$FGBISECT" run --frame TransactionalColumnFamily --threshold 4 --min-samples 1 \
	--capture "sleep 300 & echo \$! >\"\$BG\"; zcat '$FX/zeebe-healthy.collapsed.gz' >\"\$FGBISECT_OUT\"" \
	>/dev/null 2>"$TMP/normal.err" || rc=$?
check_eq "capture that ends normally: status ($(cat "$TMP/normal.err"))" "$rc" 0
sleep 0.2
CHECKS=$((CHECKS + 1))
gone "$(cat "$BG")" || fail "capture that ends normally: its background process survived"

# ---- a download interrupted: no tmp- file left in the cache -----------------------
start download "$FGBISECT" share -f x "http://127.0.0.1:$PORT/stall"
for _ in $(seq $((200 * TIME_FACTOR))); do compgen -G "$XDG_CACHE_HOME/fgbisect/tmp-*" >/dev/null && break; sleep 0.05; done
CHECKS=$((CHECKS + 1))
compgen -G "$XDG_CACHE_HOME/fgbisect/tmp-*" >/dev/null || fail "download: no temporary cache file seen while it ran"
sleep 0.3 # into the transfer
finish_with download "download, SIGTERM" TERM 143
check_eq "download, SIGTERM: tmp- files left in the cache" "$(ls "$XDG_CACHE_HOME/fgbisect" | grep -c '^tmp-' || true)" 0
start download2 "$FGBISECT" share --no-cache -f x "http://127.0.0.1:$PORT/stall?nocache"
sleep 1
finish_with download2 "download (no cache), SIGINT" INT 130
check_eq "download (no cache), SIGINT: temporary files left" "$(ls "$TMPDIR")" ""

# ---- a bisection interrupted: git bisect run stopped, the bisection reset --------------
# The ends (days 1 and 4) answer at once; the commits between are held, so
# that the signal comes while git bisect run waits on fgbisect run.
touch "$TMP/docroot/hold-2026-11-02-broker-1.collapsed.gz" "$TMP/docroot/hold-2026-11-03-broker-1.collapsed.gz"
git checkout -q main
start bisect "$FGBISECT" bisect --good "${COMMITS[0]}" --bad "${COMMITS[3]}" --frame TransactionalColumnFamily \
	--threshold 4 --no-cache --profile "http://127.0.0.1:$PORT/hold/{date}-broker-1.collapsed.gz"
wait_for "$TMP/repo/.git/BISECT_START"
# Only this test's processes: their command lines name its server's port.
ours="$FGBISECT run .*127.0.0.1:$PORT/hold/"
for _ in $(seq $((200 * TIME_FACTOR))); do pgrep -f "$ours" >/dev/null && break; sleep 0.05; done
sleep 0.3
finish_with bisect "bisect, SIGTERM" TERM 143
CHECKS=$((CHECKS + 1))
grep -q "interrupted by SIGTERM: stopped git bisect run and reset the bisection" "$TMP/bisect.err" ||
	fail "bisect, SIGTERM: no word of the reset: $(cat "$TMP/bisect.err")"
CHECKS=$((CHECKS + 1))
[[ ! -e "$TMP/repo/.git/BISECT_START" ]] || fail "bisect, SIGTERM: the repository is still bisecting"
check_eq "bisect, SIGTERM: HEAD back on its branch" "$(git symbolic-ref -q HEAD || echo detached)" refs/heads/main
sleep 0.3
CHECKS=$((CHECKS + 1))
! pgrep -f "^$ours" >/dev/null || fail "bisect, SIGTERM: an fgbisect run survived: $(pgrep -af "^$ours")"
CHECKS=$((CHECKS + 1))
! pgrep -f "bisect run $ours" >/dev/null || fail "bisect, SIGTERM: git bisect run survived"
rm -f "$TMP"/docroot/hold-*

# ---- a capture bisection interrupted while it judges its ends: HEAD given back ---------
# The good end's capture is held; the signal comes while that commit is
# checked out.
for sig in INT TERM; do
	[[ $sig == INT ]] && want=130 || want=143
	export BG="$TMP/bg.ends$sig" SH="$TMP/sh.ends$sig"
	git checkout -q main
	start "ends-$sig" "$FGBISECT" bisect --good "${COMMITS[0]}" --bad "${COMMITS[3]}" \
		--frame TransactionalColumnFamily --threshold 4 --capture "$capture_cmd"
	wait_for "$BG"
	wait_for "$SH"
	check_eq "ends, SIG$sig: the good end is checked out while it is captured" "$(git rev-parse HEAD)" "${COMMITS[0]}"
	finish_with "ends-$sig" "ends, SIG$sig" "$sig" "$want"
	CHECKS=$((CHECKS + 1))
	grep -q "interrupted by SIG$sig while judging the ends: stopped the capture and checked out main again" \
		"$TMP/ends-$sig.err" || fail "ends, SIG$sig: no word of the checkout: $(cat "$TMP/ends-$sig.err")"
	check_eq "ends, SIG$sig: HEAD back on its branch" "$(git symbolic-ref -q HEAD || echo detached)" refs/heads/main
	CHECKS=$((CHECKS + 3))
	[[ ! -e "$TMP/repo/.git/BISECT_START" ]] || fail "ends, SIG$sig: a bisection was started"
	gone "$(cat "$BG")" || fail "ends, SIG$sig: the background process of the capture survived"
	gone "$(cat "$SH")" || fail "ends, SIG$sig: the capture's shell survived"
	check_eq "ends, SIG$sig: the bad end was not judged" "$(grep -c "${COMMITS[3]:0:12}" "$TMP/ends-$sig.err" || true)" 0
done

finish
