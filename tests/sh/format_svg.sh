# SVG flame graphs read natively: flamegraph.pl's own SVG of the v4.5 healthy
# profile against its collapsed twin, and SVGs written here in the shapes of
# flamegraph.pl, inferno and async-profiler 1.x read back; what an SVG cannot
# carry (frames below --minwidth) is warned about; damaged SVGs are refused.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
W="$FG_SOURCE_DIR/tests/tools/write_svg.py"

if [[ -n "${FG_SHARED_FIXTURES:-}" && -d "$FG_SHARED_FIXTURES" ]]; then
	F=$FG_SHARED_FIXTURES
	out=$("$FGBISECT" share --json --frame TransactionalColumnFamily "$F/formats/flamegraph-pl.svg")
	check_eq "svg total" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" 5108
	check_eq "svg samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" 145
	check_eq "svg format" "$(json_get 'j["profiles"][0]["format"]' <<<"$out")" svg
	# The titles lose _[k]: compared without type suffixes.
	"$FGBISECT" collapse "$F/formats/flamegraph-pl.svg" 2>"$TMP/err" | canonical >"$TMP/a"
	canonical <"$F/versions/v4.5-healthy.collapsed" >"$TMP/b"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/a" "$TMP/b" || fail "flamegraph-pl.svg differs from its twin: $(diff "$TMP/a" "$TMP/b" | head -3)"
	check_eq "no warning for a graph whose samples are all drawn" "$(cat "$TMP/err")" ""
else
	echo "SKIP (part): the shared fixtures are not at '${FG_SHARED_FIXTURES:-}': flamegraph.pl's SVG not checked" >&2
fi

# Every writer's shape, from the project's own sample.
Z="$FG_SOURCE_DIR/fixtures/zeebe-healthy.collapsed.gz"
zcat "$Z" | canonical >"$TMP/want"
for style in "pl" "pl --icicle" "inferno" "ap1" "ap1 --icicle" "pl --width 20000"; do
	# shellcheck disable=SC2086
	python3 "$W" --style $style "$Z" "$TMP/s.svg"
	"$FGBISECT" collapse "$TMP/s.svg" | canonical >"$TMP/got"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/want" "$TMP/got" || fail "svg style '$style' differs: $(diff "$TMP/want" "$TMP/got" | head -3)"
done

# Names with XML entities, a count name and the title.
printf '%s\n' 'a<b>;x&y 3' 'a<b>;"q" 2' 'Grüße;日本 1' >"$TMP/esc.collapsed"
python3 "$W" --countname bytes --title 'Allocation & more' "$TMP/esc.collapsed" "$TMP/esc.svg"
check_eq "entities decoded" "$("$FGBISECT" collapse "$TMP/esc.svg" | tr '\n' '|')" 'Grüße;日本 1|a<b>;"q" 2|a<b>;x&y 3|'

# Samples narrower than 0.1 px: flamegraph.pl leaves their frames out, the
# total stays, and fgbisect says so.
python3 - "$TMP/narrow.collapsed" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("a;b 19000\n")
    for i in range(1000):
        f.write("a;c%d 1\n" % i)
PY
python3 "$W" "$TMP/narrow.collapsed" "$TMP/narrow.svg"
out=$("$FGBISECT" share --json --frame c1 "$TMP/narrow.svg" 2>"$TMP/err")
check_eq "narrow: total kept" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" 20000
check_eq "narrow: the undrawn frame is gone" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" 0
CHECKS=$((CHECKS + 1))
grep -q "narrower than 0.1 px" "$TMP/err" || fail "no warning about undrawn frames: $(cat "$TMP/err")"
check_eq "narrow: their samples are the caller's self" "$("$FGBISECT" collapse "$TMP/narrow.svg" 2>/dev/null | tr '\n' '|')" "a 1000|a;b 19000|"

# Damaged SVGs.
expect() {
	local what=$1 msg=$2 rc=0
	"$FGBISECT" share --frame a "$TMP/$what" >/dev/null 2>"$TMP/err" || rc=$?
	check_eq "$what: exit status ($(head -c 200 "$TMP/err"))" "$rc" 3
	CHECKS=$((CHECKS + 1))
	grep -qE -- "$msg" "$TMP/err" || fail "$what: stderr lacks '$msg': $(head -c 300 "$TMP/err")"
}
python3 "$W" "$Z" "$TMP/s.svg"
size=$(wc -c <"$TMP/s.svg")
for k in 1 2 3 4 5 6 7 8 9; do
	head -c $((size * k / 10)) "$TMP/s.svg" >"$TMP/cut$k.svg"
	expect "cut$k.svg" "truncated: the SVG ends before </svg>|truncated: the data ends in the middle of line [0-9]+|line [0-9]+: a frame (title that does not end on its line|rectangle without x, y and width)"
done
sed 's/(2 samples,/(two samples,/' "$TMP/s.svg" >"$TMP/title.svg"
expect title.svg "a frame title without '\(N samples, P%\)'"
sed -E '0,/\(1 samples,/s/\(1 samples,/(100000 samples,/' "$TMP/s.svg" >"$TMP/heavy.svg"
expect heavy.svg "the frames of the SVG do not add up"
printf '<svg version="1.1">\n<text>no frames</text>\n</svg>\n' >"$TMP/empty.svg"
expect empty.svg "an SVG without flame graph frames"
finish
