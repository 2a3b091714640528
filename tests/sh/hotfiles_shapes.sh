#!/usr/bin/env bash
# ctest-labels: slow
# hotfiles on every shape of repository git makes, and on git's own files
# damaged: the fast readers (src/git/pack.h, commitgraph.h, rawtree.h) are
# accelerators, never the authority.  Each answer is checked against git
# reading the objects (`git -c core.commitGraph=false log`), each refusal
# for its exit status and its words.
# - a commit-graph entry damaged five ways (its first parent itself, out of
#   range, a level not below its parent's, a bit of its tree id flipped, a
#   cycle through a child in a graph without levels): the answer of the
#   objects, a warning, and never a hang (every call under a timeout);
# - replace refs (git replace --graft) and info/grafts: git log's answer,
#   with a warning; a replaced blob, not applied, said;
# - clones: blobless (files answered, the method not, with the git command
#   that fetches its versions, which then gives the full answer), shallow
#   (the boundary marked, a --good past the cut names git fetch --deepen),
#   multi-pack-index and bitmaps, alternates, bare, worktree (the full
#   repository's answers), a damaged pack (exit 4 naming the commit);
# - a SHA-256 repository: exit 4 naming the object format.
set -euo pipefail

source "$(dirname "$0")/../git_lib.sh"
command -v timeout >/dev/null || { echo "SKIP: timeout not found"; exit 77; }
damage=$FG_SOURCE_DIR/tests/tools/damage_graph.py

# The history: Hot.java written first and changed in c5 and c9, other files
# in every commit, one merge.
repo=$tmp/repo
git init -q -b main "$repo"
cd "$repo"
HOT=m/src/main/java/io/x/Hot.java
mkdir -p m/src/main/java/io/x
hot() { printf 'package io.x;\nclass Hot {\n  void run() {\n    int a = %s;\n  }\n}\n' "$1" >$HOT; }
hot 0
for i in $(seq 1 12); do
	echo "$i" >"other$i.txt"
	case $i in 5) hot 5 ;; 9) hot 9 ;; esac
	git add -A && commit -m "c$i"
	if [ "$i" = 7 ]; then
		git checkout -q -b side HEAD~2
		echo side >side.txt && git add -A && commit -m "side"
		git checkout -q main && merge side -m "merge side"
	fi
done
git commit-graph write --reachable 2>/dev/null
good=$(git rev-parse HEAD~8)
frames=(--frame io.x.Hot.run)
# git's answers from the objects alone.
want_last=$(git -c core.commitGraph=false log -1 --format=%H -- $HOT)
want_window=$(git -c core.commitGraph=false log --format=%H "$good"..HEAD -- $HOT | paste -sd' ')

# hotfiles DIR LABEL ARGS…: one call under a timeout; its JSON in $tmp/out,
# its stderr in $tmp/err, its status echoed.
call() {
	local dir=$1
	shift
	set +e
	timeout 20 "$FGBISECT" hotfiles --repo "$dir" --json "$@" >"$tmp/out" 2>"$tmp/err"
	echo $?
	set -e
}

# The last call's warnings (a sanitizer's report of suppressions aside).
warnings() { grep "warning" "$tmp/err" || true; }

