#!/usr/bin/env bash
# ctest-labels: slow
# Method histories (hotfiles' "method" fields) against git log -L.
#
# 1. A planted history of a Zeebe-like column family: a body change in the
#    window, a change before it, an import that shifts every line, overloads
#    changed on a branch and merged, a method moved below another, a partial
#    reformat, the file renamed to another module, a Kotlin function.  Each
#    method's commits are checked against `git log -L FIRST,LAST:PATH` over
#    the method's lines at bad (one -L per overload, as git unions them), and
#    where git's funcname range is the method's (no edit between methods),
#    against `git log -L :NAME:PATH` too; lines added/removed are exact;
#    with --ignore-revs, the last meaningful change is the first commit of
#    git log -L's list that is not ignored (the oldest when all are).
# 2. Random histories: edits inside and between methods, insertions,
#    deletions, moves, merges (an octopus too); every method against git
#    log -L; the same answers again with a commit-graph, with its
#    changed-path Bloom filters, and repacked (OFS and REF deltas).  Then
#    hot files that share directories, with commits that touch their
#    neighbours: every method against git log -L without a graph, with one
#    and with its filters.
# 3. The decision at method level in hotfiles (frames and profiles) and
#    diff --repo: "the hot method changed in commit X" / "the file changed
#    but not this method".
set -euo pipefail

source "$(dirname "$0")/../git_lib.sh"
source "$(dirname "$0")/../method_log.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }

repo="$tmp/repo"
git init -q -b main "$repo"
cd "$repo"
# git's Java funcname driver, so that -L :NAME: finds methods.
echo '*.java diff=java' >.gitattributes

DB=io/camunda/zeebe/db/impl/rocksdb/transaction
CF=zeebe/zb-db/src/main/java/$DB/TransactionalColumnFamily.java
mkdir -p "$(dirname "$CF")" zeebe/util/src/main/kotlin/io/camunda/zeebe/util
KT=zeebe/util/src/main/kotlin/io/camunda/zeebe/util/Strings.kt
cat >"$CF" <<'EOF'
package io.camunda.zeebe.db.impl.rocksdb.transaction;

import java.util.function.Consumer;

public class TransactionalColumnFamily {
    private final Object lock = new Object();

    public Object get(Object key) {
        return lookup(key);
    }

    public void put(Object key, Object value) {
        store(key, value);
    }

    public void put(Object key) {
        store(key, null);
    }

    public void forEach(Consumer<Object> c) {
        ensureInOpenTransaction(() -> {
            c.accept(null);
        });
    }

    private Object lookup(Object key) {
        return key;
    }

    private void store(Object key, Object value) {
    }

    private void ensureInOpenTransaction(Runnable r) {
        r.run();
    }
}
EOF
cat >"$KT" <<'EOF'
package io.camunda.zeebe.util

fun trimAll(s: String) = s.trim()

fun pad(s: String): String {
    return " $s"
}
EOF
g add -A && commit -m "initial import"
sed -i 's/        return key;/        return cache(key);/' "$CF"
g add -A && commit -m "db: lookup through the cache"
sed -i 's/^import java.util.function.Consumer;/import java.util.Map;\nimport java.util.function.Consumer;/' "$CF"
g add -A && commit -m "db: import Map"
g tag good

sed -i 's/        return lookup(key);/        Objects.requireNonNull(key);\n        return lookup(key);/' "$CF"
g add -A && commit -m "db: get checks the key"
g checkout -q -b feature
sed -i 's/        store(key, null);/        store(key, NIL);/' "$CF"
g add -A && commit -m "feature: put without value stores NIL"
g checkout -q main
sed -i 's/    private void store(Object key, Object value) {/    private void store(Object key, Object value) {\n        log(key);/' "$CF"
g add -A && commit -m "main: store logs"
merge feature -m "Merge feature"
# forEach moves below ensureInOpenTransaction.
python3 - "$CF" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
start = next(i for i, l in enumerate(lines) if "public void forEach" in l)
block = lines[start:start + 6]          # the method and its blank line
del lines[start:start + 6]
end = max(i for i, l in enumerate(lines) if l == "}")
lines[end:end] = [""] + block[:-1]
open(p, "w").write("\n".join(lines))
PY
g add -A && commit -m "refactor: forEach to the end"
# A reformat of the two put overloads only (braces on their own line).
sed -i 's/^    public void put(\(.*\)) {$/    public void put(\1)\n    {/' "$CF"
g add -A && commit -m "style: braces of put"
sed -i 's/return " \$s"/return "  $s"/' "$KT"
g add -A && commit -m "util: pad by two"
# The module moves (a rename, R100).
mkdir -p zeebe/db/src/main/java/$DB
g mv "$CF" zeebe/db/src/main/java/$DB/
CF=zeebe/db/src/main/java/$DB/TransactionalColumnFamily.java
commit -m "refactor: zb-db is now db"
g tag bad

