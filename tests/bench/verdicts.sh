#!/bin/bash
# The verdict benchmark: error, skip and fetch rates of the old rule beside
# the new one on seeded builds and day series whose node profiles are
# resampled from the stacks of the shared real daily profiles (healthy day 1,
# regressed day 10).  Prints figures (about a minute of CPU); not a test.
# Run as diff.sh (a link to this script), the diff benchmark: bench_diff's
# planted-frame ranks and A/A listings on pairs of such runs, then the same
# rules on the real profiles (diff_real.sh).
#
# usage: tests/bench/verdicts.sh [BUILD_DIR] [bench_verdicts options: --builds N --series N --seed S]
#        tests/bench/diff.sh [BUILD_DIR] [bench_diff options: --pairs N --seed S --base PCT]
set -euo pipefail
bench=bench_$(basename "$0" .sh)
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
[[ $# -gt 0 ]] && shift
shared=${FG_SHARED_FIXTURES:-$src/../shared/fixtures}
if [[ ! -d "$shared/daily" ]]; then
	echo "$(basename "$0"): the shared fixtures are not at '$shared' (expected ../shared/fixtures beside the checkout)" >&2
	exit 77
fi
cmake --build "$build" --target "$bench" >/dev/null
d="$shared/daily"
"$build/$bench" "$@" "$d/day01-broker-0-grpc.collapsed" "$d/day01-broker-1-grpc.collapsed" \
	"$d/day01-broker-2-grpc.collapsed" "$d/day10-broker-0-grpc.collapsed"
# The diff benchmark goes on with the real profiles themselves.
[[ $bench != bench_diff ]] || { echo; "$src/tests/bench/diff_real.sh" "$build"; }
