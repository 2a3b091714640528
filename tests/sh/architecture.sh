#!/bin/bash
# The tree is the architecture of docs/HACKING.md: its "Layers, bottom up"
# line orders the folders of src/ (and bisect/, and src/cmd/ last); every
# project include names its folder ("base/error.h") and points at the same
# layer or one below, never up; every header is named in its folder's row of the module map and
# every row names a header that exists; only the command layer prints or
# exits.
source "$(dirname "$0")/../lib.sh"
cd "$FG_SOURCE_DIR"
order=$(sed -n 's/^Layers, bottom up: *//p' docs/HACKING.md | tr -d '`.')
[[ -n $order ]] || fail "docs/HACKING.md has no 'Layers, bottom up:' line"
declare -A rank
i=0
for layer in $order; do
	rank[$layer]=$i
	i=$((i + 1))
done
dir_of() { # the layer of a file: src/LAYER/x.c or bisect/x.c
	case $1 in
	bisect/*) echo bisect ;;
	src/*/*) local d=${1#src/}; echo "${d%%/*}" ;;
	*) echo "?" ;;
	esac
}
# Every folder under src/ is a layer of the line, and every layer a folder.
for d in src/*/; do
	d=${d#src/}; d=${d%/}
	CHECKS=$((CHECKS + 1))
	[[ -n ${rank[$d]+x} ]] || fail "src/$d/ is not in docs/HACKING.md's 'Layers, bottom up' line"
done
CHECKS=$((CHECKS + 1))
[[ -z $(ls src/*.c src/*.h 2>/dev/null) ]] || fail "files directly under src/ (each belongs in a layer's folder): $(ls src/*.[ch])"
for layer in $order; do
	CHECKS=$((CHECKS + 1))
	[[ $layer == bisect || -d src/$layer ]] || fail "layer $layer of docs/HACKING.md has no folder src/$layer/"
done
# Include direction, file by file.
while IFS=: read -r file line inc; do
	from=$(dir_of "$file")
	CHECKS=$((CHECKS + 1))
	if [[ $inc != */* ]]; then
		fail "$file:$line includes \"$inc\" without its folder (write \"LAYER/$inc\")"
		continue
	fi
	to=${inc%%/*}
	if [[ -z ${rank[$to]+x} || ! -f src/$inc && ! -f $inc ]]; then
		fail "$file:$line includes \"$inc\", which is no header of a layer"
	elif ((rank[$to] > rank[$from])); then
		fail "$file:$line: $from/ includes $inc — an upward include (the layers, bottom up: $order)"
	fi
done < <(grep -nE '^#[[:space:]]*include[[:space:]]+"' src/*/*.[ch] bisect/*.[ch] |
	sed -E 's/^([^:]+):([0-9]+):#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1:\2:\3/')
# The module map: every header named, every named header there.
map=$(sed -n '/^## Module map/,$p' docs/HACKING.md)
for h in src/*/*.h bisect/*.h; do
	CHECKS=$((CHECKS + 1))
	grep -qF "\`$h\`" <<<"$map" || fail "$h is not named in docs/HACKING.md's module map: add it to its folder's row (what it is, in a few words)"
done
while read -r h; do
	CHECKS=$((CHECKS + 1))
	[[ -f $h ]] || fail "docs/HACKING.md's module map names $h, which does not exist"
done < <(grep -o '`[a-z/_]*\.h`' <<<"$map" | tr -d '`' | sort -u)
# Only the command layer prints or exits (writers take a FILE * from it).
CHECKS=$((CHECKS + 1))
lib=$(ls src/*/*.c bisect/*.c | grep -v '^src/cmd/')
# shellcheck disable=SC2086
bad=$(grep -nE '\b(printf|puts|exit|_exit|abort)\(|\b(stdout|stderr)\b' $lib |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true)
[[ -z $bad ]] || fail "the library prints or exits (only src/cmd/ may): $bad"
finish
