# Shared helpers for the command-level tests (sourced, not run).
set -euo pipefail
: "${FGBISECT:?FGBISECT must name the fgbisect binary}"
FAILS=0
CHECKS=0
# A command that stops the script under set -e says so (no silent failures).
trap 'status_=$?; [[ $- == *e* ]] && echo "FAIL: $(basename "$0"):$LINENO: \`$BASH_COMMAND\` failed (status $status_)" >&2' ERR

fail() {
	echo "FAIL: $*" >&2
	FAILS=$((FAILS + 1))
}

# status CMD...: the exit status of CMD (its output discarded), even under
# set -e: check_eq "missing file" "$(status "$FGBISECT" top nope)" 4
status() {
	set +e
	"$@" >/dev/null 2>&1
	echo $?
	set -e
}

# check_eq WHAT ACTUAL EXPECTED
check_eq() {
	CHECKS=$((CHECKS + 1))
	if [[ "$2" != "$3" ]]; then
		fail "$1: expected '$3', got '$2'"
	fi
}

# TIME_FACTOR: how many times longer than on a quiet machine a wait may
# take before a test calls it a failure: 3 under the sanitizers (ASan+UBSan
# at -O1 run the binary 2-3 x slower), times the load per core when the
# machine is busier than one runnable process a core (load 10 on 2 cores:
# 5), at most 30.  FG_TIME_FACTOR overrides it.  Waits are for hangs, not
# for speed: a slow machine must not fail a test.
time_factor() {
	local base=1 load cores
	[[ ${FG_SANITIZED:-0} != 1 ]] || base=3
	cores=$(nproc 2>/dev/null || echo 1)
	load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
	awk -v b="$base" -v l="$load" -v c="$cores" 'BEGIN { f = l / c; if (f < 1) f = 1; f = int(b * f + 0.999); print (f > 30 ? 30 : f) }'
}
TIME_FACTOR=${FG_TIME_FACTOR:-$(time_factor)}

# scaled SECONDS: SECONDS times TIME_FACTOR (whole seconds).
scaled() {
	echo $(($1 * TIME_FACTOR))
}

# wait_for_file FILE [SECONDS]: waits until FILE is not empty (a server's
# port file), at most SECONDS (default 5) scaled; fails when it never is.
wait_for_file() {
	local tries=$((${2:-5} * TIME_FACTOR * 20))
	while ((tries-- > 0)); do
		[[ -s $1 ]] && return 0
		sleep 0.05
	done
	return 1
}

# Skips (exit 77, which ctest reports as skipped) when ../shared is missing.
need_shared() {
	if [[ -z "${FG_SHARED_FIXTURES:-}" || ! -d "$FG_SHARED_FIXTURES" ]]; then
		echo "SKIP: the shared fixtures are not at '${FG_SHARED_FIXTURES:-}' (expected ../shared/fixtures beside the checkout)" >&2
		exit 77
	fi
}

# json_get EXPR < json: evaluates a Python expression on the parsed object j.
json_get() {
	python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}

# The ground truth of a collapsed file, independent of fgbisect: total
# samples and samples of stacks whose text matches the substring.
truth() {
	zcat -f "$1" | awk -v pat="$2" '{n=$NF; t+=n; s=$0; sub(/ [0-9]+$/,"",s); if (index(s, pat)) h+=n}
		END {printf "%d %d\n", t, h}'
}

# Collapsed stacks with type suffixes removed and duplicate stacks summed,
# sorted: two files compare as multisets.
canonical() {
	sed -E 's/_\[[0-9a-z]\](;| |$)/\1/g' | awk '{n=$NF; s=$0; sub(/ [0-9]+$/,"",s); c[s]+=n}
		END {for (k in c) print k " " c[k]}' | LC_ALL=C sort
}

# memo FUNC ARGS...: what FUNC ARGS prints, computed once per test cache
# (FG_TEST_CACHE: the plain and the sanitizer run share it) and replayed
# after.  For the truth a test checks fgbisect against (awk and Python over
# the fixtures, git's answers): it does not depend on the build, so the
# second run need not compute it again.  FUNC must be a function of its
# arguments and of the files they name: the key is the text of every shell
# function and the arguments, a file argument by its contents (not its
# name: temporary paths differ between runs, so FUNC must not print the
# names it is given).  A failing FUNC is not kept.
memo() {
	if [[ -z ${FG_TEST_CACHE:-} ]]; then
		"$@"
		return
	fi
	local key arg f
	key=$( {
		declare -f
		for arg in "$@"; do
			if [[ -f $arg ]]; then
				sha256sum <"$arg"
			else
				printf '%s\0' "$arg"
			fi
		done
	} | sha256sum | cut -c1-32)
	f=$FG_TEST_CACHE/memo/$key
	if [[ ! -f $f ]]; then
		mkdir -p "$FG_TEST_CACHE/memo"
		"$@" >"$f.$$" || { rm -f "$f.$$"; return 1; }
		mv -f "$f.$$" "$f"
	fi
	cat "$f"
}

# browser_passes CHECKER ARGS...: whether `python3 CHECKER ARGS... SHOTS`
# (a tests/tools checker driving headless Chromium) passes.  The verdict on
# the same bytes (ARGS' files, the checkers and the browser library) with
# the same Chromium build is memoised: the sanitizer run checks that its
# page is the plain run's, byte for byte, and takes the verdict.
# FG_KEEP_SCREENSHOTS=DIR keeps the screenshots there and so runs the
# browser every time (only a run makes them).
browser_passes() {
	local stamp tools=$FG_SOURCE_DIR/tests/tools verdict
	stamp=$(stat -L -c '%n %s %Y' "$(command -v chromium || command -v chromium-browser)")
	if [[ -n ${FG_KEEP_SCREENSHOTS:-} ]]; then
		verdict=$(browser_run "$stamp" "$tools/browser.py" "$tools/check_diff_svg.py" "$@" || true)
	else
		verdict=$(memo browser_run "$stamp" "$tools/browser.py" "$tools/check_diff_svg.py" "$@" || true)
	fi
	[[ $verdict == passed ]]
}

# browser_run STAMP LIB LIB CHECKER ARGS...: prints "passed" when the
# checker passes (what memo keeps); its own output goes to stderr.
browser_run() {
	local shots=${FG_KEEP_SCREENSHOTS:-} rc=0
	[[ -n $shots ]] || shots=$(mktemp -d)
	timeout "$(scaled 300)" python3 "${@:4}" "$shots" >&2 || rc=$?
	[[ -n ${FG_KEEP_SCREENSHOTS:-} ]] || rm -rf "$shots"
	[[ $rc -eq 0 ]] && echo passed
}

# canonical_file FILE: canonical of a (gzipped or plain) collapsed file.
canonical_file() {
	zcat -f "$1" | canonical
}

finish() {
	echo "$(basename "$0"): $CHECKS checks, $FAILS failed"
	[[ $FAILS -eq 0 ]]
}
