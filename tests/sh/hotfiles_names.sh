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
check_eq "one of two resolved" "$(hot --frame Nope --frame TransactionalColumnFamily | jq -c '.decision.kind')" '"changed"'

# With profiles, --frame is share's pattern: matched against the profiles'
# frames, grouped by class and method, each group's shares and noise; the
# groups beyond noise decide.  Three nodes a side of 1,000 samples: the
# column family's ensureInOpenTransaction 20 → 60 samples each, its get
# 10 → 10, a grower elsewhere (Other.run 100 → 150).
repo2="$tmp/repo2"
git init -q -b main "$repo2"
cd "$repo2"
TCF=zeebe/db/src/main/java/io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.java
mkdir -p "$(dirname "$TCF")"
printf '%s\n' "package io.camunda.zeebe.db.impl.rocksdb.transaction;" "" "class TransactionalColumnFamily {" \
	"    void ensureInOpenTransaction(Runnable r) {" "        r.run();" "    }" "" \
	"    Object get(Object key) {" "        return key;" "    }" "}" >"$TCF"
g add -A && commit -m "import"
g tag good
sed -i 's/        r.run();/        begin();\n        r.run();/' "$TCF"
g add -A && commit -m "db: begin a transaction every time"
C2=$(git rev-parse HEAD)
cd "$tmp"
P=io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily
for n in 0 1 2; do
	printf 'main;%s.ensureInOpenTransaction;x 20\nmain;%s.get 10\nmain;x/y/Other.run 100\nmain;idle 870\n' "$P" "$P" |
		gzip >"$tmp/base-$n.collapsed.gz"
	printf 'main;%s.ensureInOpenTransaction;x 60\nmain;%s.get 10\nmain;x/y/Other.run 150\nmain;idle 780\n' "$P" "$P" |
		gzip >"$tmp/cand-$n.collapsed.gz"
done
prof() { "$FGBISECT" hotfiles --repo "$repo2" --good good "$@" "$tmp"/base-{0,1,2}.collapsed.gz -- "$tmp"/cand-{0,1,2}.collapsed.gz; }
out=$(prof --json --frame TransactionalColumnFamily)
# 90 of 3,000 → 210 of 3,000: noise sqrt(p(1-p)(1/3000+1/3000)), p 0.05 (no
# node spread: phi 1).
check_eq "pattern: shares and noise" "$(jq -c '.pattern | [.base, .candidate, .noise, .groups_matched]' <<<"$out")" \
	"[3,7,$(python3 -c 'import math; print(round(100*math.sqrt(0.05*0.95*2/3000), 4))'),2]"
check_eq "pattern: the groups, one beyond noise" \
	"$(jq -c '[.pattern.groups[] | [.frame, .base, .candidate, .weighed]]' <<<"$out")" \
	"[[\"$P.ensureInOpenTransaction\",2,6,true],[\"$P.get\",1,1,false]]"
check_eq "pattern: its file, the suspect, the method changed" \
	"$(jq -c '[.files[0].path, .decision.kind, [.decision.suspects[].commit], .decision.method_kind]' <<<"$out")" \
	"[\"$TCF\",\"changed\",[\"$C2\"],\"changed\"]"
txt=$(prof --frame TransactionalColumnFamily)
check_eq "pattern: headline" "$(grep -c '^TransactionalColumnFamily: base 3.00% → candidate 7.00% (+4.00 points ±1.10)$' <<<"$txt")" 1
# One profile a side: the pattern still decides, the growers are shown but
# not weighed (noise cannot be separated from signal); a pattern that did
# not change decides nothing, and the growers do not either.
one() { "$FGBISECT" hotfiles --repo "$repo2" --good good --json "$@" "$tmp/base-0.collapsed.gz" -- "$tmp/cand-0.collapsed.gz"; }
check_eq "one a side: the pattern decides" \
	"$(one --frame TransactionalColumnFamily | jq -c '[.separable, .decision.kind, ([.pattern.groups[] | select(.weighed)] | length)]')" \
	'[false,"changed",1]'
check_eq "one a side, pattern unchanged: no decision, and why" \
	"$(one --frame TransactionalColumnFamily.get | jq -c '[.separable, .decision, (.no_decision | startswith("one profile a side"))]')" \
	'[false,null,true]'
# A pattern that matches no frame: said so, and never the build files.
err=$(prof --frame TransactionalColumnFamiliy 2>&1 >/dev/null)
check_eq "pattern matching nothing: said" "$(grep -c "pattern 'TransactionalColumnFamiliy' matches no frame of the profiles" <<<"$err")" 1
check_eq "pattern matching nothing: the growers decide, never the build files" \
	"$(prof --json --frame TransactionalColumnFamiliy 2>/dev/null | jq -c '[.pattern.groups_matched, .decision.kind]')" '[0,"changed"]'
finish