F=io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily
frames=("$F.get" "$F.put" "$F.lambda\$forEach\$0" "$F.lookup" "$F.store" "$F.ensureInOpenTransaction"
	"io/camunda/zeebe/util/StringsKt.trimAll" "io/camunda/zeebe/util/StringsKt.pad" "$F\$\$Lambda.0x0000123.run")
args=()
for f in "${frames[@]}"; do args+=(--frame "$f"); done
out="$tmp/out.json"
"$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --json "${args[@]}" >"$out" || {
	echo "FAIL: hotfiles exited $?"
	exit 1
}

# Compares every found method of a hotfiles JSON with git log -L (in the
# current repository, good..bad); sets $checked to the number compared.
check_against_git() { # json
	local line
	method_check "$1" . good bad >"$tmp/mismatches"
	checked=$method_checked
	while read -r line; do fail "$line"; done <"$tmp/mismatches"
}
check_against_git "$out"
[ "$checked" = 8 ] || fail "want 8 methods found and checked, not $checked"

m() { jq -r --arg f "$1" ".files[] | select(.frame == \$f) | $2" "$out"; }
subj() { m "$1" '[.method_commits[].subject] | join("|")'; }
# The method's own commits, and the file's.
[ "$(subj "$F.get")" = "db: get checks the key" ] || fail "get: $(subj "$F.get")"
[ "$(m "$F.get" '"\(.method.lines) \(.method_changed_in_window) \(.changed_in_window)"')" = "[[9,12]] true true" ] ||
	fail "get: lines/changed: $(m "$F.get" '"\(.method.lines) \(.method_changed_in_window)"')"
[ "$(m "$F.get" '.method_commits[0] | "\(.added) \(.removed)"')" = "1 0" ] || fail "get: +1 -0"
# Overloads: both put methods, the branch's change and the reformat.
[ "$(m "$F.put" '"\(.method.overloads) \(.method.lines)"')" = "2 [[14,17],[19,22]]" ] ||
	fail "put: overloads $(m "$F.put" '"\(.method.overloads) \(.method.lines)"')"
[ "$(subj "$F.put")" = "style: braces of put|feature: put without value stores NIL" ] || fail "put: $(subj "$F.put")"
[ "$(m "$F.put" '.method_commits[0] | "\(.added) \(.removed)"')" = "4 2" ] || fail "put reformat: want +4 -2"
# The lambda's enclosing method, moved: the move is its last change (git
# log -L stops there, the moved lines are new to it).
[ "$(m "$F.lambda\$forEach\$0" '.method.reason')" = "a lambda: its enclosing method" ] || fail "lambda reason"
# Changed before the window only: the file changed, not this method.
[ "$(m "$F.lookup" '"\(.method_changed_in_window) \(.changed_in_window) \(.method.last.subject)"')" = \
	"false true db: lookup through the cache" ] || fail "lookup: $(m "$F.lookup" '.method')"
[ "$(m "$F.lookup" '.method.last | "\(.added) \(.removed)"')" = "1 1" ] || fail "lookup: +1 -1"
# Untouched since the file was added: the rename is followed to the import.
[ "$(m "$F.ensureInOpenTransaction" '"\(.method_changed_in_window) \(.method.last.subject)"')" = \
	"false initial import" ] || fail "ensureInOpenTransaction: $(m "$F.ensureInOpenTransaction" '.method')"
