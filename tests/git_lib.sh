# Shared prelude of the tests that check fgbisect against git itself
# (sourced, not run; kept out of tests/sh so that ctest does not run it):
# a private HOME and no system or global git configuration, a temporary
# folder $tmp removed on exit, and fail() counting failures in $fails.
set -euo pipefail

: "${FGBISECT:?FGBISECT must name the fgbisect binary}"
command -v git >/dev/null || { echo "SKIP: git not found"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not found"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
