# ctest-labels: slow
# subsystems: exact attribution against an independent computation over
# collapsed stacks (awk: the first rule of the rules file with a pattern in
# any frame of the stack), sums, REST vs gRPC, processing growth, -v, the
# rules file lookup and its errors.  The project's fixtures run without
# ../shared; the shared ones are checked after them.
source "$(dirname "$0")/../lib.sh"
FX="$FG_SOURCE_DIR/fixtures"
RULES="$FG_SOURCE_DIR/contrib/zeebe.rules"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset FGBISECT_RULES

# "name samples" lines, rules order then other, then "total N", without
# fgbisect.  A collapsed line's count is the self time of the node its stack
# ends at, so "first rule matching any frame of the node's path" is "first
# rule with a pattern in the line's stack" (no pattern holds a ';').
# Optional third argument: only stacks holding that substring.
awk_subsystems() { # COLLAPSED RULES [ONLY]
	zcat -f "$1" | awk -v rules="$2" -v only="${3:-}" '
	BEGIN { nr = 0
		while ((getline line < rules) > 0) {
			sub(/^[ \t]+/, "", line)
			if (line ~ /^subsystem[ \t]/) { split(line, w, /[ \t]+/); name[++nr] = w[2]; np[nr] = 0 }
			else if (line ~ /^pattern[ \t]/) { sub(/^pattern[ \t]+/, "", line); sub(/[ \t\r]+$/, "", line); pat[nr, ++np[nr]] = line }
		} }
	{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
	  if (only != "" && !index(s, only)) next
	  t += n; r = "other"
	  # Dotted Java frames (a v2.x receiver class "io.atomix.raft.X$$Lambda…")
	  # are also tried slashed: their lowercase package dots become slashes.
	  k = split(s, f, ";"); slashed = ""
	  for (i = 1; i <= k; i++) {
		if (match(f[i], /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\.([a-z][a-z0-9_]*\.)*[A-Z$]/)) {
			pkg = substr(f[i], 1, RLENGTH - 1); gsub(/\./, "/", pkg); f[i] = pkg substr(f[i], RLENGTH)
		}
		slashed = slashed (i > 1 ? ";" : "") f[i]
	  }
	  for (i = 1; i <= nr && r == "other"; i++)
		for (j = 1; j <= np[i]; j++)
			if (index(s, pat[i, j]) || index(slashed, pat[i, j])) { r = name[i]; break }
	  c[r] += n }
	END { for (i = 1; i <= nr; i++) print name[i], c[name[i]] + 0; print "other", c["other"] + 0; print "total", t + 0 }'
}

# The same lines from fgbisect's JSON.
fg_subsystems() { # PROFILE [ARGS...]
	"$FGBISECT" subsystems --json "$@" | json_get '"\n".join(["%s %d" % (s["name"], s["samples"]) for s in j["subsystems"]] + ["total %d" % j["total"]])'
}

# Samples add up to the total, printed shares to exactly 100.00.
check_sums() { # PROFILE
	local out
	out=$("$FGBISECT" subsystems --json "$1")
	check_eq "$(basename "$1") sum" "$(json_get 'sum(s["samples"] for s in j["subsystems"]) == j["total"] > 0' <<<"$out")" True
	check_eq "$(basename "$1") 100%" "$(json_get 'sum(round(s["share"] * 100) for s in j["subsystems"])' <<<"$out")" 10000
	check_eq "$(basename "$1") shares" "$(json_get 'all(abs(s["share"] - 100.0 * s["samples"] / j["total"]) < 0.01 for s in j["subsystems"])' <<<"$out")" True
}

share_of() { # PROFILE SUBSYSTEM
	"$FGBISECT" subsystems --json "$1" | json_get "[s['share'] for s in j['subsystems'] if s['name'] == '$2'][0]"
}