[ "$(subj "$F.store")" = "main: store logs" ] || fail "store: $(subj "$F.store")"
[ "$(subj io/camunda/zeebe/util/StringsKt.pad)" = "util: pad by two" ] || fail "Kotlin pad"
[ "$(m io/camunda/zeebe/util/StringsKt.trimAll '"\(.method.lines) \(.method_changed_in_window)"')" = "[[3,3]] false" ] ||
	fail "Kotlin trimAll"
# The hidden lambda class is said to be unresolvable, with the reason.
[ "$(m "$F\$\$Lambda.0x0000123.run" '"\(.method.status) \(.method_changed_in_window) \(.method.reason != null)"')" = \
	"unresolved null true" ] || fail "hidden lambda class"

# Where git's funcname range is the method's (plus the blank line after it,
# untouched here), -L :NAME: agrees.
for name in get lookup; do
	want=$(git log --format=%H -s -L ":$name(:$CF" good..bad | sed '/^$/d' | sort | paste -sd, -)
	[ "$(m "$F.$name" '.method_commits | map(.commit) | sort | join(",")')" = "$want" ] ||
		fail "$name: git log -L :$name: says [$want]"
	want=$(git log --format=%H -s -n1 -L ":$name(:$CF" bad | sed '/^$/d')
	[ "$(m "$F.$name" '.method.last.commit')" = "$want" ] || fail "$name: last, git log -L :$name: -n1 says $want"
done

# Ignored revisions (--ignore-revs, as for the files' last_meaningful_commit):
# without any, a method's last meaningful change is its last change.
jq -e '[.files[] | select(.method.status == "found") |
	select(.method.last_meaningful.commit != .method.last.commit or .method.last_ignored)] | length == 0' "$out" \
	>/dev/null || fail "without ignored revisions, last_meaningful is not last"
# git log -L's commits of a method's lines at bad, newest first.
git_L_all() { # path lines-json
	local spec=()
	while read -r a b; do spec+=(-L "$a,$b:$1"); done < <(jq -r '.[] | "\(.[0]) \(.[1])"' <<<"$2")
	git log --format=%H -s "${spec[@]}" bad | sed '/^$/d'
}
# The reformat of put ignored: its last meaningful change is the first
# commit git log -L lists for its lines that is not ignored; last, the
# window and the other methods are as before.
reformat=$(git log --format=%H -1 --grep="style: braces of put" bad)
echo "$reformat" >"$tmp/ignore-put"
ign="$tmp/ignored.json"
"$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --json --ignore-revs "$tmp/ignore-put" "${args[@]}" >"$ign" ||
	fail "--ignore-revs: exit $?"
put=$(jq -c --arg f "$F.put" '.files[] | select(.frame == $f)' "$ign")
want=$(git_L_all "$CF" "$(jq -c '.method.lines' <<<"$put")" | grep -vx "$reformat" | head -n1)
[ -n "$want" ] && [ "$(jq -r '.method.last_meaningful.commit' <<<"$put")" = "$want" ] ||
	fail "put: last meaningful $(jq -r '.method.last_meaningful.commit' <<<"$put"), git log -L without the reformat: $want"
[ "$(jq -r '"\(.method.last.commit) \(.method.last_ignored)"' <<<"$put")" = "$reformat true" ] ||
	fail "put: last with the reformat ignored: $(jq -c '.method' <<<"$put")"
strip='[.files[] | del(.last_meaningful_commit, .last_meaningful_date, .last_meaningful_subject,
	.last_commit_ignored, .method.last_meaningful, .method.last_ignored)]'
[ "$(jq -c "$strip" "$ign")" = "$(jq -c "$strip" "$out")" ] || fail "--ignore-revs changes more than the meaningful fields"
txt=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --ignore-revs "$tmp/ignore-put" --frame "$F.put")
grep -q "m. meaningful $(cut -c1-12 <<<"$want")" <<<"$txt" || fail "text: no m. meaningful line for put: $txt"
# Every commit that touched trimAll ignored: the oldest of them (nothing
# older to blame), as for a file that starts in an ignored commit.
tf=io/camunda/zeebe/util/StringsKt.trimAll
tpath=$(m "$tf" '.path')
git_L_all "$tpath" "$(m "$tf" '.method.lines | tojson')" >"$tmp/ignore-trim"
"$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --json --ignore-revs "$tmp/ignore-trim" --frame "$tf" >"$ign"
[ "$(jq -r '.files[0].method | "\(.last_meaningful.commit) \(.last_ignored)"' "$ign")" = "$(tail -n1 "$tmp/ignore-trim") true" ] ||
	fail "trimAll, all its commits ignored: $(jq -c '.files[0].method' "$ign")"

