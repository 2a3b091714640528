#!/bin/bash
# ctest-labels: slow
# hotfiles BASE CANDIDATE, diff --repo and the decision on a planted
# repository: the fixtures day01 → day10 grow TransactionalColumnFamily
# frames, called (through ZeebeTransaction.run and
# BpmnStreamProcessor.processRecord) by the stream processor.
#   A: the hot file changed in the window   → "changed", its commit suspect;
#   B: only a caller's file changed         → "unchanged", the caller named;
#   C: only pom.xml changed                 → "external" (when no hot frame
#      is in the repository), the build file named.
# Every file answer is checked against git log.
source "$FG_SOURCE_DIR/tests/lib.sh"
command -v git >/dev/null || { echo "SKIP: git not found"; exit 77; }
F="$FG_SOURCE_DIR/fixtures"
BASE="$F/day01-broker-0-grpc.collapsed.gz"
CAND="$F/day10-broker-0-grpc.collapsed.gz"
# The decisions are made on day 1's three brokers against the candidate:
# with one profile a side the growers decide nothing (checked below).
BASES=("$F"/day01-broker-{0,1,2}-grpc.collapsed.gz)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME="$T" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org

DB=zeebe/zb-db/src/main/java/io/camunda/zeebe/db/impl/rocksdb/transaction
CF=$DB/TransactionalColumnFamily.java
TX=$DB/ZeebeTransaction.java
BPMN=zeebe/engine/src/main/java/io/camunda/zeebe/engine/processing/bpmn/BpmnStreamProcessor.java
repo="$T/repo"
git init -q -b main "$repo"
cd "$repo"
day=0
edit() { mkdir -p "$(dirname "$1")"; echo "// $2" >>"$1"; }
commit() { # SUBJECT: one commit a day, fixed dates
	day=$((day + 1))
	git add -A
	GIT_AUTHOR_DATE="2026-03-$(printf %02d $day)T10:00:00+01:00" \
		GIT_COMMITTER_DATE="2026-03-$(printf %02d $day)T10:00:00+01:00" git commit -q -m "$1"
}
edit "$CF" v1
edit "$TX" v1
edit "$BPMN" v1
edit pom.xml v1
commit "initial import"
edit README.md v1
commit "docs: readme"
git tag good
# A: the hot file itself, plus an unrelated commit in the window.
git checkout -q -b a good
edit "$CF" "serialize the key twice"
commit "db: serialize keys in the column family"
edit README.md v2
commit "docs: more readme"
git tag badA
# B: a caller on the grown stacks changed, the hot files did not.
git checkout -q -b b good
edit "$TX" "one transaction per command"
commit "db: run each command in its own transaction"
git tag badB
git checkout -q -b b2 good
edit "$BPMN" "process twice"
commit "engine: process records twice"
git tag badB2
# C: only the build file.
git checkout -q -b c good
edit pom.xml "netty-bom 4.2"
commit "deps: bump netty-bom"
git tag badC
cd "$T"

hot() { "$FGBISECT" hotfiles --repo "$repo" --good good "$@" "${BASES[@]}" -- "$CAND"; }

# The frames first: what the fixtures really hold (so the planted files
# are the ones the profiles name).  Ranked by the change each surely made:
# the column family first; the stream processor, a caller, is on their
# stacks but not listed (its change is within the run-to-run noise).
top=$("$FGBISECT" diff --json "$BASE" "$CAND" | json_get 'j["grew"][0]["frame"], [e["frame"] for e in j["grew"] if "BpmnStreamProcessor" in e["frame"]]')
[[ $top == "('io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction', [])" ]] ||
	fail "the fixtures' top growers changed: $top"

# --- A ------------------------------------------------------------------
out=$(hot --bad badA --json)
A=$(git -C "$repo" rev-parse badA~1)
check_eq "A: kind" "$(json_get 'j["decision"]["kind"]' <<<"$out")" changed
check_eq "A: suspects" "$(json_get '[(s["commit"], s["paths"]) for s in j["decision"]["suspects"]]' <<<"$out")" \
	"[('$A', ['$CF'])]"
check_eq "A: grew" "$(json_get 'len(j["grew"]), j["grew"][0]["frame"]' <<<"$out")" \
	"(10, 'io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction')"
