#!/bin/bash
# The README runs as written: every `$ fgbisect …` example that is not
# marked "# needs your own data" runs on the bundled samples (exit 0, some
# output), the first one prints exactly what the README shows, the quick
# start's command works, and the packages the README installs
# (contrib/install-deps.sh) are the ones CI installs (.ci/run).
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
README=$FG_SOURCE_DIR/README.md
BIN=$(cd "$(dirname "$FGBISECT")" && pwd)
# Examples use paths relative to the top of a clone; run them in a scratch
# folder that has the clone's fixtures, so that outputs (diff.svg) stay there.
ln -s "$FG_SOURCE_DIR/fixtures" "$TMP/fixtures"
cd "$TMP"

mapfile -t examples < <(grep -E '^\$ fgbisect ' "$README" | grep -v '# needs your own data' | sed 's/^\$ //')
CHECKS=$((CHECKS + 1))
[[ ${#examples[@]} -ge 10 ]] || fail "only ${#examples[@]} runnable examples found in README.md"
for ex in "${examples[@]}"; do
	CHECKS=$((CHECKS + 1))
	set +e
	out=$(PATH="$BIN:$PATH" bash -c "$ex" 2>"$TMP/err")
	rc=$?
	set -e
	if [[ $rc -ne 0 ]]; then
		fail "README example exits $rc: $ex: $(head -3 "$TMP/err")"
	elif [[ -z $out && $ex != *--svg* ]]; then
		fail "README example prints nothing: $ex"
	fi
done
[[ -s diff.svg ]] || fail "the --svg example wrote no diff.svg"

# The first example's output, as the README shows it.
first=$(grep -m1 -E '^\$ fgbisect ' "$README" | sed 's/^\$ //')
shown=$(awk -v cmd="\$ $first" '$0 == cmd { on = 1; next } on && (/^\$ / || /^#/ || /^```/ || /^$/) { exit } on' "$README")
check_eq "first example's output" "$(PATH="$BIN:$PATH" bash -c "$first")" "$shown"

# The quick start: its build/fgbisect command, with this build's binary.
quick=$(grep -m1 '^contrib/install-deps.sh && cmake' "$README" | sed 's/.*&& build\/fgbisect /fgbisect /')
check_eq "quick start" "$(PATH="$BIN:$PATH" bash -c "$quick")" "$shown"

# The README's prerequisites are CI's.
ci=$(sed -n '/apt-get install/,/>\/dev\/null/p' "$FG_SOURCE_DIR/.ci/run" | tr ' \t\\' '\n\n\n' |
	grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vx -e apt-get -e install -e dev -e null | sort -u)
ours=$(sed -n 's/^[[:space:]]*packages="\(.*\)"$/\1/p' "$FG_SOURCE_DIR/contrib/install-deps.sh" |
	sed 's/\$packages//' | tr ' ' '\n' | grep . | sort -u)
check_eq "contrib/install-deps.sh --tests installs what .ci/run installs" "$ours" "$ci"
finish
