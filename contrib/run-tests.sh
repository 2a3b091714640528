#!/bin/bash
# The test command of the README and of CI: builds fgbisect twice (plain, and
# with AddressSanitizer + UndefinedBehaviorSanitizer) and runs the whole ctest
# suite on each, then fuzzes.  Tests that need ../shared/fixtures skip loudly
# without it (README's "Testing" says which).
#
# It configures its build folders itself, tests on (BUILD_TESTING=ON, whatever
# the quick start left in build/), and fails when a phase runs no test: ctest
# finding none, every test skipped, or a fuzz target that ran no input.
# Timeouts are for hangs: they scale with the sanitizers and with the load
# per core measured here (FG_TEST_LOAD_FACTOR; tests/lib.sh scales the waits
# inside the tests at each test's start).
#
# What takes the time is arranged so that the two cores stay busy:
# - the sanitizer build compiles at the lowest priority while the plain
#   tests run, the fuzzing build while the sanitizer tests run (tests wait
#   on servers, browsers and git often enough to leave a core idle);
# - generated git histories, git's answers and the other truths the tests
#   compute without fgbisect are made once, by the first run, and shared
#   with the second (FG_TEST_CACHE, tests/lib.sh's memo);
# - the slow tests start first, and the sanitizer run orders its tests by
#   what each took in the plain run (ctest's cost data).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# done_with WHAT: how long the command has taken so far, on stderr.
started=$SECONDS
done_with() {
	echo "run-tests: $1 done at $((SECONDS - started)) s" >&2
}
cache=$PWD/build/test-cache
# The machine's load per core before we start (other work on it), rounded
# up, at least 1.
load_factor=$(awk -v c="$jobs" '{ f = $1 / c; f = int(f + 0.999); print (f < 1 ? 1 : f) }' /proc/loadavg 2>/dev/null || echo 1)
echo "run-tests: load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null) on $jobs cores: timeouts x $load_factor" >&2
asan_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp")

# Fuzzing needs clang and its libFuzzer runtime (libclang-rt-14-dev).
fuzz_probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	>"$fuzz_probe/probe.c"
fuzz=false
if command -v clang >/dev/null &&
	clang -fsanitize=fuzzer,address,undefined -o "$fuzz_probe/probe" "$fuzz_probe/probe.c" 2>/dev/null; then
	fuzz=true
fi
rm -rf "$fuzz_probe"

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFG_WERROR=ON -DBUILD_TESTING=ON \
	-DFG_TEST_LOAD_FACTOR="$load_factor" -DFG_TEST_CACHE="$cache" >/dev/null
cmake --build build -j"$jobs"
done_with "plain build"

# in_background NAME CMD...: CMD at the lowest priority, its output kept
# for when it fails; finish_background waits for it and fails the run when
# it failed.
in_background() {
	local name=$1
	shift
	build_log=$(mktemp)
	nice -n 19 "$@" >"$build_log" 2>&1 &
	builder=$!
	trap 'kill "$builder" 2>/dev/null || true; rm -f "$build_log"' EXIT
	building=$name
}
finish_background() {
	if ! wait "$builder"; then
		cat "$build_log" >&2
		echo "run-tests: the $building failed (above)" >&2
		exit 1
	fi
	rm -f "$build_log"
	done_with "$building"
}

# The sanitizer build compiles while the plain tests run (zlib inflates
# there, ISA-L in the plain build and the fuzzers: both are tested; -O1 as
# ASan's authors advise: the same checks, faster tests).
in_background "sanitizer build" bash -c 'cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
	-DFG_SANITIZE=ON -DFG_ISAL=OFF -DFG_WERROR=ON -DBUILD_TESTING=ON -DFG_TEST_LOAD_FACTOR="$3" \
	-DFG_TEST_CACHE="$1" >/dev/null && cmake --build build-asan -j"$2"' \
	_ "$cache" "$jobs" "$load_factor"

# run_ctest PHASE DIR [ENV...]: the whole suite of DIR; fails the run when a
# test fails, when ctest finds no test, or when every test it found skipped.
run_ctest() {
	local phase=$1 dir=$2 log summary total skipped
	shift 2
	log=$(mktemp)
	if ! env "$@" ctest --test-dir "$dir" --output-on-failure --no-tests=error -j"$jobs" 2>&1 | tee "$log"; then
		rm -f "$log"
		echo "run-tests: the $phase tests failed (above)" >&2
		exit 1
	fi
	summary=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$log" || true)
	total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
	skipped=$(grep -c '(Skipped)$' "$log" || true)
	rm -f "$log"
	if [[ -z $total || $total -eq 0 || $skipped -ge $total ]]; then
		echo "run-tests: the $phase phase ran no test (${total:-0} found, ${skipped} skipped)" >&2
		exit 1
	fi
	echo "run-tests: $phase: $((total - skipped)) tests ran, $skipped skipped" >&2
}
run_ctest plain build
done_with "plain tests"
finish_background

# The fuzzing build compiles while the sanitizer tests run, which follow the
# plain run's order (its cost data: the longest first).
if $fuzz; then
	in_background "fuzzing build" tests/fuzz/run.sh --build-only
fi
mkdir -p build-asan/Testing/Temporary
cp build/Testing/Temporary/CTestCostData.txt build-asan/Testing/Temporary/ 2>/dev/null || true
run_ctest sanitizer build-asan "${asan_env[@]}"
done_with "sanitizer tests"
if $fuzz; then
	finish_background
fi

# The libFuzzer targets (tests/fuzz/run.sh), FG_FUZZ_SECONDS each (default 20,
# FG_FUZZ_BUDGET seconds in all, default 60; CI fuzzes longer).  The crashes
# fuzzing ever found are replayed by unit/test_regressions in both runs above.
if $fuzz; then
	fuzz_log=$(mktemp)
	FG_FUZZ_BUDGET=${FG_FUZZ_BUDGET:-60} tests/fuzz/run.sh "${FG_FUZZ_SECONDS:-20}" | tee "$fuzz_log"
	# Every target ran inputs (a target that ran none passed nothing).
	fuzzed=$(grep -cE '^fuzz: fuzz_[a-z0-9_]+: [0-9]+s, [1-9][0-9]* runs' "$fuzz_log" || true)
	rm -f "$fuzz_log"
	targets=$(find tests/fuzz -maxdepth 1 -name 'fuzz_*.c' | wc -l)
	if [[ $targets -eq 0 || $fuzzed -ne $targets ]]; then
		echo "run-tests: fuzzing ran inputs through $fuzzed of $targets targets" >&2
		exit 1
	fi
	done_with "fuzzing"
else
	echo "SKIP: fuzzing: clang with libFuzzer (libclang-rt-14-dev) is not installed" >&2
fi