# Every file entry against git itself.
# "|" separates: tabs are IFS whitespace, and read would merge an empty window.
while IFS='|' read -r path last date win changed; do
	check_eq "A: $path last" "$last" "$(git -C "$repo" log -1 --format=%H badA -- "$path")"
	check_eq "A: $path date" "$date" "$(git -C "$repo" log -1 --format=%aI badA -- "$path")"
	want=$(git -C "$repo" log --format=%H good..badA -- "$path" | paste -sd, -)
	check_eq "A: $path window" "$win" "$want"
	check_eq "A: $path changed" "$changed" "$([[ -n $want ]] && echo True || echo False)"
done < <(json_get '"\n".join("|".join([f["path"], f["last_commit"], f["last_date"],
	",".join(c["commit"] for c in f["window_commits"]), str(f["changed_in_window"])])
	for f in j["files"] if f["path"])' <<<"$out")
check_eq "A: files found" "$(json_get 'sorted({f["path"] for f in j["files"] if f["path"]})' <<<"$out")" \
	"['$CF']"
check_eq "A: not in repository" \
	"$(json_get '[f["reason"] for f in j["files"] if f["frame"] == "java/lang/Long.valueOf"]' <<<"$out")" "['not in repository']"
txt=$(hot --bad badA)
grep -q '^decision: a hot file changed in the window; suspect commit:$' <<<"$txt" || fail "A: text: $txt"
check_eq "A: separable, 30 grown frames beyond --hot" "$(json_get 'j["separable"], j["not_looked_up"]' <<<"$out")" "(True, 30)"
grep -q '^caution: ' <<<"$txt" && fail "A: a caution with three bases: $txt"
# One profile a side: the growers may be differences between nodes (no
# node spread to measure), so they decide nothing, and both that and the
# caution are said; their files are still looked up.
NOSIDE='one profile a side: noise cannot be separated from signal, so no suspect is named from the frames that grew'
out1=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad badA --json "$BASE" "$CAND")
check_eq "one a side: no decision" \
	"$(json_get 'j["decision"], j["no_decision"], j["separable"], j["not_looked_up"], len(j["files"]) > 0' <<<"$out1")" \
	"(None, '$NOSIDE', False, 29, True)"
txt1=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad badA "$BASE" "$CAND")
grep -qxF "no decision: $NOSIDE" <<<"$txt1" || fail "one a side: text: $txt1"
grep -q '^caution: one profile a side: no node spread to measure, so noise cannot be separated from$' <<<"$txt1" ||
	fail "one a side: no caution: $txt1"
grep -q '^decision:' <<<"$txt1" && fail "one a side: a decision: $txt1"
check_eq "diff --repo, one a side: no decision" \
	"$("$FGBISECT" diff --json --repo "$repo" --good good --bad badA "$BASE" "$CAND" | json_get 'j["decision"], j["no_decision"]')" \
	"(None, '$NOSIDE')"
grep -q "^  ${A:0:12} 2026-03-03 db: serialize keys in the column family$" <<<"$txt" || fail "A: suspect line"
grep -q "^  not in repository (class java/lang/Long)$" <<<"$txt" ||
	fail "A: frame without file"

# --- B ------------------------------------------------------------------
out=$(hot --bad badB --json)
Bc=$(git -C "$repo" rev-parse badB)
check_eq "B: kind" "$(json_get 'j["decision"]["kind"], j["decision"]["suspects"]' <<<"$out")" "('unchanged', [])"
check_eq "B: callers" "$(json_get '[(c["path"], [k["commit"] for k in c["commits"]]) for c in j["decision"]["callers"]]' <<<"$out")" \
	"[('$TX', ['$Bc'])]"
txt=$(hot --bad badB)
grep -q "^decision: the hot files did not change in the window: their code is called more often, or the configuration changed$" \
	<<<"$txt" || fail "B: text: $txt"
grep -q "^    $TX$" <<<"$txt" || fail "B: caller not named"
# BpmnStreamProcessor's own change is within noise (not a grower): with the
# top 10 or every grower it is a caller of the column family.
for top in 10 1000; do
	check_eq "B2: top $top" "$(hot --bad badB2 --top $top --json | json_get 'j["decision"]["kind"], [c["path"] for c in j["decision"]["callers"]]')" \
		"('unchanged', ['$BPMN'])"
done