# check_answer LABEL [WINDOW]: the last call answered as git does from the
# objects (its window too when WINDOW is given).
check_answer() {
	check_eq "$1: last commit" "$(jq -r '.files[0].last_commit' "$tmp/out")" "$want_last"
	[ $# -lt 2 ] || check_eq "$1: window" "$(jq -r '[.files[0].window_commits[].commit] | join(" ")' "$tmp/out")" "$2"
}

# The intact graph answers, silently.
check_eq "intact graph: exit" "$(call "$repo" --good "$good" "${frames[@]}")" 0
check_answer "intact graph" "$want_window"
check_eq "intact graph: no warning" "$(warnings)" ""

# Each damage to the entry of a commit the walks cross (HEAD~3, between
# the file's two changes; --bad's own entry intact): the objects' answer,
# with and without methods, and a warning that names the graph.
for how in self-parent parent-range generation tree-bit cycle; do
	copy=$tmp/damaged-$how
	cp -r "$repo" "$copy"
	chmod u+w "$copy/.git/objects/info/commit-graph"
	python3 -S "$damage" "$copy/.git/objects/info/commit-graph" "$(git rev-parse HEAD~3)" "$how"
	for methods in "" --no-methods; do
		check_eq "$how $methods: exit" "$(call "$copy" --good "$good" $methods "${frames[@]}")" 0
		check_answer "$how $methods" "$want_window"
		grep -q "commit-graph disagrees with the objects" "$tmp/err" || fail "$how $methods: no warning: $(cat "$tmp/err")"
		check_eq "$how $methods: without --good" "$(call "$copy" $methods "${frames[@]}")" 0
		check_answer "$how $methods (no window)"
	done
done

# Replace refs and grafts: the history git log reads.  c4's parent becomes
# alt1, a commit of another branch that changed Hot.java: git log -1 names
# c4 for the file (libgit2 alone reads c4's own parents and names c3).
rr=$tmp/replace
git init -q -b main "$rr"
cd "$rr"
mkdir -p m/src/main/java/io/x
hot 1 && git add -A && commit -m c1
echo a >a && git add -A && commit -m c2
hot 2 && git add -A && commit -m c3
echo b >b && git add -A && commit -m c4
echo c >c && git add -A && commit -m c5
git checkout -q -b alt main~4
hot X && git add -A && commit -m alt1
git checkout -q main
c1=$(git rev-parse main~4) c3=$(git rev-parse main~2) c4=$(git rev-parse main~1) alt1=$(git rev-parse alt)
cp -r "$rr" "$tmp/grafts"
g replace --graft "$c4" "$alt1"
# expect_git LABEL DIR [ENV…]: last commit and window (c1..main) as git
# log gives them in DIR (with the environment ENV), and exit 0.
expect_git() {
	local label=$1 dir=$2
	shift 2
	want_last=$(cd "$dir" && env "$@" git log -1 --format=%H -- $HOT 2>/dev/null)
	local window
	window=$(cd "$dir" && env "$@" git log --format=%H "$c1"..main -- $HOT 2>/dev/null | paste -sd' ')
	set +e
	(cd "$dir" && env "$@" timeout 20 "$FGBISECT" hotfiles --json --good "$c1" --bad main "${frames[@]}") >"$tmp/out" 2>"$tmp/err"
	check_eq "$label: exit" "$?" 0
	set -e
	check_answer "$label" "$window"
}
expect_git "replace --graft" "$rr"
check_eq "replace --graft: git's answer" "$want_last" "$c4"
grep -q "1 commit replaced (refs/replace)" "$tmp/err" || fail "replace: no warning: $(cat "$tmp/err")"
expect_git "GIT_NO_REPLACE_OBJECTS" "$rr" GIT_NO_REPLACE_OBJECTS=1
check_eq "GIT_NO_REPLACE_OBJECTS: git's answer" "$want_last" "$c3"
check_eq "GIT_NO_REPLACE_OBJECTS: no warning" "$(warnings)" ""
echo "$c4 $alt1" >"$tmp/grafts/.git/info/grafts"
expect_git "info/grafts" "$tmp/grafts"
check_eq "info/grafts: git's answer" "$want_last" "$c4"
grep -q "1 grafted (info/grafts)" "$tmp/err" || fail "grafts: no warning: $(cat "$tmp/err")"
# A replaced blob is not applied: said, not silent.
g replace "$(git rev-parse main:a)" "$(git rev-parse main:b)"
(cd "$rr" && "$FGBISECT" hotfiles "${frames[@]}") >/dev/null 2>"$tmp/err" || fail "replaced blob: exit"
grep -q "1 replaced tree, blob or tag (refs/replace) not applied" "$tmp/err" || fail "replaced blob: $(cat "$tmp/err")"
cd "$repo"

# Clone shapes, each made by git from $repo (its history: Hot.java changed
# in c5 and c9, the method's line in both).
git -C "$repo" config uploadpack.allowfilter true
want_last=$(git -C "$repo" log -1 --format=%H -- $HOT)
# answer: the answers of fgbisect on the full repository, as
# "last | window | method last | method window" (ids).
answer() {
	jq -r '.files[0] | [.last_commit, ([.window_commits[].commit] | join(" ")), (.method.last.commit // "-"),
		([(.method_commits // [])[].commit] | join(" ")), .method.status] | join(" | ")' "$tmp/out"
}
check_eq "full: exit" "$(call "$repo" --good "$good" "${frames[@]}")" 0
full=$(answer)
check_eq "full: the method's last change" "$(jq -r '.files[0].method.last.commit' "$tmp/out")" "$want_last"

# A blobless partial clone, its promisor remote then out of reach: the
# files are answered, the method is not (unresolved), never through the
# network; the warning names the git command that fetches the versions,
# which does, and then the method is answered as on the full repository.
git clone -q --no-checkout --filter=blob:none "file://$repo" "$tmp/blobless" 2>/dev/null
git -C "$tmp/blobless" remote set-url origin "file://$tmp/gone"
check_eq "blobless: exit" "$(call "$tmp/blobless" --good "$good" "${frames[@]}")" 0
check_answer "blobless" "$want_window"
check_eq "blobless: method" "$(jq -r '.files[0].method.status' "$tmp/out")" unresolved
fetch=$(sed -n 's/.*not in this partial clone: .*(the file.s is); \(git -C .*\) fetches them from the promisor remote.*/\1/p' "$tmp/err")
[ -n "$fetch" ] || fail "blobless: no git command in the warning: $(cat "$tmp/err")"
git -C "$tmp/blobless" remote set-url origin "file://$repo"
sh -c "$fetch" 2>/dev/null || fail "blobless: the warning's command failed: $fetch"
check_eq "blobless, fetched: exit" "$(call "$tmp/blobless" --good "$good" "${frames[@]}")" 0
check_eq "blobless, fetched: answers" "$(answer)" "$full"
check_eq "blobless, fetched: no warning" "$(warnings)" ""

# Shallow: the boundary marked in the text output; a --good older than
# the cut names git fetch --deepen and --unshallow.
git clone -q --depth 2 "file://$repo" "$tmp/shallow" 2>/dev/null
set +e
"$FGBISECT" hotfiles --repo "$tmp/shallow" --no-methods "${frames[@]}" >"$tmp/out" 2>"$tmp/err"
check_eq "shallow: exit" "$?" 0
set -e
grep -q "last .*\[shallow boundary: may be older\]" "$tmp/out" || fail "shallow: boundary not marked: $(cat "$tmp/out")"
check_eq "shallow, --good older than the cut: exit" "$(call "$tmp/shallow" --good "$good" "${frames[@]}")" 2
grep -q "shallow clone.*git fetch --deepen=N, or git fetch --unshallow" "$tmp/err" || fail "shallow --good: $(cat "$tmp/err")"

# The answers of the full repository in every other shape: a
# multi-pack-index with bitmaps, an alternates clone (--shared: the objects
# are the other repository's), a bare clone, a linked worktree.
git clone -q "$repo" "$tmp/midx"
(cd "$tmp/midx" && echo x >x && git add x && commit -m x -q && git repack -q -d && git reset -q --hard HEAD~1 &&
	git multi-pack-index write --bitmap 2>/dev/null || git multi-pack-index write)
[ -f "$tmp/midx/.git/objects/pack/multi-pack-index" ] || fail "no multi-pack-index written"
git clone -q --shared "$repo" "$tmp/alternates"
[ -s "$tmp/alternates/.git/objects/info/alternates" ] || fail "no alternates written"
git clone -q --bare "$repo" "$tmp/bare.git"
git -C "$repo" worktree add -q "$tmp/worktree" main 2>/dev/null || git -C "$repo" worktree add -q --detach "$tmp/worktree" main
for shape in midx alternates bare.git worktree; do
	check_eq "$shape: exit" "$(call "$tmp/$shape" --good "$good" --bad main "${frames[@]}")" 0
	check_eq "$shape: answers" "$(answer)" "$full"
done

# A damaged pack: the commit the walk must read does not inflate.  The
# pack reader steps aside, libgit2 reports it: exit 4, naming the commit.
git clone -q --no-local "$repo" "$tmp/corrupt" 2>/dev/null
(cd "$tmp/corrupt" && git repack -q -a -d && rm -f .git/objects/info/commit-graph)
target=$(git -C "$repo" rev-parse HEAD~3)
pack=$(ls "$tmp"/corrupt/.git/objects/pack/pack-*.pack)
read -r off len < <(git verify-pack -v "${pack%.pack}.idx" | awk -v id="$target" '$1 == id {print $5, $4}')
chmod u+w "$pack"
python3 -S -c 'import sys; f = open(sys.argv[1], "r+b"); at = int(sys.argv[2]) + int(sys.argv[3]) // 2; f.seek(at); b = f.read(4); f.seek(at); f.write(bytes(x ^ 0x5a for x in b))' "$pack" "$off" "$len"
check_eq "corrupt pack: exit" "$(call "$tmp/corrupt" --no-methods "${frames[@]}")" 4
grep -q "$target" "$tmp/err" || fail "corrupt pack: the commit not named: $(cat "$tmp/err")"
jq -e '.error.code == "git"' "$tmp/out" >/dev/null || fail "corrupt pack: no JSON error"

# A SHA-256 repository: libgit2 1.5 cannot open it, and the fast readers
# take 20-byte ids: exit 4, naming the object format, whatever the path.
if git init -q --object-format=sha256 "$tmp/sha256" 2>/dev/null; then
	mkdir -p "$tmp/sha256/m/src/main/java/io/x"
	cp $HOT "$tmp/sha256/$HOT"
	(cd "$tmp/sha256" && git add -A && commit -m one)
	for dir in "$tmp/sha256" "$tmp/sha256/m/src"; do
		check_eq "sha256 $dir: exit" "$(call "$dir" "${frames[@]}")" 4
		grep -q "object format is sha256 (extensions.objectFormat)" "$tmp/err" || fail "sha256: $(cat "$tmp/err")"
		jq -e '.error.code == "git"' "$tmp/out" >/dev/null || fail "sha256: no JSON error"
	done
fi

finish
