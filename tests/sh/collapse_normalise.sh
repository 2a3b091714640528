#!/bin/bash
# collapse --normalise: stacks written with the names diff compares, so that
# peer tools line up two runs.  A difffolded.pl-style join (awk: the stacks
# present in both files) of day01 and day10 finds no common stack in the raw
# output (every stack carries its thread's tid=NNNN) and hundreds in the
# normalised one; the normalised files keep every sample and give, by plain
# awk, the same shares of the regressed frame as fgbisect diff.
source "$FG_SOURCE_DIR/tests/lib.sh"
F="$FG_SOURCE_DIR/fixtures"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TCF="io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction"

for d in day01 day10; do
	"$FGBISECT" collapse "$F/$d-broker-0-grpc.collapsed.gz" >"$T/$d.raw"
	"$FGBISECT" collapse --normalise "$F/$d-broker-0-grpc.collapsed.gz" >"$T/$d.norm"
done

# join A B: common stacks, and their samples in A and in B.
join_stacks() {
	awk 'FNR == NR { n = $NF; s = $0; sub(/ [0-9]+$/, "", s); a[s] = n; next }
		{ s = $0; sub(/ [0-9]+$/, "", s); if (s in a) { c++; sa += a[s]; sb += $NF } }
		END { printf "%d %d %d\n", c, sa, sb }' "$1" "$2"
}
check_eq "raw stacks never line up" "$(join_stacks "$T/day01.raw" "$T/day10.raw")" "0 0 0"
read -r common in01 in10 <<<"$(join_stacks "$T/day01.norm" "$T/day10.norm")"
echo "normalised: $common common stacks, $in01 of day01's samples, $in10 of day10's"
check_eq "normalised stacks line up" "$common $in01 $in10" "637 5046 5781"
# Most samples are on stacks both runs have (90% and 85%).
check_eq "most samples line up" "$(( in01 * 100 / 5616 >= 85 && in10 * 100 / 6775 >= 80 ))" 1

check_eq "no volatile id left" "$(grep -c -E 'tid=|\$\$Lambda\$[0-9]|\.0x[0-9a-f]|librocksdbjni[0-9]' "$T/day01.norm" "$T/day10.norm" | tr '\n' ' ')" \
	"$T/day01.norm:0 $T/day10.norm:0 "
check_eq "the thread frames keep their names" "$(grep -c '^\[zb-actors-0\];' "$T/day01.norm")" \
	"$(grep -c '^\[zb-actors-0 tid=[0-9]*\];' "$T/day01.raw")"
for d in day01 day10; do
	check_eq "$d: every sample kept" "$(truth "$T/$d.norm" x | cut -d' ' -f1)" \
		"$(truth "$F/$d-broker-0-grpc.collapsed.gz" x | cut -d' ' -f1)"
	# Stacks that normalise alike are merged: no stack twice.
	check_eq "$d: each stack once" "$(sed -E 's/ [0-9]+$//' "$T/$d.norm" | sort | uniq -d | wc -l)" 0
done

# The regressed frame's inclusive share by awk on the normalised files is
# the diff's (each stack counted once).
share() { truth "$1" "$TCF" | awk '{ printf "%.4f\n", 100 * $2 / $1 }'; }
"$FGBISECT" diff --json --min-delta 0 "$F/day01-broker-0-grpc.collapsed.gz" "$F/day10-broker-0-grpc.collapsed.gz" >"$T/d.json"
check_eq "base share as diff" "$(share "$T/day01.norm")" \
	"$(json_get '["%.4f" % e["base"] for e in j["grew"] if e["frame"] == "'"$TCF"'"][0]' <"$T/d.json")"
check_eq "candidate share as diff" "$(share "$T/day10.norm")" \
	"$(json_get '["%.4f" % e["candidate"] for e in j["grew"] if e["frame"] == "'"$TCF"'"][0]' <"$T/d.json")"

# Names that merge: two lambda instances and two tids become one stack.
printf '[w tid=1];io/x/A$$Lambda$12/0x0000000801234567.run 2\n[w tid=2];io/x/A$$Lambda$13/0x0000000801239abc.run 3\n' >"$T/m.collapsed"
check_eq "merged" "$("$FGBISECT" collapse --stable-names "$T/m.collapsed")" '[w];io/x/A$$Lambda.run 5'
check_eq "not merged without it" "$("$FGBISECT" collapse "$T/m.collapsed" | wc -l)" 2
check_eq "--help names it" "$("$FGBISECT" collapse --help | grep -c -- "-N, --normalise")" 1
finish
