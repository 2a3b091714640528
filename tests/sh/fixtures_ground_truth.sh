# ctest-labels: slow
# Every real profile in ../shared/fixtures against its ground truth: the
# MANIFEST's numbers, and the collapsed twin holding the same samples.
source "$(dirname "$0")/../lib.sh"
need_shared
F=$FG_SHARED_FIXTURES
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The MANIFEST table: profile, total, TransactionalColumnFamily samples, share.
while read -r name total tcf pct; do
	for ext in html collapsed ann.collapsed; do
		out=$("$FGBISECT" share --json --frame TransactionalColumnFamily "$F/$name.$ext")
		check_eq "$name.$ext total" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" "$total"
		check_eq "$name.$ext samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" "$tcf"
		check_eq "$name.$ext share" "$(json_get '"%.2f" % j["profiles"][0]["matches"][0]["share"]' <<<"$out")" "$pct"
	done
	# Loading the HTML and its collapsed twin gives the same stacks.
	"$FGBISECT" collapse "$F/$name.html" | canonical >"$TMP/html"
	memo canonical_file "$F/$name.collapsed" >"$TMP/twin"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/html" "$TMP/twin" || fail "$name: collapse of the HTML differs from its twin: $(diff "$TMP/html" "$TMP/twin" | head -3)"
done <<'TABLE'
versions/v2.10-healthy 5578 130 2.33
versions/v2.10-regressed 5764 427 7.41
versions/v3.0-healthy 4924 125 2.54
versions/v3.0-regressed 5471 399 7.29
versions/v4.5-healthy 5108 145 2.84
versions/v4.5-regressed 5489 390 7.11
daily/day01-broker-0-grpc 5616 148 2.64
daily/day01-broker-0-rest 6389 162 2.54
daily/day01-broker-1-grpc 5714 139 2.43
daily/day01-broker-2-grpc 5504 127 2.31
daily/day10-broker-0-grpc 6775 445 6.57
daily/day10-broker-0-rest 6283 459 7.31
TABLE

# formats/: each encoding against its twin (twins.txt), and the share
# against the twin's own count.
while read -r html twin; do
	[[ -z "$html" || "$html" == \#* ]] && continue
	read -r total tcf < <(memo truth "$F/formats/$twin" TransactionalColumnFamily)
	out=$("$FGBISECT" share --json --frame TransactionalColumnFamily "$F/formats/$html" 2>/dev/null)
	check_eq "$html total" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" "$total"
	check_eq "$html samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" "$tcf"
	"$FGBISECT" collapse "$F/formats/$html" 2>/dev/null | canonical >"$TMP/html"
	memo canonical_file "$F/formats/$twin" >"$TMP/twin"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/html" "$TMP/twin" || fail "$html: collapse differs from $twin: $(diff "$TMP/html" "$TMP/twin" | head -3)"
done <"$F/formats/twins.txt"

# A --reverse graph read with --reversed gives the normal stacks back.
"$FGBISECT" collapse --reversed "$F/formats/g5-v4.5-healthy.reverse.html" | canonical >"$TMP/html"
memo canonical_file "$F/formats/v4.5-healthy.collapsed.gz" >"$TMP/twin"
CHECKS=$((CHECKS + 1))
cmp -s "$TMP/html" "$TMP/twin" || fail "reverse.html --reversed differs from the normal twin"
# ... and warns that an inverted graph may hold reversed stacks.
warn=$("$FGBISECT" share --frame x "$F/formats/g5-v4.5-healthy.inverted.html" 2>&1 >/dev/null || true)
CHECKS=$((CHECKS + 1))
[[ "$warn" == *"--reversed"* ]] || fail "no warning for an inverted graph: $warn"

# Self share: stacks whose leaf matches, from the twin.
self_truth=$(awk '{n=$NF; s=$0; sub(/ [0-9]+$/,"",s); k=split(s,a,";"); if (index(a[k],"TransactionalColumnFamily")) h+=n} END {print h+0}' "$F/versions/v4.5-healthy.collapsed")
out=$("$FGBISECT" share --self --json --frame TransactionalColumnFamily "$F/versions/v4.5-healthy.html")
check_eq "self samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" "$self_truth"

# top --raw: inclusive (each stack once per name) and self counts per name,
# from the twin, for the ten hottest names.
awk '{n=$NF; s=$0; sub(/ [0-9]+$/,"",s); gsub(/_\[[0-9a-z]\]/,"",s); k=split(s,a,";"); delete seen;
	for (i=1;i<=k;i++) if (!(a[i] in seen)) { seen[a[i]]=1; inc[a[i]]+=n }; self[a[k]]+=n}
	END {for (x in inc) printf "%s\t%d\t%d\n", x, inc[x], self[x]+0}' "$F/versions/v4.5-healthy.collapsed" |
	sort -t$'\t' -k2,2nr -k3,3nr | sed -n 1,10p >"$TMP/top-truth"
"$FGBISECT" top --raw --json -n 0 "$F/versions/v4.5-healthy.html" |
	python3 -c 'import json,sys; j=json.load(sys.stdin)
for f in j["frames"]: print("%s\t%d\t%d" % (f["frame"], f["samples"], f["self_samples"]))' >"$TMP/top-all"
while IFS=$'\t' read -r frame inc self; do
	got=$(awk -F'\t' -v f="$frame" '$1 == f {print $2 "\t" $3}' "$TMP/top-all")
	check_eq "top $frame" "$got" "$inc"$'\t'"$self"
done <"$TMP/top-truth"

# The large real profile (MANIFEST): 543,093 of 1,173,094 samples, 46.30%.
out=$("$FGBISECT" share --json --frame com/sun/tools/javac/comp/Attr. "$F/large/javac-large.html.gz")
check_eq "large total" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" 1173094
check_eq "large samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" 543093
check_eq "large share" "$(json_get '"%.2f" % j["profiles"][0]["matches"][0]["share"]' <<<"$out")" 46.30

finish
