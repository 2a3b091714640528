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
# The network and git module (src/module/lazy.c) is installed below lib and found
# relative to the binary, also when the installation is moved; never the
# build tree's.
module=$(cd "$TMP/prefix" && find . -name fgbisect-netgit.so)
CHECKS=$((CHECKS + 1))
[[ $module == ./lib*/fgbisect/fgbisect-netgit.so ]] || fail "module installed as '$module'"
CHECKS=$((CHECKS + 1))
if [[ ${FG_SANITIZED:-0} != 1 ]] && grep -qaF "$FG_SOURCE_DIR" "$TMP/prefix/$module"; then
	fail "the installed module holds the source tree's path $FG_SOURCE_DIR"
fi
mv "$TMP/prefix" "$TMP/moved"
tiny=$FG_SOURCE_DIR/fixtures/tiny-3x.html
LD_DEBUG=files "$TMP/moved/bin/fgbisect" share -f a "file://$tiny" >"$TMP/out" 2>"$TMP/trace"
check_eq "moved installation: file:// share" "$(sed -n 2p "$TMP/out")" "$("$FGBISECT" share -f a "$tiny" | sed -n 2p)"
check_eq "moved installation: the module loaded" \
	"$(sed -n 's/.*file=\([^ ]*fgbisect-netgit.so\) .*dynamically loaded.*/\1/p' "$TMP/trace" | sort -u |
		xargs -r realpath)" \
	"$TMP/moved/${module#./}"
finish
