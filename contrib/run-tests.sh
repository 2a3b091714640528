#!/bin/bash
# The test command of the README and of CI: builds fgbisect twice (plain, and
# with AddressSanitizer + UndefinedBehaviorSanitizer) and runs the whole ctest
# suite on each.  Tests that need ../shared/fixtures skip loudly without it.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

# Generated git histories and git's answers are built once, by the first
# run, and shared with the second (FG_TEST_CACHE).
cache=$PWD/build/test-cache
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFG_WERROR=ON -DFG_TEST_CACHE="$cache" >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# (zlib inflates here, ISA-L in the plain build and the fuzzers: both are tested)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFG_SANITIZE=ON -DFG_ISAL=OFF -DFG_WERROR=ON -DFG_TEST_CACHE="$cache" >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" \
	ctest --test-dir build-asan --output-on-failure -j"$jobs"

# The libFuzzer targets (tests/fuzz/run.sh), FG_FUZZ_SECONDS each (default 20,
# FG_FUZZ_BUDGET seconds in all, default 60: the whole command stays within
# 6 minutes on 2 cores; CI fuzzes 60 s a target), when clang and its fuzzer
# runtime (libclang-rt-14-dev) are installed.  The crashes fuzzing ever
# found are replayed by unit/test_regressions in both runs above.
fuzz_probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	>"$fuzz_probe/probe.c"
if command -v clang >/dev/null &&
	clang -fsanitize=fuzzer,address,undefined -o "$fuzz_probe/probe" "$fuzz_probe/probe.c" 2>/dev/null; then
	rm -rf "$fuzz_probe"
	FG_FUZZ_BUDGET=${FG_FUZZ_BUDGET:-60} tests/fuzz/run.sh "${FG_FUZZ_SECONDS:-20}"
else
	rm -rf "$fuzz_probe"
	echo "SKIP: fuzzing: clang with libFuzzer (libclang-rt-14-dev) is not installed" >&2
fi
