# Shared prelude of the tests that check fgbisect against git itself
# (sourced, not run; kept out of tests/sh so that ctest does not run it): the
# one harness (tests/lib.sh: fail, check_eq, status, finish; failures counted
# in $FAILS), a private HOME and no system or global git configuration, and a
# temporary folder $tmp removed on exit.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v git >/dev/null || { echo "SKIP: git not found"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not found"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
# Commits and merges with deterministic dates, one hour apart from $t on,
# offset +01:00, by a fixed author (g runs git as that author).
t=1700000000
g() { git -c user.name=t -c user.email=t@e "$@"; }
commit() {
	t=$((t + 3600))
	GIT_AUTHOR_DATE="@$t +0100" GIT_COMMITTER_DATE="@$t +0100" g commit -q "$@"
}
merge() {
	t=$((t + 3600))
	GIT_AUTHOR_DATE="@$t +0100" GIT_COMMITTER_DATE="@$t +0100" g merge -q --no-ff "$@"
}
