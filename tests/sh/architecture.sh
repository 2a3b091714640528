#!/bin/bash
# docs/HACKING.md's module map is the tree's: every header under src/,
# src/cmd/ and bisect/ has a row, and every header a row names exists; and
# the library never prints or exits (only src/cmd/ may).
source "$(dirname "$0")/../lib.sh"
cd "$FG_SOURCE_DIR"
map=$(sed -n '/^## Module map/,$p' docs/HACKING.md)
for h in src/*.h src/cmd/*.h bisect/*.h; do
	CHECKS=$((CHECKS + 1))
	grep -qF "\`$h\`" <<<"$map" || fail "$h has no row in docs/HACKING.md's module map: add one (what it is, in a line)"
done
while read -r h; do
	CHECKS=$((CHECKS + 1))
	[[ -f $h ]] || fail "docs/HACKING.md's module map names $h, which does not exist"
done < <(grep -o '`[a-z/_]*\.h`' <<<"$map" | tr -d '`' | sort -u)
# Only the command layer prints or exits (writers take a FILE * from it).
CHECKS=$((CHECKS + 1))
bad=$(grep -nE '\b(printf|puts|exit|_exit|abort)\(|\b(stdout|stderr)\b' src/*.c bisect/*.c |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true)
[[ -z $bad ]] || fail "the library prints or exits (only src/cmd/ may): $bad"
finish