# The text form.
txt=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --frame "$F.lookup")
grep -q "method      lines 24-26" <<<"$txt" || fail "text: method lines: $txt"
grep -q "m. window   unchanged" <<<"$txt" || fail "text: method unchanged in the window"

# The decision at method level, with --frame: get changed in the window,
# lookup did not (its file did).
d=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --json --frame "$F.get" --frame "$F.lookup")
[ "$(jq -r '.decision | "\(.kind) \(.method_kind) \([.methods[] | .kind] | join(","))"' <<<"$d")" = \
	"changed changed changed,unchanged" ] || fail "decision: $(jq -c .decision <<<"$d")"
get_commit=$(m "$F.get" '.method_commits[0].commit')
[ "$(jq -r '.decision.methods[0].commits | map("\(.commit) \(.added) \(.removed)") | join(",")' <<<"$d")" = \
	"$get_commit 1 0" ] || fail "decision: get's commits"
d=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --frame "$F.lookup")
grep -q "^      the file changed but not this method: look at the callers or the configuration" <<<"$d" ||
	fail "decision text: lookup: $d"
grep -q "^  none of the hot methods changed: their code is called more often, or the configuration changed$" <<<"$d" ||
	fail "decision text: none changed: $d"
d=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --frame "$F.get")
grep -q "^      the hot method changed in commit ${get_commit:0:12} (+1 -0)$" <<<"$d" || fail "decision text: get: $d"
# A hidden lambda class cannot be told: the verdict is not "unchanged".
d=$("$FGBISECT" hotfiles --repo "$repo" --good good --bad bad --json --frame "$F.lookup" --frame "$F\$\$Lambda.0x1.run")
[ "$(jq -r '.decision.method_kind' <<<"$d")" = unknown ] || fail "decision: an unresolved method makes it unknown"

# 2. Random histories.
rand="$tmp/rand"
git init -q -b main "$rand"
cd "$rand"
echo '*.java diff=java' >.gitattributes
python3 - "$rand" <<'PY'
import os, random, subprocess, sys
repo = sys.argv[1]
rnd = random.Random(int(os.environ.get("FG_METHOD_SEED", "14")))
path = os.path.join(repo, "src/main/java/p/Hot.java")
os.makedirs(os.path.dirname(path), exist_ok=True)
sys.path.insert(0, os.path.join(os.environ["FG_SOURCE_DIR"], "tests", "tools"))
from git_history import committer
git = committer(repo)
# A file is a list of methods; each method a list of body lines.
methods = [["m%d" % i, ["        int v = %d;" % i, "        return v;"]] for i in range(8)]
counter = [0]
def body_line():
    counter[0] += 1
    return "        x(%d);" % counter[0]
def write(ms, comment=""):
    out = ["package p;", "", "class Hot {"]
    for name, body in ms:
        out += ["", "    int %s() {" % name] + body + ["    }"]
    out += ["    // " + comment, "}"]
    open(path, "w").write("\n".join(out) + "\n")
def mutate(ms):
    op = rnd.choice(["edit", "edit", "insert", "delete", "move", "between", "new"])
    m = rnd.choice(ms)
    if op == "edit":
        m[1][rnd.randrange(len(m[1]))] = body_line()
    elif op == "insert":
        m[1].insert(rnd.randrange(len(m[1]) + 1), body_line())
    elif op == "delete" and len(m[1]) > 1:
        del m[1][rnd.randrange(len(m[1]))]
    elif op == "move":
        i = rnd.randrange(len(ms)); j = rnd.randrange(len(ms))
        ms.insert(j, ms.pop(i))
    elif op == "new":
        ms.append(["n%d" % counter[0], [body_line()]]); counter[0] += 1
    return "c%d" % counter[0] if op == "between" else None
