#!/usr/bin/env bash
# Native method histories on a real C project against git itself: every
# function defined once in the C files of a repository (jq's src/ by
# default) asked of one `fgbisect hotfiles` call by name (the definition
# search: no file given), and each answer compared with git's:
#
# - the file: the one file whose top-level lines define the function
#   (found here with awk, independently of fgbisect);
# - the method's commits in the window and its last change: `git log -L
#   ':^[^;]*\<FUNC\>[ \t]*([^;]*$:FILE'` with `*.c diff=cpp` — git's own
#   funcname range from the function's definition line (the regex skips
#   prototypes, which end with ';', as fgbisect's definition search does).
#
# Then the time of the one fgbisect call beside the git commands that give
# the same answers (`git log -1 -- FILE` per file, and the two `git log -L`
# per function), medians of RUNS interleaved runs.
#
# usage: contrib/check-native-real.sh [FGBISECT] [REPO] [GOOD] [COUNT]
#   REPO   a clone of a C project (default $CHECK_NATIVE_REPO); without one
#          the script says SKIP and exits 77.  Never committed here: fetch
#          one, e.g. `git clone https://github.com/jqlang/jq`.
#   GOOD   the window's start (default HEAD~400), bad is HEAD;
#   COUNT  how many functions (default 40: each file's first, then second …);
#   RUNS   (environment) timing runs, default 3.
set -euo pipefail

fgbisect=${1:-build/fgbisect}
repo=${2:-${CHECK_NATIVE_REPO:-}}
good=${3:-HEAD~400}
count=${4:-40}
runs=${RUNS:-3}
[ -n "$repo" ] && [ -d "$repo" ] || { echo "SKIP: no C repository (give REPO or CHECK_NATIVE_REPO)"; exit 77; }
[ -x "$fgbisect" ] || { echo "check-native-real: no binary at $fgbisect" >&2; exit 2; }
for tool in git jq awk; do
	command -v "$tool" >/dev/null || { echo "check-native-real: $tool is needed" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '*.c diff=cpp\n*.h diff=cpp\n' >"$tmp/attributes"
G() { git -C "$repo" -c core.attributesFile="$tmp/attributes" "$@"; }
tab=$(printf '\t') # no [[:space:]]: git splits -L :REGEX:FILE at its colons
good=$(G rev-parse "$good")
bad=$(G rev-parse HEAD)

# Functions defined at the top level of src/*.c at bad: a line at column 0
# with NAME( that does not end with ';' and whose body opens on it or on
# one of the next lines; names defined in one file only.
for path in $(G ls-tree -r --name-only "$bad" -- src | grep -E '^src/[^/]*\.c$'); do
	G show "$bad:$path" | awk -v path="$path" '
		/^[A-Za-z_]/ && /[A-Za-z_][A-Za-z_0-9]*[ \t]*\(/ && !/;[ \t]*$/ && !/^(typedef|struct [A-Za-z_]+ *\{|#)/ {
			line = $0
			sub(/\(.*/, "", line)
			n = split(line, w, /[^A-Za-z_0-9]+/)
			name = w[n]
			if (name != "" && name !~ /^(if|while|for|switch|return|sizeof)$/) print name "\t" path "\t" NR
		}'
done | sort -t$'\t' -k1,1 -s >"$tmp/defs"
# Taken from every file in turn (the first of each, then the second …).
awk -F'\t' '{ n[$1]++; row[$1] = $0 } END { for (k in n) if (n[k] == 1) print row[k] }' "$tmp/defs" |
	sort -t$'\t' -k2,2 -k3,3n | awk -F'\t' '{ print (++seen[$2]) "\t" $0 }' | sort -t$'\t' -k1,1n -k3,3 -s |
	cut -f2- | awk -v n="$count" 'NR <= n' >"$tmp/funcs"
nfunc=$(wc -l <"$tmp/funcs")
[ "$nfunc" -gt 0 ] || { echo "check-native-real: no C function found under src/" >&2; exit 2; }

args=()
while IFS=$'\t' read -r name path line; do args+=(--frame "$name"); done <"$tmp/funcs"
"$fgbisect" hotfiles --json --repo "$repo" --good "$good" --bad "$bad" "${args[@]}" >"$tmp/out.json"

equal=0 differ=0
while IFS=$'\t' read -r name path line; do
	got=$(jq -r --arg f "$name" '[.files[] | select(.frame == $f)] | map(.path) | join(",")' "$tmp/out.json")
	rx="^[^;]*\\<$name\\>[ $tab]*([^;]*\$"
	want_win=$(G log --format=%H -s -L ":$rx:$path" "$good..$bad" | sed '/^$/d' | sort | paste -sd, -)
	want_last=$(G log --format=%H -s -n1 -L ":$rx:$path" "$bad" | sed '/^$/d')
	got_win=$(jq -r --arg f "$name" '.files[] | select(.frame == $f) | [.method_commits[].commit] | sort | join(",")' \
		"$tmp/out.json" | sed -n 1p)
	got_last=$(jq -r --arg f "$name" '.files[] | select(.frame == $f) | .method.last.commit // ""' "$tmp/out.json" |
		sed -n 1p)
	if [ "$got" = "$path" ] && [ "$got_win" = "$want_win" ] && [ "$got_last" = "$want_last" ]; then
		equal=$((equal + 1))
	else
		differ=$((differ + 1))
		echo "DIFFERS $name: file $got (want $path); window [$got_win] (git [$want_win]); last $got_last (git $want_last)"
	fi
done <"$tmp/funcs"
changed=$(jq '[.files[] | select((.method_commits // []) | length > 0)] | length' "$tmp/out.json")
echo "functions: $nfunc  equal to git: $equal  different: $differ  (changed in the window: $changed)"

# Timing: the one call against the git commands giving the same answers.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }
: >"$tmp/t_fg"
: >"$tmp/t_git"
for ((r = 0; r < runs; r++)); do
	s=$(now)
	"$fgbisect" hotfiles --json --repo "$repo" --good "$good" --bad "$bad" "${args[@]}" >/dev/null
	echo "$(now) - $s" | bc >>"$tmp/t_fg"
	s=$(now)
	while IFS=$'\t' read -r name path line; do
		rx="^[^;]*\\<$name\\>[ $tab]*([^;]*\$"
		G log -1 --format=%H -- "$path" >/dev/null
		G log --format=%H -s -L ":$rx:$path" "$good..$bad" >/dev/null
		G log --format=%H -s -n1 -L ":$rx:$path" "$bad" >/dev/null
	done <"$tmp/funcs"
	echo "$(now) - $s" | bc >>"$tmp/t_git"
done
tf=$(median <"$tmp/t_fg")
tg=$(median <"$tmp/t_git")
printf 'time (median of %d, wall): fgbisect %.3f s, git %.3f s (%d functions, %s commits in the window): %.1fx\n' \
	"$runs" "$tf" "$tg" "$nfunc" "$(G rev-list --count "$good..$bad")" "$(echo "$tg / $tf" | bc -l)"
[ "$differ" -eq 0 ]
