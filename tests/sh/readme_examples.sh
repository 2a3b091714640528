#!/bin/bash
# The README runs as written: every `$ fgbisect …` example that is not
# marked "# needs your own data" runs on the bundled samples (exit 0, some
# output), the first one prints exactly what the README shows, the quick
# start's command works, and CI installs what the README installs
# (both through contrib/install-deps.sh --tests).
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

# The README's prerequisites are CI's: .ci/run installs through
# contrib/install-deps.sh --tests, which the README's test command runs, and
# installs nothing else.
check_eq "CI installs through install-deps.sh --tests" \
	"$(grep -c '^contrib/install-deps.sh --tests$' "$FG_SOURCE_DIR/.ci/run")" 1
check_eq "CI runs no apt-get of its own" "$(grep -c 'apt-get' "$FG_SOURCE_DIR/.ci/run" || true)" 0
check_eq "the README's test command installs with --tests" \
	"$(grep -c '^contrib/install-deps.sh --tests && contrib/run-tests.sh$' "$README")" 1
# install-deps.sh installs what dpkg lists as missing, and nothing (no
# apt-get, no root) when all is there: dpkg-query and apt-get stand-ins that
# say "installed" for all but $MISSING and log what apt-get is asked.
mkdir -p "$TMP/stub"
cat >"$TMP/stub/dpkg-query" <<'SH'
#!/bin/sh
shift 2
for p in "$@"; do [ "$p" = "$MISSING" ] || echo "$p installed"; done
SH
printf '#!/bin/sh\necho "$*" >>"%s/apt.log"\n' "$TMP" >"$TMP/stub/apt-get"
printf '#!/bin/sh\nexec "$@"\n' >"$TMP/stub/sudo"
printf '#!/bin/sh\necho 0\n' >"$TMP/stub/id"
chmod +x "$TMP/stub/"*
check_eq "install-deps.sh with all installed" \
	"$(MISSING= PATH="$TMP/stub:$PATH" sh "$FG_SOURCE_DIR/contrib/install-deps.sh" --tests |
		sed -E 's/all [1-9][0-9] packages/all N packages/')" \
	"$FG_SOURCE_DIR/contrib/install-deps.sh: all N packages are installed"
check_eq "no apt-get when all is installed" "$(cat "$TMP/apt.log" 2>/dev/null)" ""
MISSING=jq PATH="$TMP/stub:$PATH" sh "$FG_SOURCE_DIR/contrib/install-deps.sh" --tests >/dev/null
check_eq "apt-get installs only what is missing" "$(cat "$TMP/apt.log")" "update -qq
install -y -qq --no-install-recommends jq"
finish
