#!/usr/bin/env bash
# hotfiles on repositories as they come: bare, worktree, shallow clone,
# abbreviated revisions; errors for unknown revisions, a missing repository,
# bad options and a malformed ignore-revs file.
set -euo pipefail

source "$(dirname "$0")/../git_lib.sh"

repo="$tmp/repo"
git init -q -b main "$repo"
cd "$repo"
t=1700000000
commit() { t=$((t + 600)); GIT_AUTHOR_DATE="@$t -0500" GIT_COMMITTER_DATE="@$t -0500" git -c user.name=t -c user.email=t@e commit -q "$@"; }
A=m/src/main/java/io/x/Old.java
B=m/src/main/java/io/x/Hot.java
mkdir -p m/src/main/java/io/x
echo old >$A && echo hot >$B && git add -A && commit -m "import"
for i in 1 2 3 4 5 6; do echo "$i" >>$B && git add -A && commit -m "hot $i"; done
frames=(--frame io/x/Old.run --frame io.x.Hot.run)

expect_same() { # label dir [args]
	local label=$1 dir=$2
	shift 2
	"$FGBISECT" hotfiles --repo "$dir" --json "${frames[@]}" "$@" >"$tmp/last.json" || { fail "$label: exit $?"; return; }
	for p in $A $B; do
		local got want
		got=$(jq -r --arg p "$p" '.files[] | select(.path == $p) | .last_commit' "$tmp/last.json")
		want=$(git -C "${top:-$dir}" log -1 --format=%H "${bad:-HEAD}" -- "$p")
		[ "$got" = "$want" ] || fail "$label: $p: $got, git says $want"
	done
}

expect_same "non-bare" "$repo"
top=$repo expect_same "subdirectory" "$repo/m/src"
bad=HEAD~1 expect_same "abbreviated" "$repo" --bad "$(git rev-parse --short=7 HEAD~1)" --good "$(git rev-parse --short HEAD~4)"
out=$(cat "$tmp/last.json")
[ "$(jq -r .bad <<<"$out")" = "$(git rev-parse HEAD~1)" ] || fail "abbreviated bad not expanded"
[ "$(jq -r .good <<<"$out")" = "$(git rev-parse HEAD~4)" ] || fail "abbreviated good not expanded"
# dates: git's %aI, with the author's offset
[ "$(jq -r '.files[] | select(.class == "io/x/Old") | .last_date' <<<"$out")" = "$(git log -1 --format=%aI -- $A)" ] ||
	fail "author date not as git's %aI"

git clone -q --bare "$repo" "$tmp/bare.git"
expect_same "bare" "$tmp/bare.git"
git -C "$repo" worktree add -q "$tmp/wt" HEAD~2 2>/dev/null
expect_same "worktree" "$tmp/wt"
[ "$(jq -r .bad "$tmp/last.json")" = "$(git rev-parse HEAD~2)" ] || fail "worktree: HEAD is the worktree's"

# Shallow clone: the answers are git's, and the old file says it may be older.
git clone -q --depth 3 "file://$repo" "$tmp/shallow"
expect_same "shallow" "$tmp/shallow" 2>"$tmp/err"
out=$(cat "$tmp/last.json")
[ "$(jq -r .shallow <<<"$out")" = true ] || fail "shallow not detected"
[ "$(jq -r '.files[] | select(.class == "io/x/Old") | .shallow_boundary' <<<"$out")" = true ] ||
	fail "shallow: old file should be at the boundary"
[ "$(jq -r '.files[] | select(.class == "io/x/Hot") | .shallow_boundary' <<<"$out")" = false ] ||
	fail "shallow: hot file is not at the boundary"
grep -q "shallow" "$tmp/err" || fail "shallow: no warning on stderr"
# A window reaching past the boundary works too.
"$FGBISECT" hotfiles --repo "$tmp/shallow" --good HEAD~1 "${frames[@]}" >/dev/null 2>&1 || fail "shallow window"

# Errors.
status_kept() { set +e; "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; set -e; } # keeps the output in $tmp/out, $tmp/err
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo" --bad no-such-rev "${frames[@]}")" = 2 ] || fail "unknown --bad: exit"
grep -q "no-such-rev" "$tmp/err" || fail "unknown revision not named: $(cat "$tmp/err")"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo" --good deadbeef1 --json "${frames[@]}")" = 2 ] || fail "unknown --good: exit"
grep -q deadbeef1 "$tmp/err" || fail "unknown --good not named"
jq -e '.error.code == "usage"' "$tmp/out" >/dev/null || fail "--json error object"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$tmp/nowhere" "${frames[@]}")" = 2 ] || fail "missing repository: exit"
grep -q "not a git repository" "$tmp/err" || fail "missing repository message"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo")" = 2 ] || fail "no --frame: exit"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo" --bogus "${frames[@]}")" = 2 ] || fail "unknown option: exit"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo" base.html cand.html)" = 4 ] || fail "profile form, missing profile: exit"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo" "${frames[@]}" base.html cand.html)" = 2 ] || fail "--frame and profiles: exit"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo" base.html)" = 2 ] || fail "one profile: exit"
printf 'abc123\n' >"$tmp/ign"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo" --ignore-revs "$tmp/ign" "${frames[@]}")" = 2 ] || fail "bad ignore-revs: exit"
grep -q "line 1" "$tmp/err" || fail "bad ignore-revs: line not named"
[ "$(status_kept "$FGBISECT" hotfiles --repo "$repo" --ignore-revs "$tmp/none" "${frames[@]}")" = 2 ] || fail "missing ignore-revs"
# Partial clones: a blobless one answers (history needs trees, not blobs;
# its .git-blame-ignore-revs blob is missing); a treeless one is refused
# with a hint, never a wrong answer.
git -C "$repo" config uploadpack.allowfilter true
git clone -q --bare --filter=blob:none "file://$repo" "$tmp/blobless.git" 2>/dev/null
want=$(git -C "$repo" log -1 --format=%H -- "$(git -C "$repo" ls-files '*.java' | sed -n 1p)")
"$FGBISECT" hotfiles --repo "$tmp/blobless.git" --json "${frames[@]}" >"$tmp/out" 2>"$tmp/err" || fail "blobless clone: $(cat "$tmp/err")"
jq -e --arg w "$want" '[.files[].last_commit] | index($w) != null' "$tmp/out" >/dev/null || fail "blobless clone: last commit"
git clone -q --bare --filter=tree:0 "file://$repo" "$tmp/treeless.git" 2>/dev/null
[ "$(status_kept "$FGBISECT" hotfiles --repo "$tmp/treeless.git" "${frames[@]}")" = 4 ] || fail "treeless clone: exit"
grep -q "partial clone" "$tmp/err" || fail "treeless clone: no hint: $(cat "$tmp/err")"

[ "$(status_kept "$FGBISECT" hotfiles --help)" = 0 ] || fail "--help"
grep -q -- "--frame" "$tmp/out" || fail "--help text"

if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS failure(s)"
	exit 1
fi
echo "ok"
