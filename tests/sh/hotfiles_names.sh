#!/usr/bin/env bash
# hotfiles --frame takes the names people type: a class without package, Class.method,
# a dotted or slashed class, resolved through the tree of --bad; a class two modules
# declare lists both files; a name that resolves to nothing says how to give it and
# decides nothing (never "look at the build files").
set -euo pipefail

source "$(dirname "$0")/../git_lib.sh"

repo="$tmp/repo"
git init -q -b main "$repo"
cd "$repo"
CF=zeebe/zb-db/src/main/java/io/camunda/zeebe/db/TransactionalColumnFamily.java
D1=a/src/main/java/x/y/Dup.java
D2=b/src/main/java/p/q/Dup.java
mkdir -p "$(dirname "$CF")" "$(dirname "$D1")" "$(dirname "$D2")"
printf '%s\n' "package io.camunda.zeebe.db;" "" "class TransactionalColumnFamily {" \
	"    void ensureInOpenTransaction(Runnable r) {" "        r.run();" "    }" "" \
	"    Object get(Object key) {" "        return key;" "    }" "}" >"$CF"
printf '%s\n' "package x.y;" "class Dup {}" >"$D1"
printf '%s\n' "package p.q;" "class Dup {}" >"$D2"
echo v1 >pom.xml
g add -A && commit -m "import"
g tag good
sed -i 's/        r.run();/        begin();\n        r.run();/' "$CF"
echo v2 >pom.xml
g add -A && commit -m "db: begin a transaction every time"
C=$(git rev-parse HEAD)

hot() { "$FGBISECT" hotfiles --repo "$repo" --good good --json "$@"; }
for name in TransactionalColumnFamily TransactionalColumnFamily.ensureInOpenTransaction \
	io.camunda.zeebe.db.TransactionalColumnFamily.ensureInOpenTransaction io/camunda/zeebe/db/TransactionalColumnFamily; do
	check_eq "$name: file, suspect" \
		"$(hot --frame "$name" | jq -c '[.files[].path, .decision.kind, [.decision.suspects[].commit]]')" \
		"[\"$CF\",\"changed\",[\"$C\"]]"
done
# Class.method finds the method, and whether it changed.
check_eq "Class.method: the method" \
	"$(hot --frame TransactionalColumnFamily.ensureInOpenTransaction | jq -c '.files[0].method | [.status, .lines, .last.commit]')" \
	"[\"found\",[[4,7]],\"$C\"]"
check_eq "Class.get: unchanged method" \
	"$(hot --frame TransactionalColumnFamily.get | jq -r '.decision.methods[0].kind')" unchanged
# Two modules declare Dup: both files, neither changed.
check_eq "ambiguous: every candidate" \
	"$(hot --frame Dup | jq -c '[([.files[].path] | sort), .files[0].candidates, .decision.kind]')" \
	"[[\"$D1\",\"$D2\"],2,\"unchanged\"]"
# Nothing resolves: no decision, the hint.
out=$(hot --frame TransactionalColumnFamiliy --frame ensureInOpenTransaction)
check_eq "unresolved: no decision, the hint" "$(jq -c '[.decision, .hint, [.files[].path]]' <<<"$out")" \
	'[null,"give the name as `top` prints it (package/Class.method)",[null,null]]'
txt=$("$FGBISECT" hotfiles --repo "$repo" --good good --frame TransactionalColumnFamiliy)
check_eq "unresolved: text" "$(grep -c '^  give the name as `top` prints it' <<<"$txt") $(grep -c '^decision' <<<"$txt")" "1 0"
# One resolved name is enough for a decision.
check_eq "one of two resolved" "$(hot --frame Nope --frame TransactionalColumnFamily | jq -r '.decision.kind')" changed
finish
