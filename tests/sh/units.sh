# What a profile counts is carried to the output: the unit and the title in
# share, top, protocol and the diff header; a Wilson interval only for
# sample counts; diff and run mode refuse to mix units; one unreadable
# profile among several leaves the others answered.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
T="$FG_SOURCE_DIR/fixtures/tiny-3x.html"
sed 's|<h1>[^<]*</h1>|<h1>Allocation profile (bytes)</h1>|' "$T" >"$TMP/alloc.html"
sed 's|<h1>[^<]*</h1>|<h1>CPU profile (ns)</h1>|' "$T" >"$TMP/ns.html"
sed 's|<h1>[^<]*</h1>|<h1>Flame Graph</h1>|; s|^\tconst maxdiff = -1;|&\n\tconst units = '"'"'bytes'"'"';|' "$T" >"$TMP/units.html"

out=$("$FGBISECT" share --json -f upsert "$T")
check_eq "samples: unit" "$(json_get 'j["profiles"][0]["unit"]' <<<"$out")" samples
check_eq "samples: title" "$(json_get 'j["profiles"][0]["title"]' <<<"$out")" "CPU profile"
check_eq "samples: interval" "$(json_get '"%.2f %.2f" % tuple(j["profiles"][0]["matches"][0]["ci95"])' <<<"$out")" "23.07 88.24"
out=$("$FGBISECT" share --json -f upsert "$TMP/alloc.html")
check_eq "bytes: unit" "$(json_get 'j["profiles"][0]["unit"]' <<<"$out")" bytes
check_eq "bytes: event" "$(json_get 'j["profiles"][0]["event"]' <<<"$out")" alloc
check_eq "bytes: no interval" "$(json_get 'j["profiles"][0]["matches"][0]["ci95"]' <<<"$out")" None
check_eq "bytes: share" "$(json_get 'j["profiles"][0]["matches"][0]["share"]' <<<"$out")" 60.0
check_eq "units line" "$("$FGBISECT" share --json -f upsert "$TMP/units.html" | json_get 'j["profiles"][0]["unit"]')" bytes
check_eq "text: unit and title" "$("$FGBISECT" share -f upsert "$TMP/alloc.html" | head -1)" \
	"$TMP/alloc.html  html-3.x-4.x  5 bytes  event alloc  \"Allocation profile (bytes)\""
check_eq "text: no interval" "$("$FGBISECT" share -f upsert "$TMP/alloc.html" | tail -1 | tr -s ' ')" \
	" upsert 3 60.00% (bytes: no sample interval)"
check_eq "top: unit columns" "$("$FGBISECT" top "$TMP/ns.html" | sed -n 2p | tr -s ' ')" " incl% ns self% ns frame"
check_eq "protocol: title" "$("$FGBISECT" protocol "$TMP/alloc.html" | head -1)" "$TMP/alloc.html  unknown  event alloc  \"Allocation profile (bytes)\""

# diff: the same event in another unit is refused (2), --force compares.
rc=0
"$FGBISECT" diff "$T" "$TMP/ns.html" >/dev/null 2>"$TMP/err" || rc=$?
check_eq "diff samples vs ns: status" "$rc" 2
CHECKS=$((CHECKS + 1))
grep -q "counts samples but $TMP/ns.html counts ns" "$TMP/err" || fail "diff units: $(cat "$TMP/err")"
check_eq "diff --force" "$(status_=0; "$FGBISECT" diff --force "$T" "$TMP/ns.html" >/dev/null 2>&1 || status_=$?; echo $status_)" 0
check_eq "diff header: unit and title" "$("$FGBISECT" diff "$T" "$T" | head -1 | tr -s ' ')" \
	"base unknown cpu 5 samples $T \"CPU profile\""

# Run mode: a profile of nanoseconds has no sample interval to decide on.
rc=0
(cd "$TMP" && "$FGBISECT" run --frame upsert --threshold 4 --min-samples 1 --profile "$TMP/ns.html") >/dev/null 2>"$TMP/err" || rc=$?
CHECKS=$((CHECKS + 1))
grep -q "counts ns, not samples" "$TMP/err" || fail "run mode, ns profile: status $rc, $(cat "$TMP/err")"

finish