main = [list(map(lambda x: [x[0], list(x[1])], methods))]
write(main[0])
git("add", "-A"); git("commit", "-q", "-m", "initial")
comment = ""
for c in range(60):
    if c == 20:
        git("tag", "good")
    if c % 12 == 5:
        # a side branch of two commits, merged back
        side = [[n, list(b)] for n, b in main[0]]
        git("checkout", "-q", "-b", "side%d" % c)
        for k in range(2):
            comment = mutate(side) or comment
            write(side, comment); git("commit", "-q", "--allow-empty", "-am", "side %d.%d" % (c, k))
        git("checkout", "-q", "main")
        comment = mutate(main[0]) or comment
        write(main[0], comment); git("commit", "-q", "--allow-empty", "-am", "main %d" % c)
        r = subprocess.run(["git", "-c", "user.name=r", "-c", "user.email=r@e", "merge", "-q", "--no-ff",
                            "-m", "merge %d" % c, "side%d" % c], cwd=repo,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode:
            # conflict: take ours and record the merge
            subprocess.run(["git", "checkout", "--ours", "."], cwd=repo, check=True)
            write(main[0], comment)
            git("add", "-A"); git("commit", "-q", "-m", "merge %d" % c)
        else:
            # re-read the merged text into the model: methods by name
            text = open(path).read().split("\n")
            ms, cur = [], None
            for line in text:
                if line.startswith("    int ") and line.endswith("() {"):
                    cur = [line[8:-4], []]; ms.append(cur)
                elif line == "    }":
                    cur = None
                elif cur is not None:
                    cur[1].append(line)
            main[0] = ms
        continue
    comment = mutate(main[0]) or comment
    write(main[0], comment)
    git("commit", "-q", "--allow-empty", "-am", "change %d" % c)
# An octopus merge (four parents) of branches that leave Hot.java alone.
for k in range(3):
    git("checkout", "-q", "-b", "oct%d" % k, "main")
    open(os.path.join(repo, "oct%d.txt" % k), "w").write("%d\n" % k)
    git("add", "-A"); git("commit", "-q", "-m", "octopus side %d" % k)
git("checkout", "-q", "main")
comment = mutate(main[0]) or comment
write(main[0], comment); git("commit", "-q", "--allow-empty", "-am", "before the octopus")
git("merge", "-q", "-m", "octopus", "oct0", "oct1", "oct2")
comment = mutate(main[0]) or comment
write(main[0], comment); git("commit", "-q", "--allow-empty", "-am", "after the octopus")
git("tag", "bad")
PY
rframes=()
while read -r name; do rframes+=(--frame "p/Hot.$name"); done < <(sed -n 's/^    int \(.*\)() {$/\1/p' src/main/java/p/Hot.java)
out="$tmp/rand.json"
"$FGBISECT" hotfiles --repo "$rand" --good good --bad bad --json "${rframes[@]}" >"$out" || {
	echo "FAIL: hotfiles on the random history exited $?"
	exit 1
}
check_against_git "$out"
[ "$checked" -ge 8 ] || fail "random history: only $checked methods checked"
[ "$(git rev-list --count --min-parents=4 bad)" = 1 ] || fail "random history: no octopus merge"
# With a commit-graph (git gc writes one) the walks read commits from it:
# the same answers.
git commit-graph write --reachable 2>/dev/null
[ -f .git/objects/info/commit-graph ] || fail "no commit-graph written"
"$FGBISECT" hotfiles --repo "$rand" --good good --bad bad --json "${rframes[@]}" >"$tmp/rand-graph.json"
cmp -s "$out" "$tmp/rand-graph.json" || fail "the commit-graph changes the answers"
# With its changed-path Bloom filters (--changed-paths) the walks skip
# the trees of commits a filter says did not touch the file: still the
# same answers, and git log -L's.
rm -f .git/objects/info/commit-graph
git commit-graph write --reachable --changed-paths 2>/dev/null
"$FGBISECT" hotfiles --repo "$rand" --good good --bad bad --json "${rframes[@]}" >"$tmp/rand-bloom.json"
cmp -s "$out" "$tmp/rand-bloom.json" || fail "the changed-path filters change the answers"
checked=0
check_against_git "$tmp/rand-bloom.json"
[ "$checked" -ge 8 ] || fail "random history with filters: only $checked methods checked"
[ "$(git rev-list --count --merges bad)" -ge 4 ] || fail "random history: too few merges"
# Packed as git gc or a clone leaves a repository (commits and trees read
# out of the pack by the walk itself, src/git/pack.h, deltas of deltas), and
# packed with deltas that name their bases by id (left to libgit2); no
# commit-graph, so every commit comes from the pack: the same answers.
rm -f .git/objects/info/commit-graph
for deltas in offset id; do
	git -c repack.useDeltaBaseOffset="$([ $deltas = offset ] && echo true || echo false)" repack -q -a -d -f
	git prune
	[ -z "$(find .git/objects -path '*/objects/[0-9a-f][0-9a-f]/*' -type f)" ] || fail "loose objects after repack"
	[ "$(git verify-pack -v .git/objects/pack/*.idx | awk 'NF == 7' | wc -l)" -ge 20 ] ||
		fail "packed ($deltas): too few deltas"
	"$FGBISECT" hotfiles --repo "$rand" --good good --bad bad --json "${rframes[@]}" >"$tmp/rand-pack.json"
	cmp -s "$tmp/rand.json" "$tmp/rand-pack.json" || fail "packed with $deltas deltas: other answers"
done

# 2b. Hot files that share directories (the walk answers a file below a
# directory another file found unchanged between the same two trees without
# a lookup): four classes in two packages of one module and one elsewhere,
# commits that touch one of them, a neighbour in the same package, another
# package or the root; every method of every class against git log -L,
# without a graph, with one and with changed-path filters.
shared="$tmp/shared"
git init -q -b main "$shared"
cd "$shared"
python3 - "$shared" <<'PY'
import os, random, sys
repo = sys.argv[1]
rnd = random.Random(int(os.environ.get("FG_METHOD_SEED", "14")) + 1)
hot = ["mod/src/p/A.java", "mod/src/p/B.java", "mod/src/q/C.java", "mod/src/p/D.java", "other/r/E.java"]
cold = ["mod/src/p/Cold.java", "mod/src/q/Cold.java", "mod/README", "README", "other/r/Cold.java"]
bodies = {f: [["        x(%d);" % k] for k in range(4)] for f in hot}
sys.path.insert(0, os.path.join(os.environ["FG_SOURCE_DIR"], "tests", "tools"))
from git_history import committer
git = committer(repo)
def put(path, text):
    os.makedirs(os.path.dirname(os.path.join(repo, path)) or repo, exist_ok=True)
    open(os.path.join(repo, path), "w").write(text)
def write(f):
    cls = os.path.basename(f)[:-5]
    pkg = os.path.dirname(f).split("/")[-1]
    out = ["package %s;" % pkg, "", "class %s {" % cls]
    for k, body in enumerate(bodies[f]):
        out += ["", "    int m%d() {" % k] + body + ["    }"]
    put(f, "\n".join(out + ["}"]) + "\n")
n = [0]
for f in hot:
    write(f)
for f in cold:
    put(f, "0\n")
git("add", "-A"); git("commit", "-q", "-m", "initial")
for c in range(160):
    if c == 80:
        git("tag", "good")
    n[0] += 1
    r = rnd.random()
    if r < 0.4:
        f = rnd.choice(hot)
        body = rnd.choice(bodies[f])
        if rnd.random() < 0.7:
            body[rnd.randrange(len(body))] = "        y(%d);" % n[0]
        else:
            body.insert(0, "        z(%d);" % n[0])
        write(f)
    else:
        put(rnd.choice(cold), "%d\n" % n[0])
    git("add", "-A"); git("commit", "-q", "-m", "change %d" % c)
git("tag", "bad")
PY
sframes=()
for cls in p/A p/B q/C p/D r/E; do
	for k in 0 1 2 3; do sframes+=(--frame "$cls.m$k"); done
done
for graph in none plain paths; do
	rm -f .git/objects/info/commit-graph
	case $graph in
	plain) git commit-graph write --reachable --no-changed-paths 2>/dev/null ;;
	paths) git commit-graph write --reachable --changed-paths 2>/dev/null ;;
	esac
	out="$tmp/shared-$graph.json"
	"$FGBISECT" hotfiles --repo "$shared" --good good --bad bad --json "${sframes[@]}" >"$out" ||
		fail "shared directories ($graph): hotfiles exited $?"
	checked=0
	check_against_git "$out"
	[ "$checked" = 20 ] || fail "shared directories ($graph): want 20 methods checked, not $checked"
	[ "$(jq '[.files[] | select(.method_changed_in_window)] | length' "$out")" -ge 5 ] ||
		fail "shared directories ($graph): too few methods changed in the window"
