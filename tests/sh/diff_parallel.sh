# diff over several profiles reads them on several threads (--jobs), each
# into a part with its own names, added to the diff in argument order: every
# byte of stdout, stderr, the SVG and the report, and the exit status, are
# those of one thread, warnings and a failing input in the middle included.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The project's own samples (gzip; HTML; collapsed files cut before their
# last newline, which warn; a gRPC profile against REST ones, which --force
# reports as a warning).
FX=$FG_SOURCE_DIR/fixtures
day=("$FX"/day*.collapsed.gz)
for i in 1 2 3; do
	zcat "${day[i]}" | head -c -1 >"$T/cut$i.collapsed"
done
base=("${day[0]}" "$T/cut1.collapsed" "${day[2]}" "$FX/zeebe-healthy.collapsed.gz" "$T/cut2.collapsed" "${day[1]}")
cand=("${day[3]}" "$T/cut3.collapsed" "$FX/zeebe-regressed.collapsed.gz" "${day[4]}" "${day[5]}" "$FX/tiny-3x.html")

# same_bytes WHAT ARGS...: runs diff ARGS on 1, 2 and 7 threads; stdout,
# stderr, exit status and the files written (OUT.svg, OUT.html) must be the
# same bytes.  Leaves the one-thread run in $T/1.out (stdout), 1.err, 1.status
# and 1.files.
same_bytes() {
	local what=$1 j
	shift
	for j in 1 2 7; do
		rm -f "$T"/OUT.*
		local status=0
		"$FGBISECT" diff -j $j "$@" >"$T/$j.out" 2>"$T/$j.err" || status=$?
		echo "exit $status" >"$T/$j.status"
		cat "$T"/OUT.* >"$T/$j.files" 2>/dev/null || true
		[[ $j == 1 ]] && continue
		CHECKS=$((CHECKS + 1))
		cat "$T/1.out" "$T/1.status" "$T/1.files" >"$T/1.all"
		cat "$T/$j.out" "$T/$j.status" "$T/$j.files" | cmp -s "$T/1.all" - ||
			fail "$what -j $j: stdout, status or files differ from -j 1"
		CHECKS=$((CHECKS + 1))
		cmp -s "$T/1.err" "$T/$j.err" || fail "$what -j $j: stderr differs from -j 1"
	done
}

warnings="fgbisect: warning: $T/cut1.collapsed: the last line has no newline: the file may be cut short
fgbisect: warning: $T/cut2.collapsed: the last line has no newline: the file may be cut short"
for opts in "" --json --self "--raw --json" "--min-delta 0.2 --svg $T/OUT.svg" "--self --svg-base $T/OUT.svg" \
	"--html $T/OUT.html"; do
	# shellcheck disable=SC2086
	same_bytes "diff $opts" --force $opts "${base[@]}" -- "${cand[@]}"
	check_eq "diff $opts: exit status" "$(cat "$T/1.status")" "exit 0"
	check_eq "diff $opts: warnings" "$(grep -c ': warning: ' "$T/1.err")" 4
done
check_eq "the warnings in argument order" "$(head -3 "$T/1.err")" "$warnings
fgbisect: warning: $T/cut3.collapsed: the last line has no newline: the file may be cut short"
check_eq "the protocol warning last" "$(tail -1 "$T/1.err" | grep -c 'comparing anyway as --force asks')" 1
check_eq "the report was written" "$(grep -c '<svg' "$T/1.files")" 1
# Without the run-to-run term (sides of mixed runs): more frames listed to compare.
same_bytes "diff --json" --force --json --run-noise 0 "${base[@]}" -- "${cand[@]}"
check_eq "the pooled totals" "$(json_get 'j["base"]["total"], j["candidate"]["total"], len(j["grew"]) > 3' <"$T/1.out")" \
	"($(for side in base cand; do
		declare -n s=$side
		t=0
		for p in "${s[@]}"; do
			t=$((t + $("$FGBISECT" share --json --frame x "$p" 2>/dev/null | json_get 'j["profiles"][0]["total"]')))
		done
		echo -n "$t, "
	done)True)"

