# ctest-labels: slow
# Collapsed input is streamed stack by stack to share, top, subsystems and
# protocol (no tree): their answers must be those of the HTML twin, which is
# streamed frame by frame, on every real fixture with a twin; and a sorted or
# shuffled, plain or annotated collapsed file answers the same.
source "$(dirname "$0")/../lib.sh"
need_shared
F=$FG_SHARED_FIXTURES
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Every answer, without the fields that name the input or its format (the
# event and the title come from an HTML page), frames of equal counts in name order (top
# breaks ties by name id, and ids follow the order names first appear).
answers() {
	{
		"$FGBISECT" share --json --frame TransactionalColumnFamily --frame Lambda --frame run "$1"
		"$FGBISECT" share --json --self --frame TransactionalColumnFamily --frame / --frame run "$1"
		"$FGBISECT" top --json -n 0 "$1"
		"$FGBISECT" top --json -n 0 --raw "$1"
		"$FGBISECT" subsystems --json "$1"
		"$FGBISECT" protocol --json "$1"
	} | jq -S 'del(.source, .profiles[]?.source, .profiles[]?.format, .profiles[]?.gzip, .profiles[]?.event, .event,
		.title, .profiles[]?.title)
		| if .frames then .frames |= sort_by(-.samples, -.self_samples, .frame) else . end'
}

compare() { # WHAT PROFILE TWIN
	answers "$2" >"$TMP/a"
	answers "$3" >"$TMP/b"
	CHECKS=$((CHECKS + 1))
	[[ -s "$TMP/a" ]] || fail "$1: no answers for $2"
	cmp -s "$TMP/a" "$TMP/b" || fail "$1: the answers differ between $2 and $3: $(diff "$TMP/a" "$TMP/b" | head -4)"
}

for name in versions/v2.10-healthy versions/v2.10-regressed versions/v3.0-healthy versions/v3.0-regressed \
	versions/v4.5-healthy versions/v4.5-regressed daily/day01-broker-0-grpc daily/day01-broker-0-rest \
	daily/day01-broker-1-grpc daily/day01-broker-2-grpc daily/day10-broker-0-grpc daily/day10-broker-0-rest; do
	compare "$name" "$F/$name.html" "$F/$name.collapsed"
	[[ $name == versions/* ]] && compare "$name (annotated)" "$F/$name.html" "$F/$name.ann.collapsed"
done
while read -r html twin; do
	[[ -z "$html" || "$html" == \#* || "$html" == *reverse* ]] && continue
	compare "formats/$html" "$F/formats/$html" "$F/formats/$twin"
done <"$F/formats/twins.txt"

# Line order does not matter: shuffled and repeated stacks (each line split
# in two halves of its count) answer as the sorted file.
awk '{n=$NF; s=$0; sub(/ [0-9]+$/,"",s); print s, int(n/2); print s, n-int(n/2)}' \
	"$F/daily/day10-broker-0-grpc.collapsed" | sort -R --random-source=<(yes) >"$TMP/shuffled.collapsed"
compare "shuffled" "$F/daily/day10-broker-0-grpc.html" "$TMP/shuffled.collapsed"

# collapse --unsorted streams the stacks without a tree: summed by stack, the
# same lines as the sorted output, from HTML (every generation) and collapsed
# input alike.
summed() { awk '{n=$NF; s=$0; sub(/ [0-9]+$/,"",s); c[s]+=n} END {for (k in c) print k, c[k]}' | LC_ALL=C sort; }
for p in "$F"/versions/*.html "$F"/formats/escape-g*.html "$F"/daily/day10-broker-0-rest.collapsed "$TMP/shuffled.collapsed"; do
	for a in "" --annotate; do
		# shellcheck disable=SC2086
		"$FGBISECT" collapse $a "$p" | LC_ALL=C sort >"$TMP/sorted"
		# shellcheck disable=SC2086
		"$FGBISECT" collapse --unsorted $a "$p" | summed >"$TMP/unsorted"
		CHECKS=$((CHECKS + 1))
		[[ -s "$TMP/sorted" ]] || fail "collapse $a $p: no output"
		cmp -s "$TMP/sorted" "$TMP/unsorted" || fail "collapse --unsorted $a $p differs: $(diff "$TMP/sorted" "$TMP/unsorted" | head -4)"
	done
done
head -c 20000 "$F/versions/v4.5-healthy.html" >"$TMP/cut.html"
status=0
"$FGBISECT" collapse --unsorted "$TMP/cut.html" >/dev/null 2>&1 || status=$?
check_eq "collapse --unsorted of a cut page" "$status" 3

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
