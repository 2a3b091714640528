#!/bin/bash
# `cmake --install` into a scratch prefix: the binary runs from there with
# the installed rules (found relative to itself), the man page and the bash
# completion are installed, and no path of the source tree is compiled into
# the installed binary.
source "$(dirname "$0")/../lib.sh"
command -v cmake >/dev/null || { echo "SKIP: cmake not found" >&2; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
build=$(cd "$(dirname "$FGBISECT")" && pwd)
cmake --install "$build" --prefix "$TMP/prefix" >/dev/null
bin=$TMP/prefix/bin/fgbisect
CHECKS=$((CHECKS + 1))
[[ -x $bin ]] || { fail "no installed bin/fgbisect"; finish; }
for f in share/man/man1/fgbisect.1 share/fgbisect/zeebe.rules share/fgbisect/zeebe.metrics share/bash-completion/completions/fgbisect; do
	CHECKS=$((CHECKS + 1))
	[[ -s $TMP/prefix/$f ]] || fail "not installed: $f"
done
# (A sanitizer build keeps module paths in its instrumentation metadata; it
# is a test build, never installed: the check is for the plain build.)
CHECKS=$((CHECKS + 1))
if [[ ${FG_SANITIZED:-0} != 1 ]] && grep -qaF "$FG_SOURCE_DIR" "$bin"; then
	fail "the installed binary holds the source tree's path $FG_SOURCE_DIR"
fi
# The rules: the configured prefix's when installed there, else those
# beside the moved installation; never the source or build tree's.
rules=$(env -u FGBISECT_RULES "$bin" subsystems --json "$FG_SOURCE_DIR/fixtures/tiny-3x.html" | jq -r .rules)
CHECKS=$((CHECKS + 1))
case $rules in
"$TMP/prefix/share/fgbisect/zeebe.rules" | */share/fgbisect/zeebe.rules) ;;
*) fail "installed fgbisect reads rules from '$rules'" ;;
esac
check_eq "installed --version" "$("$bin" --version | cut -d' ' -f1)" "fgbisect"
finish
