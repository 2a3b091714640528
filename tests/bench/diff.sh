#!/bin/bash
# The diff benchmark: the planted frame's rank and the frames listed by the
# significance rule beside the old one, on seeded pairs of runs whose node
# profiles are resampled from the stacks of the shared real daily profiles
# (healthy day 1, regressed day 10).  Prints figures; not a test.
#
# usage: tests/bench/diff.sh [BUILD_DIR] [bench_diff options: --pairs N --seed S --base PCT]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
[[ $# -gt 0 ]] && shift
shared=${FG_SHARED_FIXTURES:-$src/../shared/fixtures}
if [[ ! -d "$shared/daily" ]]; then
	echo "diff.sh: the shared fixtures are not at '$shared' (expected ../shared/fixtures beside the checkout)" >&2
	exit 77
fi
cmake --build "$build" --target bench_diff >/dev/null
d="$shared/daily"
exec "$build/bench_diff" "$@" "$d/day01-broker-0-grpc.collapsed" "$d/day01-broker-1-grpc.collapsed" \
	"$d/day01-broker-2-grpc.collapsed" "$d/day10-broker-0-grpc.collapsed"