# Exact attribution on the project's samples (the default rules: the source tree's).
for f in "$FX"/*.collapsed.gz; do
	check_eq "$(basename "$f") exact" "$(fg_subsystems "$f")" "$(memo awk_subsystems "$f" "$RULES")"
	check_sums "$f"
done
check_sums "$FX/tiny-3x.html"

# processing owns the state access beneath it and grows from day 1 to day 10.
p1=$(share_of "$FX/day01-broker-0-grpc.collapsed.gz" processing)
p10=$(share_of "$FX/day10-broker-0-grpc.collapsed.gz" processing)
check_eq "processing grows ($p1% -> $p10%)" "$(python3 -c "print($p10 > $p1 + 2)")" True
# ... and the regressed TransactionalColumnFamily work is processing's, not rocksdb-state's.
tcf=$(memo awk_subsystems "$FX/day10-broker-0-grpc.collapsed.gz" "$RULES" TransactionalColumnFamily | awk '$1 == "processing" {print $2}')
read -r _ tcf_all < <(truth "$FX/day10-broker-0-grpc.collapsed.gz" TransactionalColumnFamily)
check_eq "TCF under processing" "$(python3 -c "print($tcf > 0.9 * $tcf_all)")" True

# REST request stacks land in rest, not grpc: the expected count is that of
# stacks holding a REST pattern and no pattern of a rule before rest.
for f in "$FX"/day*-rest.collapsed.gz; do
	rest_expected=$(zcat "$f" | awk -v rules="$RULES" '
	BEGIN { while ((getline line < rules) > 0) {
			sub(/^[ \t]+/, "", line)
			if (line ~ /^subsystem[ \t]/) { split(line, w, /[ \t]+/); cur = w[2]; if (cur == "rest") seen_rest = 1 }
			else if (line ~ /^pattern[ \t]/) { sub(/^pattern[ \t]+/, "", line)
				if (cur == "rest") restp[++nrest] = line; else if (!seen_rest) higher[++nhigh] = line } } }
	{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); r = 0
	  for (i = 1; i <= nrest; i++) if (index(s, restp[i])) r = 1
	  for (i = 1; r && i <= nhigh; i++) if (index(s, higher[i])) r = 0
	  if (r) h += n }
	END { print h + 0 }')
	read -r _ coyote < <(truth "$f" org/apache/coyote/)
	out=$("$FGBISECT" subsystems --json "$f")
	check_eq "$(basename "$f") rest" "$(json_get '[s["samples"] for s in j["subsystems"] if s["name"] == "rest"][0]' <<<"$out")" "$rest_expected"
	check_eq "$(basename "$f") no grpc" "$(json_get '[s["samples"] for s in j["subsystems"] if s["name"] == "grpc"][0]' <<<"$out")" 0
	# Most coyote samples are REST's (the rest went to processing & co. beneath).
	check_eq "$(basename "$f") coyote is rest ($rest_expected of $coyote)" "$(python3 -c "print($rest_expected > 0.5 * $coyote)")" True
done

# Text form: rules order, other last, shares adding up to 100.00.
out=$("$FGBISECT" subsystems "$FX/day01-broker-0-grpc.collapsed.gz")
check_eq "text lines" "$(wc -l <<<"$out")" 13
check_eq "text header" "$(sed -n 2p <<<"$out" | tr -s ' ')" "subsystem samples share"
check_eq "text order" "$(tail -n +3 <<<"$out" | awk '{printf "%s ", $1}')" "gc replay processing exporter rocksdb-state journal-flush rest grpc gateway raft-netty other "
check_eq "text 100%" "$(tail -n +3 <<<"$out" | awk '{sub(/%/, "", $3); s += $3 * 100} END {printf "%d", s + 0.5}')" 10000

# -v: five frames at most per subsystem, most first, within the subsystem.
out=$("$FGBISECT" subsystems -v --json "$FX/day10-broker-0-rest.collapsed.gz")
check_eq "-v frames" "$(json_get 'all(len(s["frames"]) <= 5 and sum(f["samples"] for f in s["frames"]) <= s["samples"] and [f["samples"] for f in s["frames"]] == sorted([f["samples"] for f in s["frames"]], reverse=True) and (len(s["frames"]) > 0) == (s["samples"] > 0) for s in j["subsystems"])' <<<"$out")" True
check_eq "-v rest frame" "$(json_get '"org/apache/tomcat/util/net/NioEndpoint.runPoller" in [f["frame"] for s in j["subsystems"] if s["name"] == "rest" for f in s["frames"]]' <<<"$out")" True
out=$("$FGBISECT" subsystems -v "$FX/day10-broker-0-rest.collapsed.gz")
grep -qE '^    +[0-9]+ +[0-9.]+%  ' <<<"$out" || fail "-v text: $out"
# Without -v there are no frames.
check_eq "no frames" "$("$FGBISECT" subsystems --json "$FX/tiny-3x.html" | json_get '"frames" in j["subsystems"][0]')" False

# Rules from --rules, from $FGBISECT_RULES; --rules wins.
printf '# two rules\nsubsystem state\n\tpattern TransactionalColumnFamily\nsubsystem actors scope=stack\n\tpattern ActorThread\n' >"$TMP/my.rules"
check_eq "--rules" "$(fg_subsystems "$FX/zeebe-regressed.collapsed.gz" --rules "$TMP/my.rules")" "$(awk_subsystems "$FX/zeebe-regressed.collapsed.gz" "$TMP/my.rules")"
check_eq "env rules" "$(FGBISECT_RULES="$TMP/my.rules" fg_subsystems "$FX/tiny-3x.html" | cut -d' ' -f1 | tr '\n' ' ')" "state actors other total "
out=$(FGBISECT_RULES=/nonexistent fg_subsystems "$FX/tiny-3x.html" --rules "$TMP/my.rules")
check_eq "--rules wins" "${out%%$'\n'*}" "state 4"

# Rules errors: "FILE:LINE: problem", exit 2, also as JSON.
printf 'subsystem a\n\tpattern x\n\tpatern y\n' >"$TMP/bad.rules"
check_eq "bad rules status" "$(status "$FGBISECT" subsystems --rules "$TMP/bad.rules" "$FX/tiny-3x.html")" 2
err=$("$FGBISECT" subsystems --rules "$TMP/bad.rules" "$FX/tiny-3x.html" 2>&1 >/dev/null || true)
check_eq "bad rules message" "$err" "fgbisect: $TMP/bad.rules:3: unknown keyword 'patern' (expected 'subsystem' or 'pattern')"
printf 'subsystem a\nsubsystem b\n\tpattern y\n' >"$TMP/empty.rules"
err=$("$FGBISECT" subsystems --rules "$TMP/empty.rules" "$FX/tiny-3x.html" 2>&1 >/dev/null || true)
check_eq "empty rule message" "$err" "fgbisect: $TMP/empty.rules:1: subsystem 'a' has no pattern"
out=$("$FGBISECT" subsystems --json --rules "$TMP/bad.rules" "$FX/tiny-3x.html" 2>/dev/null || true)
check_eq "bad rules json" "$(json_get 'j["error"]["code"], j["error"]["source"]' <<<"$out")" "('usage', '$TMP/bad.rules:3')"
check_eq "missing rules status" "$(status "$FGBISECT" subsystems --rules "$TMP/nope.rules" "$FX/tiny-3x.html")" 4
err=$("$FGBISECT" subsystems --rules "$TMP/nope.rules" "$FX/tiny-3x.html" 2>&1 >/dev/null || true)
check_eq "missing rules message" "$err" "fgbisect: $TMP/nope.rules: cannot read the rules file: No such file or directory"
check_eq "missing env rules" "$(FGBISECT_RULES="$TMP/nope.rules" status "$FGBISECT" subsystems "$FX/tiny-3x.html")" 4

# Help and usage errors.
"$FGBISECT" subsystems --help | grep '^usage: fgbisect subsystems' >/dev/null || fail "subsystems --help"
check_eq "no profile" "$(status "$FGBISECT" subsystems)" 2
check_eq "two profiles pooled" "$(status "$FGBISECT" subsystems "$FX/tiny-3x.html" "$FX/tiny-3x.html")" 0
check_eq "missing profile" "$(status "$FGBISECT" subsystems "$TMP/nope.html")" 4

# BASE... -- CANDIDATE...: the split's change with its noise.  The per-profile
# counts come from awk (above), the statistics from python, written from
# the rule (docs/subsystems.md), not from the C: pooled shares, Pearson's
# chi-square of each side's profiles, the common phi (sum of chi-square over
# sum of df), each subsystem's phi shrunk toward it with 4 df, the noise
# sqrt(phi p (1-p) (1/Nb + 1/Nc)), Bonferroni over the subsystems with
# samples at 5%, and the 0.25-point floor.
compare_truth() { # RULES NBASE PROFILE...
	local rules=$1 nbase=$2
	shift 2
	for f in "$@"; do awk_subsystems "$f" "$rules" | tr '\n' ' '; echo; done | python3 -c '
import math, sys
nbase = int(sys.argv[1])
profiles = []
for line in sys.stdin:
    w = line.split()
    profiles.append(({w[i]: int(w[i + 1]) for i in range(0, len(w) - 2, 2)}, int(w[-1])))
names = list(profiles[0][0])
sides = [profiles[:nbase], profiles[nbase:]]
def disp(side, name):
    K = sum(c[name] for c, _ in side); N = sum(t for _, t in side)
    if len(side) < 2 or not 0 < K < N: return 0.0, 0
    p = K / N
    return sum((c[name] - t * p) ** 2 / (t * p * (1 - p)) for c, t in side), len(side) - 1
chi = {n: [disp(s, n) for s in sides] for n in names}
chi_all = sum(a[0] + b[0] for a, b in chi.values()); df_all = sum(a[1] + b[1] for a, b in chi.values())
phi0 = max(1.0, chi_all / df_all) if df_all else 1.0
tested = sum(1 for n in names if any(c[n] for c, _ in profiles))
Nb, Nc = (sum(t for _, t in s) for s in sides)
out = ["df %d tested %d" % (df_all, tested)]
for n in names:
    b = sum(c[n] for c, _ in sides[0]); c_ = sum(c[n] for c, _ in sides[1])
    phi = max(1.0, (chi[n][0][0] + chi[n][1][0] + 4 * phi0) / (chi[n][0][1] + chi[n][1][1] + 4)) if df_all else 1.0
    p = (b + c_) / (Nb + Nc)
    noise = 100 * math.sqrt(phi * p * (1 - p) * (1 / Nb + 1 / Nc))
    delta = 100 * c_ / Nc - 100 * b / Nb
    z = delta / noise if noise > 0 else 0.0
    pv = min(1.0, tested * math.erfc(abs(z) / math.sqrt(2))) if noise > 0 else 1.0
    out.append("%s %d %d %.4f %.4f %.3f %s" % (n, b, c_, delta, noise, z, pv <= 0.05 and abs(delta) >= 0.25))
print(" | ".join(out))' "$nbase"
}
compare_fg() { # NBASE PROFILE... (the rules: $RULES)
	local nbase=$1
	shift
	"$FGBISECT" subsystems --json --rules "$RULES" "${@:1:nbase}" -- "${@:nbase+1}" | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(" | ".join(["df %d tested %d" % (j["node_df"], j["tested"])] + ["%s %d %d %.4f %.4f %.3f %s" % (
    e["name"], e["base_samples"], e["candidate_samples"], e["delta"], e["noise"], e["z"], e["beyond_noise"])
    for e in j["subsystems"]]))'
}
D01=("$FX"/day01-broker-{0,1,2}-grpc.collapsed.gz)
D10="$FX/day10-broker-0-grpc.collapsed.gz"
check_eq "day01 x3 -> day10: the change and its noise" "$(compare_fg 3 "${D01[@]}" "$D10")" \
	"$(memo compare_truth "$RULES" 3 "${D01[@]}" "$D10")"
check_eq "day01 brokers 0,1 -> 2: the change and its noise" "$(compare_fg 2 "${D01[@]}")" \
	"$(memo compare_truth "$RULES" 2 "${D01[@]}")"
check_eq "one profile a side" "$(compare_fg 1 "${D01[0]}" "$D10")" "$(memo compare_truth "$RULES" 1 "${D01[0]}" "$D10")"
# The figures a reader checks by eye (the truth above gives the rest):
# processing 35.13% -> 38.60%, +3.47 +- 0.78, z +4.4, beyond noise; exporter
# -2.57, z -4.2; between day01's own brokers nothing is beyond noise.
out=$("$FGBISECT" subsystems --rules "$RULES" "${D01[@]}" -- "$D10")
check_eq "text: processing" "$(grep '^processing ' <<<"$out" | tr -s ' ')" "processing 35.13% 38.60% +3.47 0.78 +4.4 beyond noise"
check_eq "text: exporter" "$(grep '^exporter ' <<<"$out" | tr -s ' ')" "exporter 22.19% 19.62% -2.57 0.61 -4.2 beyond noise"
check_eq "day01 against itself: nothing beyond noise" \
	"$("$FGBISECT" subsystems --rules "$RULES" "${D01[@]:0:2}" -- "${D01[2]}" | grep -c 'beyond noise$' || true)" 0
check_eq "one profile a side said" \
	"$("$FGBISECT" subsystems --rules "$RULES" "${D01[0]}" -- "$D10" | grep -c 'one profile a side: no node spread')" 1
check_eq "a side without a profile" "$(status "$FGBISECT" subsystems "${D01[0]}" --)" 2
check_eq "-v with two sides" "$(status "$FGBISECT" subsystems -v "${D01[0]}" -- "$D10")" 2
check_eq "gRPC against REST refused" "$(status "$FGBISECT" subsystems "${D01[0]}" -- "$FX/day01-broker-0-rest.collapsed.gz")" 2

# The shared fixtures: every HTML page against its collapsed twin, exactly.
if [[ -z "${FG_SHARED_FIXTURES:-}" || ! -d "$FG_SHARED_FIXTURES" ]]; then
	finish
	need_shared
fi
SH="$FG_SHARED_FIXTURES"
for f in "$SH"/daily/*.html "$SH"/versions/*.html "$SH"/formats/jfr-v4.5-healthy.html; do
	twin=${f%.html}.collapsed
	check_eq "$(basename "$f") exact" "$(fg_subsystems "$f")" "$(memo awk_subsystems "$twin" "$RULES")"
	check_sums "$f"
done
for f in "$SH"/formats/*.html; do check_sums "$f"; done
check_eq "shared processing grows" "$(python3 -c "print($(share_of "$SH/daily/day10-broker-0-grpc.html" processing) > $(share_of "$SH/daily/day01-broker-0-grpc.html" processing))")" True
finish
