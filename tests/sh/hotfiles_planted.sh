#!/usr/bin/env bash
# hotfiles on a planted history: a rename, merges in both directions with
# changes on either side, an "ours" merge, an evil merge, a mode change, a
# bulk commit listed in .git-blame-ignore-revs, two modules holding the same
# class path, a Kotlin file facade, a file untouched in the window, and
# frames that have no file.  Every answer is checked against git itself.
set -euo pipefail

source "$(dirname "$0")/../git_lib.sh"

repo="$tmp/repo"
git init -q -b main "$repo"
cd "$repo"
java() { # module class [line]
	local f="$1/src/main/java/$2.java"
	mkdir -p "$(dirname "$f")"
	printf 'package x;\nclass %s {}\n%s\n' "$(basename "$2")" "${3:-}" >>"$f"
}

DB=io/camunda/zeebe/db/impl/rocksdb/transaction
java zeebe/zb-db "$DB/TransactionalColumnFamily"
java zeebe/zb-db "$DB/ZeebeTransaction"
java zb-old-broker io/camunda/zeebe/broker/Broker
java zeebe/stream-platform io/camunda/zeebe/stream/impl/ProcessingStateMachine
java zeebe/stream-platform io/camunda/zeebe/stream/impl/ReplayStateMachine
java zeebe/gateway-grpc io/camunda/zeebe/gateway/RequestMapper
java zeebe/gateway-rest io/camunda/zeebe/gateway/RequestMapper
java zeebe/journal io/camunda/zeebe/journal/file/SegmentedJournal
java zeebe/journal io/camunda/zeebe/journal/file/Untouched
mkdir -p zeebe/util/src/main/kotlin/io/camunda/zeebe/util zeebe/feel/src/main/scala/org/camunda/feel
echo 'fun trimAll() = 1' >zeebe/util/src/main/kotlin/io/camunda/zeebe/util/Strings.kt
echo 'object Eval' >zeebe/feel/src/main/scala/org/camunda/feel/Eval.scala
echo 'not a class' >zeebe/journal/src/main/java/io/camunda/zeebe/journal/file/Stray.class
g add -A && commit -m "initial import"

java zeebe/zb-db "$DB/TransactionalColumnFamily" "// tuning"
g add -A && commit -m "db: tune column family"

# The package moves module (R100), as zb-db moved under zeebe/.
mkdir -p zeebe/broker/src/main/java/io/camunda/zeebe
g mv zb-old-broker/src/main/java/io/camunda/zeebe/broker zeebe/broker/src/main/java/io/camunda/zeebe/broker
commit -m "refactor: move broker to zeebe subfolder"
g tag good

# Feature branch changes the column family; main changes the stream.
g checkout -q -b feature
java zeebe/zb-db "$DB/TransactionalColumnFamily" "// feature: cache"
g add -A && commit -m "feature: cache in column family"
java zeebe/gateway-rest io/camunda/zeebe/gateway/RequestMapper "// feature rest"
g add -A && commit -m "feature: rest mapper"
g checkout -q main
java zeebe/stream-platform io/camunda/zeebe/stream/impl/ProcessingStateMachine "// main: batch"
g add -A && commit -m "main: batch processing"
# main into feature (the other direction), with changes on either side
g checkout -q feature
merge main -m "Merge main into feature"
java zeebe/journal io/camunda/zeebe/journal/file/SegmentedJournal "// feature: flush"
g add -A && commit -m "feature: journal flush"
g checkout -q main
java zeebe/gateway-grpc io/camunda/zeebe/gateway/RequestMapper "// main grpc"
g add -A && commit -m "main: grpc mapper"
merge feature -m "Merge feature into main"

# A side branch whose change is dropped by an "ours" merge: git log -1
# follows main, the side commit is never the answer.
g checkout -q -b dropped
java zeebe/zb-db "$DB/ZeebeTransaction" "// dropped change"
g add -A && commit -m "dropped: transaction change"
g checkout -q main
java zeebe/stream-platform io/camunda/zeebe/stream/impl/ReplayStateMachine "// main: replay"
g add -A && commit -m "main: replay"
merge -s ours dropped -m "Merge dropped (ours)"

# An evil merge: the merge result differs from both parents.
g checkout -q -b side
java zeebe/journal io/camunda/zeebe/journal/file/SegmentedJournal "// side"
g add -A && commit -m "side: journal"
g checkout -q main
java zeebe/zb-db "$DB/TransactionalColumnFamily" "// main before evil"
g add -A && commit -m "main: column family"
t=$((t + 3600))
GIT_AUTHOR_DATE="@$t +0100" GIT_COMMITTER_DATE="@$t +0100" g merge -q --no-ff --no-commit side >/dev/null
java zeebe/zb-db "$DB/TransactionalColumnFamily" "// evil"
g add -A && commit -m "Merge side (evil)"

# A mode change is a change.
chmod +x zeebe/zb-db/src/main/java/$DB/ZeebeTransaction.java
g add -A && commit -m "chmod transaction"

