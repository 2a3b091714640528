#!/usr/bin/env bash
# hotfiles' answers against git's on a real history: the camunda/zeebe
# repository (40,380 commits, monorepo moves, merges with equal commit
# times).  For 24 hot frames of ../shared/docs/zeebe.md's hot paths, in one
# `fgbisect hotfiles --json` call per window, each file's last change is
# `git log -1 -- PATH`, its window commits are `git log GOOD..BAD -- PATH`,
# and each method fgbisect finds is `git log -L FIRST,LAST:PATH` over the
# lines it reports (the window's commits, and `-n1` for the last change:
# tests/method_log.sh).  Windows: about 200 commits, and d48dc33f..HEAD
# (20,172 commits); both end at the snapshot's HEAD.
#
# usage: contrib/check-history-real.sh [FGBISECT]
#   FG_ZEEBE_REPO  the camunda/zeebe clone (bare or not); without it the
#   check says SKIP and exits 77.  CHECK_GOODS overrides the windows' good
#   revisions (space-separated).
set -euo pipefail
source "$(dirname "$0")/../tests/method_log.sh"

fgbisect=${1:-build/fgbisect}
[ -x "$fgbisect" ] || { echo "check-history-real: no binary at $fgbisect" >&2; exit 2; }
repo=${FG_ZEEBE_REPO:-}
if [ -z "$repo" ] || ! git -C "$repo" rev-parse -q --verify d48dc33f^{commit} >/dev/null 2>&1; then
	echo "SKIP: FG_ZEEBE_REPO does not name a camunda/zeebe clone with d48dc33f (got '${repo}')" >&2
	exit 77
fi
for tool in git jq; do
	command -v "$tool" >/dev/null || { echo "check-history-real: $tool is needed" >&2; exit 2; }
done
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
export GIT_CONFIG_NOSYSTEM=1

frames=(
	io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get
	io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert
	io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction
	io/camunda/zeebe/db/impl/rocksdb/transaction/ZeebeTransaction.commit
	io/camunda/zeebe/db/impl/rocksdb/transaction/ZeebeTransaction.run
	io/camunda/zeebe/db/impl/rocksdb/transaction/ColumnFamilyContext.prefix
	io/camunda/zeebe/stream/impl/ProcessingStateMachine.processCommand
	io/camunda/zeebe/stream/impl/ProcessingStateMachine.tryToReadNextRecord
	io/camunda/zeebe/stream/impl/ProcessingStateMachine.executeSideEffects
	io/camunda/zeebe/stream/impl/ProcessingStateMachine.batchProcessing
	io/camunda/zeebe/stream/impl/ReplayStateMachine.replayNextEvent
	io/camunda/zeebe/scheduler/ActorThread.doWork
	io/camunda/zeebe/scheduler/ActorThread.executeCurrentTask
	io/camunda/zeebe/scheduler/ActorJob.execute
	io/camunda/zeebe/journal/file/SegmentedJournalWriter.append
	io/camunda/zeebe/journal/file/SegmentedJournalWriter.flush
	io/camunda/zeebe/journal/file/SegmentWriter.append
	io/camunda/zeebe/logstreams/impl/log/Sequencer.tryWrite
	io/atomix/raft/roles/LeaderRole.appendEntry
	io/atomix/raft/roles/LeaderAppender.appendEntries
	io/camunda/zeebe/engine/processing/bpmn/BpmnStreamProcessor.processRecord
	io/camunda/zeebe/exporter/ElasticsearchExporter.export
	io/camunda/zeebe/exporter/ElasticsearchExporter.flush
	io/camunda/zeebe/broker/exporter/stream/ExporterDirector.exportEvent
)
args=()
for f in "${frames[@]}"; do args+=(--frame "$f"); done

bad=$(git -C "$repo" rev-parse HEAD)
goods=${CHECK_GOODS:-"$(git -C "$repo" rev-list -n 201 HEAD | tail -1) d48dc33f"}
total=0 mismatches=0
for good in $goods; do
	good=$(git -C "$repo" rev-parse "$good")
	out=$tmpd/out.json
	"$fgbisect" hotfiles --repo "$repo" --good "$good" --bad "$bad" --json "${args[@]}" >"$out"
	files=0
	: >"$tmpd/mismatches"
	while IFS=$'\t' read -r frame path last win; do
		files=$((files + 1))
		want=$(git -C "$repo" log -1 --format=%H "$bad" -- "$path")
		[ "$last" = "$want" ] || echo "$frame: last $last, git log -1 says $want" >>"$tmpd/mismatches"
		want=$(git -C "$repo" log --format=%H "$good..$bad" -- "$path" | sort | paste -sd, -)
		[ "$win" = "$want" ] || echo "$frame: window [$win], git log says [$want]" >>"$tmpd/mismatches"
	done < <(jq -r '.files[] | select(.path != null) |
		[.frame, .path, .last_commit, (.window_commits | map(.commit) | sort | join(","))] | @tsv' "$out")
	method_check "$out" "$repo" "$good" "$bad" >>"$tmpd/mismatches"
	n=$(wc -l <"$tmpd/mismatches")
	sed 's/^/MISMATCH /' "$tmpd/mismatches" >&2
	echo "window ${good:0:12}..${bad:0:12} ($(git -C "$repo" rev-list --count "$good..$bad") commits):" \
		"$files files (last change, window commits) and $method_checked methods ($method_changed changed" \
		"in the window) against git: $n mismatches"
	total=$((total + 2 * files + 2 * method_checked))
	mismatches=$((mismatches + n))
done
echo "$total answers compared with git, $mismatches mismatches"
[ "$mismatches" -eq 0 ]
