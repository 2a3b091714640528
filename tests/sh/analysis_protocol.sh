# ctest-labels: slow
# protocol: the verdict on every fixture against an independent grep of its
# stacks, the evidence against an independent count, dotted names, events,
# output forms and exit codes.  The project's fixtures run without ../shared;
# the shared ones are checked after them (skipped loudly when absent).
source "$(dirname "$0")/../lib.sh"
FX="$FG_SOURCE_DIR/fixtures"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

REST_RE='org/apache/coyote/|org/apache/catalina/|FrameworkServlet|BearerTokenAuthenticationFilter|org/springframework/security/web/FilterChainProxy'

# The verdict from the collapsed stacks, without fgbisect.
expected_protocol() {
	# grep -q would close the pipe early and fail it under pipefail.
	if zcat -f "$1" | grep -E "$REST_RE" >/dev/null; then echo rest
	elif zcat -f "$1" | grep 'io/grpc/' >/dev/null; then echo grpc
	else echo unknown; fi
}

# The evidence from the collapsed stacks, without fgbisect: marker frames of
# the verdict (REST markers; or io/grpc/ frames and the Netty event loops with
# io/grpc/ frames beneath them), samples of the stacks holding each (once per
# stack), most first, ties in byte order, five at most.
expected_evidence() {
	zcat -f "$1" | LC_ALL=C awk -v kind="$2" -v rest="$REST_RE" '
	{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); delete seen; grpc_below = 0
	  for (i = k; i >= 1; i--) {
		name = f[i]
		sub(/_\[[0-9a-z]\]$/, "", name) # annotated twins: the type is no part of the name
		if (name in seen) continue
		seen[name] = 1
		if (kind == "rest" && name ~ rest) c[name] += n
		if (kind == "grpc" && index(name, "io/grpc/")) { c[name] += n; grpc_below = 1 }
		if (kind == "grpc" && (index(name, "io/netty/channel/nio/NioEventLoop.run") || index(name, "SingleThreadIoEventLoop"))) {
			loop[name] += n
			if (grpc_below) serving[name] = 1
		}
	  } }
	END { for (l in serving) c[l] = loop[l]; for (x in c) print c[x] "\t" x }' |
		LC_ALL=C sort -t$'\t' -k1,1nr -k2,2 | sed -n 1,5p | cut -f2
}

check_profile() { # FILE [VERDICT]
	local want
	want=$(expected_protocol "$1")
	[[ -z "${2:-}" ]] || check_eq "$(basename "$1") expected verdict" "$want" "$2"
	local out
	out=$("$FGBISECT" protocol --json "$1")
	check_eq "$(basename "$1") protocol" "$(json_get 'j["profiles"][0]["protocol"]' <<<"$out")" "$want"
	if [[ $want != unknown ]]; then
		check_eq "$(basename "$1") evidence" "$(json_get '"\n".join(j["profiles"][0]["evidence"])' <<<"$out")" \
			"$(expected_evidence "$1" "$want")"
	else
		check_eq "$(basename "$1") no evidence" "$(json_get 'len(j["profiles"][0]["evidence"])' <<<"$out")" 0
	fi
}

# The project's own samples: every daily capture, by its name.
for f in "$FX"/day*-grpc.collapsed.gz; do check_profile "$f" grpc; done
for f in "$FX"/day*-rest.collapsed.gz; do check_profile "$f" rest; done
# The versions twins have no thread split and a gRPC gateway: io/grpc/ frames, no REST.
check_profile "$FX/zeebe-healthy.collapsed.gz" grpc
check_profile "$FX/zeebe-regressed.collapsed.gz" grpc
check_profile "$FX/tiny-3x.html" unknown

# Several profiles at once, JSON shape, the event (collapsed input has none).
out=$("$FGBISECT" protocol --json "$FX/day01-broker-0-rest.collapsed.gz" "$FX/day01-broker-0-grpc.collapsed.gz" "$FX/tiny-3x.html")
check_eq "json keys" "$(json_get 'sorted(j.keys()), sorted(j["profiles"][0].keys())' <<<"$out")" \
	"(['profiles'], ['event', 'evidence', 'protocol', 'source', 'title'])"
check_eq "json verdicts" "$(json_get '[p["protocol"] for p in j["profiles"]]' <<<"$out")" "['rest', 'grpc', 'unknown']"
check_eq "json sources" "$(json_get 'j["profiles"][2]["source"]' <<<"$out")" "$FX/tiny-3x.html"
check_eq "collapsed event" "$(json_get 'j["profiles"][0]["event"]' <<<"$out")" "None"
check_eq "evidence is REST" "$(json_get 'all(any(m in e for m in ("coyote","catalina","FrameworkServlet","BearerToken","FilterChainProxy")) for e in j["profiles"][0]["evidence"])' <<<"$out")" True
check_eq "unknown exits 0" "$(status "$FGBISECT" protocol "$FX/tiny-3x.html")" 0