# The bulk reformat, then its id in .git-blame-ignore-revs.
for f in $(git ls-files '*.java'); do
	case "$f" in *Untouched*) continue ;; esac
	printf '// formatted\n' >>"$f"
done
g add -A && commit -m "style: reformat everything"
bulk=$(git rev-parse HEAD)
printf '# bulk formatting\n%s\n' "$bulk" >.git-blame-ignore-revs
g add -A && commit -m "add blame ignore list"
java zeebe/stream-platform io/camunda/zeebe/stream/impl/ProcessingStateMachine "// after bulk"
g add -A && commit -m "main: after bulk"
g tag bad

frames=(
	"io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily\$\$Lambda.0x00007f3b7b91000.run_[j]"
	"io.camunda.zeebe.db.impl.rocksdb.transaction.ZeebeTransaction.get"
	"io/camunda/zeebe/broker/Broker\$1.run"
	"io/camunda/zeebe/stream/impl/ProcessingStateMachine.lambda\$processCommand\$0_[i]"
	"io/camunda/zeebe/stream/impl/ReplayStateMachine\$\$Lambda\$22/0x0000000800c0c000.run"
	"io/camunda/zeebe/gateway/RequestMapper.toRequest(Lio/camunda/X;)V"
	"io/camunda/zeebe/journal/file/SegmentedJournal.append:120"
	"io/camunda/zeebe/journal/file/Untouched.run"
	"io/camunda/zeebe/util/StringsKt.trimAll"
	"org/camunda/feel/Eval\$.apply"
	"io/camunda/zeebe/journal/file/Stray.run"
	"io/camunda/zeebe/protocol/record/RecordEncoder.wrap"
	"rocksdb::DBImpl::Get"
	"[unknown]"
	"/tmp/librocksdbjni1.so"
)
args=()
for f in "${frames[@]}"; do args+=(--frame "$f"); done

out="$tmp/out.json"
if ! "$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --json "${args[@]}" >"$out"; then
	echo "FAIL: fgbisect hotfiles exited $?"
	exit 1
fi
jq -e . "$out" >/dev/null || { echo "FAIL: output is not JSON"; cat "$out"; exit 1; }

# Top level.
[ "$(jq -r .bad "$out")" = "$(git rev-parse bad)" ] || fail "bad id"
[ "$(jq -r .good "$out")" = "$(git rev-parse good)" ] || fail "good id"

# Every file entry against git log.
while IFS=$'\t' read -r path last lastdate meaningful win; do
	want=$(git log -1 --format=%H bad -- "$path")
	[ "$last" = "$want" ] || fail "$path: last_commit $last, git log -1 says $want"
	wdate=$(git log -1 --format=%aI bad -- "$path")
	[ "$lastdate" = "$wdate" ] || fail "$path: last_date $lastdate, git says $wdate"
	wwin=$(git log --format=%H good..bad -- "$path" | paste -sd, -)
	[ "$win" = "$wwin" ] || fail "$path: window [$win], git log good..bad says [$wwin]"
	# The first listed commit that is not ignored (the chains here are
	# linear at the bulk commit, so git log's second entry is the next).
	wmean=$(git log --format=%H bad -- "$path" | grep -v -x -F "$bulk" | sed -n 1p)
	[ "$meaningful" = "$wmean" ] || fail "$path: last_meaningful_commit $meaningful, expected $wmean"
