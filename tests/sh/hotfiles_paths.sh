#!/usr/bin/env bash
# ctest-labels: slow (a 2,000-file move made by real git)
# A commit counts as changing a hot file only when the file's blob (or mode)
# at its path differs, as `git log -- PATH` decides it: never a commit that
# creates a parent directory, removes a directory where the path will later
# be, or adds a submodule there; an exact rename is followed whatever the
# size of the commit (a move of 2,000 files after an edit: the edit stays
# the method's last change).  Every answer is also checked against git's.
source "$(dirname "$0")/../git_lib.sh"

java() { # path: a class with a method get(), one line of its body given
	mkdir -p "$(dirname "$1")"
	printf 'package pkg;\n\npublic class F {\n    public int get() {\n        return %s;\n    }\n}\n' "$2" >"$1"
}
new_repo() {
	rm -rf "$tmp/r"
	git init -q -b main "$tmp/r"
	cd "$tmp/r"
	echo '*.java diff=java' >.gitattributes
}
# hotfiles for pkg.F.get over good..HEAD: "last window method-last method-window"
# with the commits as their subjects.
ask() { # good
	"$FGBISECT" hotfiles --repo . --good "$1" --json --frame pkg.F.get >"$tmp/out.json" ||
		fail "hotfiles exit $?"
	jq -r '.files[0] | [.last_subject, ([.window_commits[]?.subject] | join(",")),
		.method.last.subject, ([.method_commits[]?.subject] | join(","))] | join(" ")' "$tmp/out.json"
}
subj() { git log --format=%s "$@"; }
cm() { commit -m "$1" && git tag "$1"; }
# git's own answers, in the same form.
git_says() { # good path
	echo "$(subj -1 -- "$2") $(subj "$1..HEAD" -- "$2" | paste -sd, -)" \
		"$(subj -s -n1 -L ":get:$2" | sed '/^$/d' | head -1)" \
		"$(subj -s -L ":get:$2" "$1..HEAD" | sed '/^$/d' | paste -sd, -)"
}
check() { # label good path expected
	local got want
	got=$(ask "$2")
	want=$(git_says "$2" "$3")
	check_eq "$1" "$got" "$4"
	check_eq "$1 (git)" "$want" "$4"
}

# 1. A commit that only creates a parent directory of the path the file is
#    later moved to.
new_repo
java mod/src/pkg/F.java 1 && git add -A && cm c1
mkdir -p sub/other && echo x >sub/other/x.txt && git add -A && cm c2
mkdir -p sub && git mv mod sub/mod && cm c3
check "parent directory created" c1 sub/mod/src/pkg/F.java "c3 c3 c1 "

# 2. A commit that removes a directory where the path will later be.
new_repo
java mod/src/pkg/F.java 1
mkdir -p sub/mod && echo r >sub/mod/README && echo k >sub/keep.txt && git add -A && cm c1
git rm -q -r sub/mod && cm c2
git mv mod sub/mod && cm c3
check "directory removed first" c1 sub/mod/src/pkg/F.java "c3 c3 c1 "

# 3. A submodule added where the directory will later be, then replaced by
#    the move.
new_repo
java mod/src/pkg/F.java 1 && git add -A && cm c1
git update-index --add --cacheinfo "160000,$(git rev-parse HEAD),sub" && cm c2
git rm -q --cached sub && mkdir -p sub && git mv mod sub/mod && cm c3
check "submodule first" c1 sub/mod/src/pkg/F.java "c3 c3 c1 "

# 4. An edit, then a move of 2,000 files with the file among them: an exact
#    rename, whatever the number of files moved.
new_repo
java mod/src/pkg/F.java 1
mkdir -p mod/big
for i in $(seq 1 1999); do echo "file $i" >"mod/big/f$i.txt"; done
git add -A && cm c1
java mod/src/pkg/F.java 2 && git add -A && cm c2
git mv mod moved && cm c3
check "edit, then a move of 2,000 files" c1 moved/src/pkg/F.java "c3 c3 c2 c2"

# 5. Commits with equal times: a parent popped before its child (the walk
#    pops by committer time) still gets the file's walk that the child hands
#    on.  Z merges K and Y; Y is popped first and reads A; K then reads M,
#    which has A's time, so A comes out of the queue before M.
new_repo
at() { # time message: a commit at that committer time
	GIT_AUTHOR_DATE="@$1 +0000" GIT_COMMITTER_DATE="@$1 +0000" g commit -q -m "$2" && git tag "$2"
}
T=1700100000
java mod/src/pkg/F.java 1 && git add -A && at $((T - 100)) G
java mod/src/pkg/F.java 2 && git add -A && at $((T - 10)) B
echo a >a.txt && git add -A && at $T A
git checkout -q -b side && echo y >y.txt && git add -A && at $((T + 100)) Y
git checkout -q main && echo m >m.txt && git add -A && at $T M
echo k >k.txt && git add -A && at $((T + 50)) K
GIT_AUTHOR_DATE="@$((T + 200)) +0000" GIT_COMMITTER_DATE="@$((T + 200)) +0000" g merge -q --no-ff -m Z side
check "equal commit times" G mod/src/pkg/F.java "B B B B"

finish