# Text form: one line per profile, then its evidence indented.
out=$("$FGBISECT" protocol "$FX/day01-broker-0-rest.collapsed.gz" "$FX/tiny-3x.html")
check_eq "text first line" "$(head -1 <<<"$out")" "$FX/day01-broker-0-rest.collapsed.gz  rest  event unknown"
check_eq "text evidence" "$(sed -n 2p <<<"$out")" "  $(expected_evidence "$FX/day01-broker-0-rest.collapsed.gz" rest | sed -n 1p)"
check_eq "text unknown" "$(tail -1 <<<"$out")" "$FX/tiny-3x.html  unknown  event cpu  \"CPU profile\""

# Dotted names (async-profiler --dot): the same verdicts.
for p in grpc rest; do
	zcat "$FX/day01-broker-0-$p.collapsed.gz" | sed 's#/#.#g' >"$TMP/dotted-$p.collapsed"
	grep -q 'org/apache\|io/grpc/' "$TMP/dotted-$p.collapsed" && fail "dotted copy still slashed"
	check_eq "dotted $p" "$("$FGBISECT" protocol --json "$TMP/dotted-$p.collapsed" | json_get 'j["profiles"][0]["protocol"]')" "$p"
done
# Netty alone (Raft) is not gRPC.
zcat "$FX/day01-broker-0-grpc.collapsed.gz" | grep -v 'io/grpc/' >"$TMP/raft-only.collapsed"
grep -q 'NioEventLoop.run' "$TMP/raft-only.collapsed" || fail "the Raft-only copy lost its Netty loops"
check_eq "netty alone" "$("$FGBISECT" protocol --json "$TMP/raft-only.collapsed" | json_get 'j["profiles"][0]["protocol"]')" unknown

# Help and errors.
"$FGBISECT" protocol --help | grep '^usage: fgbisect protocol' >/dev/null || fail "protocol --help"
check_eq "no profile" "$(status "$FGBISECT" protocol)" 2
check_eq "bad option" "$(status "$FGBISECT" protocol --frobnicate "$FX/tiny-3x.html")" 2
printf 'just some text\n' >"$TMP/text.txt"
check_eq "not a profile" "$(status "$FGBISECT" protocol "$FX/tiny-3x.html" "$TMP/text.txt")" 3
out=$("$FGBISECT" protocol --json "$TMP/text.txt" 2>/dev/null || true)
check_eq "json error" "$(json_get 'j["error"]["source"]' <<<"$out")" "$TMP/text.txt"
check_eq "missing file" "$(status "$FGBISECT" protocol "$TMP/nope.html")" 4

# The shared fixtures: every HTML page and its collapsed twin.
if [[ -z "${FG_SHARED_FIXTURES:-}" || ! -d "$FG_SHARED_FIXTURES" ]]; then
	finish
	need_shared
fi
SH="$FG_SHARED_FIXTURES"
for f in "$SH"/daily/*-grpc.html; do check_eq "$(basename "$f")" "$("$FGBISECT" protocol --json "$f" | json_get 'j["profiles"][0]["protocol"], j["profiles"][0]["event"]')" "('grpc', 'cpu')"; done
for f in "$SH"/daily/*-rest.html; do check_eq "$(basename "$f")" "$("$FGBISECT" protocol --json "$f" | json_get 'j["profiles"][0]["protocol"], j["profiles"][0]["event"]')" "('rest', 'cpu')"; done
# HTML and its twin agree, verdict and evidence, everywhere (versions/: no
# thread split, a gRPC gateway in every one).
for f in "$SH"/daily/*.html "$SH"/versions/*.html; do
	twin=${f%.html}.collapsed
	want=grpc
	[[ $f == *-rest.html ]] && want=rest
	check_profile "$twin" "$want"
	check_eq "$(basename "$f") = twin" "$("$FGBISECT" protocol --json "$f" | json_get 'j["profiles"][0]["protocol"], j["profiles"][0]["evidence"]')" \
		"$("$FGBISECT" protocol --json "$twin" | json_get 'j["profiles"][0]["protocol"], j["profiles"][0]["evidence"]')"
done
# formats/: converter pages ("Flame Graph": no event), the escape set has no markers.
check_eq "g5 page" "$("$FGBISECT" protocol --json "$SH/formats/g5-v4.5-healthy.html" | json_get 'j["profiles"][0]["protocol"], j["profiles"][0]["event"]')" "('grpc', None)"
check_eq "escape page" "$("$FGBISECT" protocol --json "$SH/formats/escape-g5-v4.5.html" | json_get 'j["profiles"][0]["protocol"]')" unknown
check_profile "$SH/formats/jfr-v4.5-healthy.collapsed" grpc
finish