done < <(jq -r '.files[] | select(.path != null) |
	[.path, .last_commit, .last_date, .last_meaningful_commit, (.window_commits | map(.commit) | join(","))] | @tsv' "$out")

count() { jq -r "[.files[] | select($1)] | length" "$out"; }
# Two modules hold RequestMapper: both reported.
[ "$(count '.class == "io/camunda/zeebe/gateway/RequestMapper"')" = 2 ] || fail "RequestMapper: want 2 candidates"
[ "$(count '.class == "io/camunda/zeebe/gateway/RequestMapper" and .candidates == 2 and .path != null')" = 2 ] ||
	fail "RequestMapper: candidates field"
# The Kotlin facade and the Scala object map to their files.
[ "$(jq -r '.files[] | select(.frame | startswith("io/camunda/zeebe/util/StringsKt")) | .path' "$out")" = \
	zeebe/util/src/main/kotlin/io/camunda/zeebe/util/Strings.kt ] || fail "Kotlin file facade"
[ "$(jq -r '.files[] | select(.class == "org/camunda/feel/Eval") | .path' "$out")" = \
	zeebe/feel/src/main/scala/org/camunda/feel/Eval.scala ] || fail "Scala object"
# The rename: past the bulk commit, the broker's last meaningful commit is the move.
[ "$(jq -r '.files[] | select(.class == "io/camunda/zeebe/broker/Broker") | .last_meaningful_subject' "$out")" = \
	"refactor: move broker to zeebe subfolder" ] || fail "renamed file's last commit"
# The bulk commit is last_commit where git says so, never last_meaningful.
[ "$(count ".last_commit == \"$bulk\"")" -ge 5 ] || fail "bulk commit should be the last commit of most files"
[ "$(count ".last_meaningful_commit == \"$bulk\"")" = 0 ] || fail "bulk commit reported as meaningful"
[ "$(count ".last_commit == \"$bulk\" and .last_commit_ignored == true")" = "$(count ".last_commit == \"$bulk\"")" ] ||
	fail "last_commit_ignored"
# The untouched file: unchanged in the window, last commit the import.
[ "$(jq -r '.files[] | select(.class == "io/camunda/zeebe/journal/file/Untouched") |
	"\(.changed_in_window) \(.window_commits | length) \(.last_subject)"' "$out")" = "false 0 initial import" ] ||
	fail "untouched file"
# The dropped ("ours") change never shows; the evil merge does.
[ "$(jq -r '.files[] | select(.class | . != null and endswith("ZeebeTransaction")) | .window_commits[].subject' "$out" |
	grep -c dropped || true)" = 0 ] || fail "ours-merged change listed"
jq -r '.files[] | select(.class | . != null and endswith("TransactionalColumnFamily")) | .window_commits[].subject' "$out" |
	grep -q -x "Merge side (evil)" || fail "evil merge not listed"
# Frames without a file: path null, reason, class where there is one.
for fr in "rocksdb::DBImpl::Get" "[unknown]" "/tmp/librocksdbjni1.so"; do
	[ "$(jq -r --arg f "$fr" '.files[] | select(.frame == $f) | "\(.class) \(.path) \(.reason) \(.last_commit)"' "$out")" = \
		"null null not in repository null" ] || fail "$fr: want not in repository"
done
[ "$(jq -r '.files[] | select(.frame | startswith("io/camunda/zeebe/protocol")) | "\(.class) \(.path)"' "$out")" = \
	"io/camunda/zeebe/protocol/record/RecordEncoder null" ] || fail "generated class: want class, no path"
# A stray .class file is not a source.
[ "$(jq -r '.files[] | select(.class == "io/camunda/zeebe/journal/file/Stray") | .path' "$out")" = null ] ||
	fail "Stray.class indexed"
[ "$(jq '.files | length' "$out")" = 16 ] || fail "want 16 entries (15 frames, one of them twice)"

# --ignore-revs FILE on top of the repository's list: the evil merge is
# skipped too, and at an ignored merge the first parent is followed.
cf=zeebe/zb-db/src/main/java/$DB/TransactionalColumnFamily.java
cf_frame="io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get"
evil=$(git log -1 --format=%H -F --grep="Merge side (evil)" bad)
printf '%s  # the evil merge\n' "$evil" >"$tmp/ignore"
m=$("$FGBISECT" hotfiles --repo "$repo" --json --frame "$cf_frame" | jq -r '.files[0] | "\(.last_commit) \(.last_meaningful_commit)"')
[ "$m" = "$bulk $evil" ] || fail "repository list: want bulk then evil merge, got $m"
m=$("$FGBISECT" hotfiles --repo "$repo" --ignore-revs "$tmp/ignore" --json --frame "$cf_frame" |
	jq -r '.files[0] | "\(.last_commit) \(.last_meaningful_commit)"')
[ "$m" = "$bulk $(git log -1 --format=%H "$evil^1" -- "$cf")" ] || fail "--ignore-revs: got $m"
m=$("$FGBISECT" hotfiles --repo "$repo" --bad bad --no-blame-ignore-revs --json --frame "$cf_frame" |
	jq -r '.files[0] | "\(.last_commit) \(.last_meaningful_commit) \(.changed_in_window)"')
[ "$m" = "$bulk $bulk null" ] || fail "--no-blame-ignore-revs: $m"

# The text form names the file and the commits.
txt=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --frame "$cf_frame" --frame "rocksdb::DBImpl::Get")
grep -q "zeebe/zb-db/src/main/java/$DB/TransactionalColumnFamily.java" <<<"$txt" || fail "text: path missing"
grep -q "window      changed by" <<<"$txt" || fail "text: window missing"
grep -q "not in repository" <<<"$txt" || fail "text: not in repository missing"

# The walks read commits from a commit-graph when the repository has one
# (git gc writes it): the same answers.
git -C "$repo" commit-graph write --reachable 2>/dev/null
"$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --json "${args[@]}" >"$tmp/graph.json" ||
	fail "with a commit-graph: exit $?"
cmp -s "$out" "$tmp/graph.json" || fail "the commit-graph changes the answers"
# …and from its changed-path Bloom filters (--changed-paths): the same.
rm -f "$repo/.git/objects/info/commit-graph"
git -C "$repo" commit-graph write --reachable --changed-paths 2>/dev/null
"$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --json "${args[@]}" >"$tmp/bloom.json" ||
	fail "with changed-path filters: exit $?"
cmp -s "$out" "$tmp/bloom.json" || fail "the changed-path filters change the answers"

if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS failure(s); output was:"
	jq . "$out" | head -120
	exit 1
fi
echo "ok"