done
cmp -s "$tmp/shared-none.json" "$tmp/shared-paths.json" || fail "shared directories: the filters change the answers"

# 3. The profile forms: hotfiles BASE CANDIDATE and diff --repo take the top
# growers of day01 → day10 (ensureInOpenTransaction is one of them).
#   A: ensureInOpenTransaction's body changed    → the hot method changed;
#   B: only another method of its file changed   → the file, not the method.
prof="$tmp/prof"
git init -q -b main "$prof"
cd "$prof"
CF=zeebe/zb-db/src/main/java/$DB/TransactionalColumnFamily.java
PSM=zeebe/stream-platform/src/main/java/io/camunda/zeebe/stream/impl/ProcessingStateMachine.java
mkdir -p "$(dirname "$CF")" "$(dirname "$PSM")"
printf '%s\n' "package io.camunda.zeebe.db.impl.rocksdb.transaction;" "" "class TransactionalColumnFamily {" \
	"    void ensureInOpenTransaction(Runnable r) {" "        r.run();" "    }" "" \
	"    Object get(Object key) {" "        return key;" "    }" "}" >"$CF"
printf '%s\n' "package io.camunda.zeebe.stream.impl;" "" "class ProcessingStateMachine {" "    void run() {" "    }" "}" >"$PSM"
g add -A && commit -m "initial import"
g tag good
g checkout -q -b a
sed -i 's/        r.run();/        begin();\n        r.run();/' "$CF"
g add -A && commit -m "db: begin a transaction every time"
g tag badA
g checkout -q -b b good
sed -i 's/        return key;/        return key.toString();/' "$CF"
g add -A && commit -m "db: get returns the key's string"
g tag badB
# Day 1's three brokers against the candidate: with one profile a side the
# growers decide nothing (hotfiles_profiles.sh).
BASES=("$FG_SOURCE_DIR"/fixtures/day01-broker-{0,1,2}-grpc.collapsed.gz)
CAND="$FG_SOURCE_DIR/fixtures/day10-broker-0-grpc.collapsed.gz"
hot="$F.ensureInOpenTransaction"
# --top 1: ensureInOpenTransaction, the change the diff ranks first (the
# frames after it are methods this small file does not declare).
for form in hotfiles diff; do
	for side in A B; do
		if [ $form = hotfiles ]; then
			j=$("$FGBISECT" hotfiles --repo "$prof" --good good --bad bad$side --top 1 --json "${BASES[@]}" -- "$CAND")
		else
			j=$("$FGBISECT" diff --repo "$prof" --good good --bad bad$side --hot 1 --json "${BASES[@]}" -- "$CAND")
		fi
		want=$([ $side = A ] && echo "changed changed" || echo "changed unchanged")
		got=$(jq -r '.decision | "\(.kind) \(.method_kind)"' <<<"$j")
		[ "$got" = "$want" ] || fail "$form $side: decision $got, want $want"
		got=$(jq -r --arg f "$hot" '.decision.methods[] | select(.frame == $f) | .kind' <<<"$j")
		[ "$got" = "$([ $side = A ] && echo changed || echo unchanged)" ] || fail "$form $side: $hot is $got"
	done
done
txt=$("$FGBISECT" diff --repo "$prof" --good good --bad badB --hot 1 "${BASES[@]}" -- "$CAND")
grep -q "the file changed but not this method: look at the callers or the configuration" <<<"$txt" ||
	fail "diff text B: $txt"
want=$(git -C "$prof" log -1 --format=%H badA)
txt=$("$FGBISECT" hotfiles --repo "$prof" --good good --bad badA --top 1 "${BASES[@]}" -- "$CAND")
grep -q "the hot method changed in commit ${want:0:12} (+1 -0)" <<<"$txt" || fail "hotfiles text A: $txt"

if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS failure(s)"
	exit 1
fi
echo "ok ($checked random methods)"
