# share over many profiles reads them on several threads (--jobs): the
# answers and their order are those of one thread; profiles that fail are
# reported in the order given, with the others' answers, and the first of
# them gives the exit status.
source "$(dirname "$0")/../lib.sh"
need_shared
F=$FG_SHARED_FIXTURES
FG_TMP_ERR=$(mktemp)
trap 'rm -f "$FG_TMP_ERR"' EXIT
profiles=("$F"/daily/*.html "$F"/daily/*.collapsed "$F"/versions/*.html "$F"/formats/g*.html)
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
