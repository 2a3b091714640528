#!/usr/bin/env bash
# ctest-labels: slow
# hotfiles against git on merge-heavy histories: four branches, random
# commits and merges in every direction (conflicts resolved for either side,
# "ours" merges, evil merges, fast-forwards), then every file at several bad
# revisions is checked against `git log -1 -- PATH` and, for several good
# revisions, the window against `git log good..bad -- PATH`; the third
# history with a commit-graph, the second with its changed-path Bloom filters.
set -euo pipefail

source "$(dirname "$0")/../git_lib.sh"

g() { git -c user.name=t -c user.email=t@e -c merge.conflictstyle=merge "$@"; }
t=1600000000
stamp() { t=$((t + 60)); export GIT_AUTHOR_DATE="@$t +0000" GIT_COMMITTER_DATE="@$t +0000"; }

NFILES=9
file_of() { echo "m$(($1 % 3))/src/main/java/p/q/C$1.java"; }
frame_of() { echo "p/q/C$1.run"; }

build() { # seed steps
	local seed=$1 steps=$2
	RANDOM=$seed
	local repo="$tmp/r$seed"
	git init -q -b b0 "$repo"
	cd "$repo"
	for ((i = 0; i < NFILES; i++)); do
		mkdir -p "$(dirname "$(file_of $i)")"
		echo "C$i" >"$(file_of $i)"
	done
	g add -A && stamp && g commit -q -m root
	for b in b1 b2 b3; do g branch $b; done
	local cur=b0
	for ((s = 0; s < steps; s++)); do
		local br="b$((RANDOM % 4))"
		[ "$br" = "$cur" ] || { g checkout -q "$br"; cur=$br; }
		local action=$((RANDOM % 10))
		if [ $action -lt 6 ]; then
			# a commit touching 1-2 files (line appended: concurrent edits conflict)
			local n=$((1 + RANDOM % 2))
			# (RANDOM is drawn here, never inside $(…): bash reseeds it in subshells)
			local r
			for ((k = 0; k < n; k++)); do
				r=$((RANDOM % NFILES))
				echo "$br $s" >>"$(file_of $r)"
			done
			if [ $((RANDOM % 15)) -eq 0 ]; then
				r=$((RANDOM % NFILES))
				chmod +x "$(file_of $r)"
			fi
			g add -A && stamp && g commit -q -m "$br: change $s"
		else
			local other="b$((RANDOM % 4))"
			[ "$other" != "$br" ] || continue
			stamp
			local how=$((RANDOM % 6))
			if [ $how -eq 0 ]; then
				g merge -q -s ours -m "merge $other into $br (ours) $s" "$other" >/dev/null
			elif [ $how -eq 1 ]; then
				# may fast-forward: no merge commit at all
				g merge -q -m "merge $other into $br (ff) $s" "$other" >/dev/null 2>&1 || {
					g checkout -q --theirs -- . 2>/dev/null || true
					g add -A && g commit -q -m "merge $other into $br (theirs) $s"
				}
			else
				if ! g merge -q --no-ff -m "merge $other into $br $s" "$other" >/dev/null 2>&1; then
					if [ $((RANDOM % 2)) -eq 0 ]; then
						g checkout -q --ours -- . 2>/dev/null || true
					else
						g checkout -q --theirs -- . 2>/dev/null || true
					fi
					g add -A
					g commit -q -m "merge $other into $br (resolved) $s"
				fi
				if [ $how -eq 2 ] && git rev-parse -q --verify HEAD^2 >/dev/null; then
					# evil: amend the merge with a change of its own
					local e=$((RANDOM % NFILES))
					echo "evil $s" >>"$(file_of $e)"
					g add -A && g commit -q --amend --no-edit
				fi
			fi
		fi
	done
	cd - >/dev/null
}