# A failing input in the middle: reading stops there, as with one thread:
# the warnings before it, then its error, and its exit status.
for opts in "" --json "--svg $T/OUT.svg"; do
	# shellcheck disable=SC2086
	same_bytes "diff $opts, a missing input" --force $opts "${base[@]}" -- "${cand[@]:0:2}" "$T/missing.html" "${cand[@]}"
	check_eq "diff $opts, a missing input: exit status" "$(cat "$T/1.status")" "exit 4"
done
check_eq "a missing input: stderr" "$(cat "$T/1.err")" "$warnings
fgbisect: warning: $T/cut3.collapsed: the last line has no newline: the file may be cut short
fgbisect: $T/missing.html: cannot open: No such file or directory"
printf 'a;b 3\nnot a stack\n' >"$T/bad.collapsed"
same_bytes "diff, a malformed input" "${base[@]:0:2}" "$T/bad.collapsed" "${base[@]}" -- "${cand[@]}"
check_eq "a malformed input: exit status" "$(cat "$T/1.status")" "exit 3"
check_eq "a malformed input: stderr" "$(cat "$T/1.err")" "fgbisect: warning: $T/cut1.collapsed: the last line has no newline: the file may be cut short
fgbisect: $T/bad.collapsed: line 2: not a collapsed stack (expected 'frame;frame;... COUNT')"
# A refusal (gRPC against REST without --force) comes after every profile is read.
same_bytes "diff, gRPC against REST" "${base[@]}" -- "${cand[@]}"
check_eq "gRPC against REST: exit status" "$(cat "$T/1.status")" "exit 2"
same_bytes "diff --peers" --peers --force "${base[@]}" "${cand[@]}"
check_eq "diff --peers: exit status" "$(cat "$T/1.status")" "exit 0"
status=0
"$FGBISECT" diff -j 0 "${day[0]}" "${day[1]}" >/dev/null 2>"$T/err" || status=$?
check_eq "bad --jobs" "$status:$(head -1 "$T/err")" "2:fgbisect diff: --jobs wants a number (1-4096), not '0'"

# Real pages of ../shared when present, else the pages generated from the
# project's samples (FG_PAGES, tests/tools/make_pages.sh).
F=${FG_SHARED_FIXTURES:-}
if [[ -n $F && -d $F ]]; then
	same_bytes "daily HTML, 3 against 3" --json "$F"/daily/day01-broker-{0,1,2}-grpc.html -- "$F"/daily/day10-broker-0-grpc.html \
		"$F"/daily/day01-broker-1-grpc.collapsed "$F"/versions/v3.0-healthy.html
	check_eq "daily HTML, 3 against 3: exit status" "$(cat "$T/1.status")" "exit 0"
	same_bytes "versions, --svg" --svg "$T/OUT.svg" "$F"/versions/*healthy.html -- "$F"/versions/*regressed.html
	check_eq "versions, --svg: exit status" "$(cat "$T/1.status")" "exit 0"
else
	echo "SKIP (part): the shared fixtures are not at '$F': the generated pages instead of the real ones" >&2
	P=$FG_PAGES
	same_bytes "generated HTML, 3 against 3" --json "$P"/day01-broker-{0,1,2}-grpc.html -- "$P"/day10-broker-0-grpc.html \
		"$P"/day01-broker-1-grpc.collapsed "$P"/zeebe-healthy-3.0.html
	check_eq "generated HTML, 3 against 3: exit status" "$(cat "$T/1.status")" "exit 0"
	same_bytes "generated, --svg" --svg "$T/OUT.svg" "$P"/zeebe-healthy*.html -- "$P"/zeebe-regressed.html "$P"/diff-4.5.html
	check_eq "generated, --svg: exit status" "$(cat "$T/1.status")" "exit 0"
fi

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
