#!/bin/bash
# The test command of the README and of CI: builds fgbisect twice (plain, and
# with AddressSanitizer + UndefinedBehaviorSanitizer) and runs the whole ctest
# suite on each, then fuzzes.  Tests that need ../shared/fixtures skip loudly
# without it.
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

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFG_WERROR=ON -DFG_TEST_CACHE="$cache" >/dev/null
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
	-DFG_SANITIZE=ON -DFG_ISAL=OFF -DFG_WERROR=ON -DFG_TEST_CACHE="$1" >/dev/null && cmake --build build-asan -j"$2"' \
	_ "$cache" "$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
done_with "plain tests"
finish_background

# The fuzzing build compiles while the sanitizer tests run, which follow the
# plain run's order (its cost data: the longest first).
if $fuzz; then
	in_background "fuzzing build" tests/fuzz/run.sh --build-only
fi
mkdir -p build-asan/Testing/Temporary
cp build/Testing/Temporary/CTestCostData.txt build-asan/Testing/Temporary/ 2>/dev/null || true
env "${asan_env[@]}" ctest --test-dir build-asan --output-on-failure -j"$jobs"
done_with "sanitizer tests"
if $fuzz; then
	finish_background
fi

# The libFuzzer targets (tests/fuzz/run.sh), FG_FUZZ_SECONDS each (default 20,
# FG_FUZZ_BUDGET seconds in all, default 60; CI fuzzes longer).  The crashes
# fuzzing ever found are replayed by unit/test_regressions in both runs above.
if $fuzz; then
	FG_FUZZ_BUDGET=${FG_FUZZ_BUDGET:-60} tests/fuzz/run.sh "${FG_FUZZ_SECONDS:-20}"
	done_with "fuzzing"
else
	echo "SKIP: fuzzing: clang with libFuzzer (libclang-rt-14-dev) is not installed" >&2
fi