# git's own answers for one (bad, good) pair: "path<TAB>last<TAB>window"
# for every Java file of bad's tree, sorted.
truth() { # repo bad [good]
	local repo=$1 bad=$2 good=${3:-} path last win
	git -C "$repo" ls-tree -r --name-only "$bad" | grep '\.java$' | while read -r path; do
		last=$(git -C "$repo" log -1 --format=%H "$bad" -- "$path")
		win=
		[ -z "$good" ] || win=$(git -C "$repo" log --format=%H "$good..$bad" -- "$path" | paste -sd, -)
		printf '%s\t%s\t%s\n' "$path" "$last" "$win"
	done | LC_ALL=C sort
}

# The (bad, good) pairs of a history, and git's answers, written once into
# the test cache (FG_TEST_CACHE: the plain and the sanitizer run share it) —
# only fgbisect's side runs again.
prepare() { # seed dir
	local seed=$1 dir=$2 repo="$tmp/r$1" n=0
	build "$seed" 90
	# The last history is read through a commit-graph (git gc writes one),
	# the second through one with changed-path Bloom filters.
	[ "$seed" != 47 ] || git -C "$repo" commit-graph write --reachable 2>/dev/null
	[ "$seed" != 23 ] || git -C "$repo" commit-graph write --reachable --changed-paths 2>/dev/null
	mkdir -p "$dir"
	{
		for b in b0 b1 b2 b3; do
			echo "$b"
			# windows: from each other branch tip, and from a few commits back
			for gd in b0 b1 b2 b3 "$b~3" "$b^2"; do
				git -C "$repo" rev-parse -q --verify "$gd^{commit}" >/dev/null && echo "$b $gd"
			done
		done
		# some interior commits as bad
		for c in $(git -C "$repo" rev-list --all | awk 'NR % 14 == 0'); do
			echo "$c"
			git -C "$repo" rev-parse -q --verify "$c~2^{commit}" >/dev/null && echo "$c $c~2"
		done
	} >"$dir/pairs"
	while read -r bad good; do
		n=$((n + 1))
		truth "$repo" "$bad" "$good" >"$dir/truth.$n"
	done <"$dir/pairs"
	git -C "$repo" rev-list --merges --all | wc -l >"$dir/merges"
	mv "$repo" "$dir/repo"
}

check() { # repo bad good truth-file
	local repo=$1 bad=$2 good=$3 want=$4
	local args=(hotfiles --repo "$repo" --bad "$bad" --json)
	[ -z "$good" ] || args+=(--good "$good")
	for ((i = 0; i < NFILES; i++)); do args+=(--frame "$(frame_of $i)"); done
	local out
	out=$("$FGBISECT" "${args[@]}") || { fail "$repo $bad $good: exit $?"; return; }
	jq -r --arg good "$good" '.files[] | select(.path != null) | [.path, .last_commit,
		(if $good == "" then "" else (.window_commits | map(.commit) | join(",")) end)] | @tsv' <<<"$out" |
		LC_ALL=C sort >"$tmp/got"
	if ! cmp -s "$tmp/got" "$want"; then
		fail "$repo bad=$bad good=$good: fgbisect and git differ (< fgbisect, > git log):"
		diff "$tmp/got" "$want" | head -6
	fi
	checked=$((checked + 1))
}

# The cache key: this script and git's version (git's answers are the truth).
key=$( { cat "$0"; git --version; } | sha256sum | cut -c1-16)
cache=${FG_TEST_CACHE:-$tmp/cache}/hotfiles_merges-$key
checked=0
for seed in 11 23 47; do
	dir=$cache/r$seed
	if [ ! -f "$dir/merges" ]; then
		rm -rf "$dir.tmp"
		prepare $seed "$dir.tmp"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	n=0
	while read -r bad good; do
		n=$((n + 1))
		check "$dir/repo" "$bad" "${good:-}" "$dir/truth.$n"
	done <"$dir/pairs"
	[ "$FAILS" -eq 0 ] || break
done

echo "checked $checked (revision, window) pairs; $(cat "$cache/r11/merges") merges in the first history"
if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS failure(s)"
	exit 1
fi
echo "ok"
