# share over many profiles reads them on several threads (--jobs): the
# answers and their order are those of one thread; profiles that fail are
# reported in the order given, with the others' answers, and the first of
# them gives the exit status.
source "$(dirname "$0")/../lib.sh"
FG_TMP_ERR=$(mktemp)
trap 'rm -f "$FG_TMP_ERR" "$FG_TMP_ERR".*' EXIT

# The project's own samples, 46 inputs (each several times, gzip and plain,
# collapsed files without their last newline for warnings, one missing
# file for an error in the middle): every byte of
# stdout and stderr, text and JSON, is the same on 1, 2 and 7 threads, the
# warnings included (in the order of the inputs, whichever thread read them).
FX=$FG_SOURCE_DIR/fixtures
mine=()
for i in 1 2 3 4 5; do
	zcat "$(ls "$FX"/day*.collapsed.gz | sed -n ${i}p)" | head -c -1 >"$FG_TMP_ERR.cut$i"
	mine+=("$FX"/*.collapsed.gz "$FG_TMP_ERR.cut$i" "$FX/tiny-3x.html")
	[[ $i == 3 ]] && mine+=("$FG_TMP_ERR.missing")
done
mine+=("$FX/zeebe-healthy.collapsed.gz")
for fmt in "" --json; do
	status=0
	"$FGBISECT" share $fmt -j 1 --frame TransactionalColumnFamily --frame Actor --frame nomatch "${mine[@]}" \
		>"$FG_TMP_ERR.out1" 2>"$FG_TMP_ERR.err1" || status=$?
	check_eq "own samples $fmt: exit status" "$status" 4
	for j in 2 7; do
		"$FGBISECT" share $fmt -j $j --frame TransactionalColumnFamily --frame Actor --frame nomatch "${mine[@]}" \
			>"$FG_TMP_ERR.out" 2>"$FG_TMP_ERR.err" || true
		CHECKS=$((CHECKS + 1))
		cmp -s "$FG_TMP_ERR.out1" "$FG_TMP_ERR.out" || fail "share $fmt -j $j: stdout differs from -j 1"
		CHECKS=$((CHECKS + 1))
		cmp -s "$FG_TMP_ERR.err1" "$FG_TMP_ERR.err" || fail "share $fmt -j $j: stderr differs from -j 1"
	done
done
check_eq "own samples: answers" "$(json_get 'len(j["profiles"])' <"$FG_TMP_ERR.out1")" "${#mine[@]}"
check_eq "own samples: warnings" "$(cat "$FG_TMP_ERR.err1")" "$(for i in 1 2 3 4 5; do
	echo "fgbisect: warning: $FG_TMP_ERR.cut$i: the last line has no newline: the file may be cut short"
done)
fgbisect: warning: pattern 'nomatch' matches no frame in any profile: is it mistyped?"
# Each answer is the one of that profile read alone.
for k in 0 8 17 45; do
	check_eq "own samples: profile $k alone" \
		"$(json_get "j['profiles'][$k]" <"$FG_TMP_ERR.out1")" \
		"$("$FGBISECT" share --json --frame TransactionalColumnFamily --frame Actor --frame nomatch "${mine[k]}" \
			2>/dev/null | json_get "j['profiles'][0]")"
done

# Real pages of ../shared when present, else the pages generated from the
# project's samples (FG_PAGES, tests/tools/make_pages.sh).
F=${FG_SHARED_FIXTURES:-}
if [[ -n $F && -d $F ]]; then
	profiles=("$F"/daily/*.html "$F"/daily/*.collapsed "$F"/versions/*.html "$F"/formats/g*.html)
else
	echo "SKIP (part): the shared fixtures are not at '$F': the generated pages instead of the real ones" >&2
	profiles=("$FG_PAGES"/*.html "$FG_PAGES"/*.collapsed)
fi
one=$("$FGBISECT" share --json -j 1 --frame TransactionalColumnFamily --frame Lambda "${profiles[@]}")
for j in 2 3 8; do
	check_eq "share -j $j" "$("$FGBISECT" share --json -j "$j" --frame TransactionalColumnFamily --frame Lambda "${profiles[@]}")" "$one"
done
check_eq "profiles read" "$(json_get 'len(j["profiles"])' <<<"$one")" "${#profiles[@]}"
check_eq "first of them" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$one")" \
	"$("$FGBISECT" share --json --frame TransactionalColumnFamily "${profiles[0]}" | json_get 'j["profiles"][0]["matches"][0]["samples"]')"

# The failing profiles are named in argument order, the others answered.
err=$("$FGBISECT" share -j 4 --frame X "${profiles[@]:0:3}" /nonexistent/a.html /nonexistent/b.html "${profiles[@]}" 2>&1 >/dev/null || true)
check_eq "errors in order" "$(grep -v ': warning: ' <<<"$err")" "fgbisect: /nonexistent/a.html: cannot open: No such file or directory
fgbisect: /nonexistent/b.html: cannot open: No such file or directory"
answers=$("$FGBISECT" share --json -j 4 --frame X "${profiles[@]:0:3}" /nonexistent/a.html "${profiles[@]}" 2>/dev/null || true)
want=$(printf 'P%.0s' "${profiles[@]:0:3}")E$(printf 'P%.0s' "${profiles[@]}")
check_eq "the others answered" "$(json_get '"".join("E" if "error" in p else "P" for p in j["profiles"])' <<<"$answers")" "$want"
check_eq "the error object" "$(json_get 'j["profiles"][3]["error"]["code"], j["profiles"][3]["error"]["source"]' <<<"$answers")" \
	"('fetch', '/nonexistent/a.html')"
status=0
"$FGBISECT" share -j 2 --frame X "${profiles[@]}" /nonexistent/a.html >/dev/null 2>&1 || status=$?
check_eq "exit status" "$status" 4
status=0
"$FGBISECT" share -j 0 --frame X "${profiles[0]}" >/dev/null 2>"$FG_TMP_ERR" || status=$?
check_eq "bad --jobs" "$status:$(head -1 "$FG_TMP_ERR")" "2:fgbisect share: --jobs wants a number (1-4096), not '0'"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
