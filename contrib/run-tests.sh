#!/bin/bash
# The test command of the README and of CI: builds fgbisect twice (plain, and
# with AddressSanitizer + UndefinedBehaviorSanitizer) and runs the whole ctest
# suite on each.  Tests that need ../shared/fixtures skip loudly without it.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# (zlib inflates here, ISA-L in the plain build and the fuzzers: both are tested)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFG_SANITIZE=ON -DFG_ISAL=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" \
	ctest --test-dir build-asan --output-on-failure -j"$jobs"

# The libFuzzer targets (tests/fuzz/run.sh), FG_FUZZ_SECONDS each (default 60,
# at most 4 minutes in all), when clang and its fuzzer runtime
# (libclang-rt-14-dev) are installed.
fuzz_probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	>"$fuzz_probe/probe.c"
if command -v clang >/dev/null &&
	clang -fsanitize=fuzzer,address,undefined -o "$fuzz_probe/probe" "$fuzz_probe/probe.c" 2>/dev/null; then
	rm -rf "$fuzz_probe"
	tests/fuzz/run.sh "${FG_FUZZ_SECONDS:-60}"
else
	rm -rf "$fuzz_probe"
	echo "SKIP: fuzzing: clang with libFuzzer (libclang-rt-14-dev) is not installed" >&2
fi