# --- C ------------------------------------------------------------------
# Without the column family (diff --ignore) the top 2 growers are a kernel
# frame and a JDK method: nothing in the repository.
dc() { "$FGBISECT" diff --repo "$repo" --good good --bad badC --ignore TransactionalColumnFamily --hot 2 "$@" "${BASES[@]}" -- "$CAND"; }
out=$(dc --json)
check_eq "C: kind" "$(json_get 'j["decision"]["kind"], j["decision"]["build_files"], j["decision"]["callers"]' <<<"$out")" \
	"('external', ['pom.xml'], [])"
txt=$(dc)
grep -q "^decision: no hot frame maps to a source file of the repository (JVM, native code or a dependency): look at the build files changed in the window$" \
	<<<"$txt" || fail "C: text: $txt"
grep -q "^    pom.xml$" <<<"$txt" || fail "C: pom.xml not named"
# With the column family hot but unchanged, the build file is still named.
check_eq "C: top 10" "$(hot --bad badC --json | json_get 'j["decision"]["kind"], j["decision"]["build_files"]')" \
	"('unchanged', ['pom.xml'])"

# --- diff --repo ----------------------------------------------------------
out=$("$FGBISECT" diff --json --repo "$repo" --good good --bad badA "${BASES[@]}" -- "$CAND")
check_eq "diff: decision" "$(json_get 'j["decision"]["kind"], [s["commit"] for s in j["decision"]["suspects"]]' <<<"$out")" \
	"('changed', ['$A'])"
check_eq "diff: files of a grown frame" "$(json_get '[(f["path"], f["changed_in_window"], f["last_commit"]) for e in j["grew"]
	if e["frame"].endswith("TransactionalColumnFamily.ensureInOpenTransaction") for f in e["files"]]' <<<"$out")" \
	"[('$CF', True, '$A')]"
check_eq "diff: every grown entry has files" "$(json_get 'all(len(e["files"]) >= 1 for e in j["grew"]), "files" in j["shrank"][0]' <<<"$out")" \
	"(True, False)"
check_eq "diff: history" "$(json_get 'j["history"]["good"], j["history"]["bad"]' <<<"$out")" \
	"('$(git -C "$repo" rev-parse good)', '$(git -C "$repo" rev-parse badA)')"
out=$("$FGBISECT" diff --json --repo "$repo" --good good --bad badB "${BASES[@]}" -- "$CAND")
check_eq "diff B: decision" "$(json_get 'j["decision"]["kind"], [c["path"] for c in j["decision"]["callers"]]' <<<"$out")" \
	"('unchanged', ['$TX'])"
check_eq "diff C: --hot 2, the column family first" "$("$FGBISECT" diff --json --repo "$repo" --good good --bad badC --hot 2 "${BASES[@]}" -- "$CAND" |
	json_get 'j["decision"]["kind"]')" unchanged
txt=$("$FGBISECT" diff --repo "$repo" --good good --bad badA "${BASES[@]}" -- "$CAND")
grep -q "^          window      changed by 1 commit:$" <<<"$txt" || fail "diff text: window"
grep -q '^decision: a hot file changed in the window' <<<"$txt" || fail "diff text: decision"
# Without --good: files only, no window, no decision.
out=$("$FGBISECT" diff --json --repo "$repo" --bad badA "$BASE" "$CAND")
check_eq "diff: no window" "$(json_get '"decision" in j, {f["changed_in_window"] for e in j["grew"] for f in e["files"]}' <<<"$out")" \
	"(False, {None})"
# The refusal of the diff holds in hotfiles too.
code=0
"$FGBISECT" hotfiles --repo "$repo" "$F/day01-broker-0-rest.collapsed.gz" "$CAND" >/dev/null 2>"$T/err" || code=$?
check_eq "gRPC vs REST refused" "$code" 2
grep -q "force" "$T/err" || fail "refusal message: $(cat "$T/err")"
check_eq "--force" "$("$FGBISECT" hotfiles --repo "$repo" --force --json "$F/day01-broker-0-rest.collapsed.gz" "$CAND" 2>/dev/null |
	json_get '"decision" in j')" False
check_eq "diff --good without --repo" "$(set +e; "$FGBISECT" diff --good good "$BASE" "$CAND" >/dev/null 2>&1; echo $?)" 2
finish
