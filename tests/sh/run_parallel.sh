# Run mode reads a build's profiles on several threads (--jobs), each with
# names and analyses of its own, and takes them into the verdict in the
# runs file's order: every byte of stdout and stderr, text and JSON, and the
# exit status are those of one thread, for a build that is judged and for
# builds with a profile in the middle that is left out (missing, malformed,
# another protocol) and named.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP" XDG_CACHE_HOME="$TMP/cache"
unset FGBISECT_RUNS
git init -q -b main "$TMP/repo"
cd "$TMP/repo"
echo 1 >f
git add f
GIT_AUTHOR_DATE=2026-11-01T12:00:00Z GIT_COMMITTER_DATE=2026-11-01T12:00:00Z \
	git -c user.name=t -c user.email=t@e commit -q -m one
head=$(git rev-parse HEAD)

FX=$FG_SOURCE_DIR/fixtures
day=("$FX"/day*-grpc.collapsed.gz)
zcat "${day[1]}" | head -c -1 >"$TMP/cut.collapsed"
printf 'a;b 3\nnot a stack\n' >"$TMP/bad.collapsed"
printf 'a;b 3 5\n' >"$TMP/two-columns.collapsed"
profiles=("${day[@]}" "$TMP/cut.collapsed" "$FX/zeebe-healthy.collapsed.gz" "${day[@]}" "$FX/zeebe-regressed.collapsed.gz")
if [[ -n "${FG_SHARED_FIXTURES:-}" && -d "$FG_SHARED_FIXTURES" ]]; then
	profiles+=("$FG_SHARED_FIXTURES"/daily/day01-broker-*-grpc.html)
fi
# runs NAME PROFILE...: a runs file of one build (HEAD), one line a profile.
runs() {
	local name=$1 i=0 p
	shift
	for p in "$@"; do
		echo "2026-11-01 ${head:0:8} node-$i grpc cpu $p"
		i=$((i + 1))
	done >"$TMP/$name.txt"
}
runs all "${profiles[@]}"
runs missing "${profiles[@]:0:3}" "$TMP/missing.collapsed.gz" "${profiles[@]}"
runs bad "${profiles[@]:0:4}" "$TMP/bad.collapsed" "${profiles[@]}"
runs rest "${profiles[@]:0:2}" "$FX/day01-broker-0-rest.collapsed.gz" "${profiles[@]}"

# same_bytes WHAT ARGS...: run mode on 1, 2 and 7 threads; leaves the
# one-thread run in $TMP/1.out, 1.err and 1.status.
same_bytes() {
	local what=$1 j
	shift
	for j in 1 2 7; do
		local status=0
		"$FGBISECT" run -j $j "$@" >"$TMP/$j.out" 2>"$TMP/$j.err" || status=$?
		echo "$status" >"$TMP/$j.status"
		[[ $j == 1 ]] && continue
		CHECKS=$((CHECKS + 1))
		cat "$TMP/$j.out" "$TMP/$j.status" | cmp -s - <(cat "$TMP/1.out" "$TMP/1.status") ||
			fail "$what -j $j: stdout or exit status differ from -j 1"
		CHECKS=$((CHECKS + 1))
		cmp -s "$TMP/1.err" "$TMP/$j.err" || fail "$what -j $j: stderr differs from -j 1"
	done
}

for fmt in "" --json; do
	for threshold in 4 40; do
		same_bytes "all profiles $fmt, threshold $threshold" $fmt --frame TransactionalColumnFamily \
			--threshold $threshold --runs "$TMP/all.txt"
	done
	same_bytes "a missing profile $fmt" $fmt --frame TransactionalColumnFamily --threshold 4 --runs "$TMP/missing.txt"
	check_eq "a missing profile $fmt: exit status" "$(cat "$TMP/1.status")" 125
	check_eq "a missing profile $fmt: the reason" \
		"$(grep -c "; judged on $((${#profiles[@]} + 3)) of $((${#profiles[@]} + 4)) profiles, left out: node-3: cannot open" "$TMP/1.err")" 1
	same_bytes "a malformed profile $fmt" $fmt --frame TransactionalColumnFamily --threshold 4 --runs "$TMP/bad.txt"
	check_eq "a malformed profile $fmt: exit status" "$(cat "$TMP/1.status")" 125
	same_bytes "a REST profile $fmt" $fmt --frame TransactionalColumnFamily --threshold 4 --runs "$TMP/rest.txt"
	check_eq "a REST profile $fmt: exit status" "$(cat "$TMP/1.status")" 125
done
same_bytes "the verdict in JSON" --json --frame TransactionalColumnFamily --threshold 4 --runs "$TMP/all.txt"
check_eq "every profile read" "$(json_get 'sum(p["read"] for p in j["profiles"])' <"$TMP/1.out")" "${#profiles[@]}"
check_eq "the pooled samples" "$(json_get 'j["samples"], j["total"]' <"$TMP/1.out")" "$(
	s=0 t=0
	for p in "${profiles[@]}"; do
		read -r a b < <("$FGBISECT" share --json --frame TransactionalColumnFamily "$p" 2>/dev/null |
			json_get '"%d %d" % (j["profiles"][0]["matches"][0]["samples"], j["profiles"][0]["total"])')
		s=$((s + a)) t=$((t + b))
	done
	echo "($s, $t)")"
same_bytes "the malformed profile left out, JSON" --json --frame TransactionalColumnFamily --threshold 4 \
	--runs "$TMP/bad.txt"
check_eq "the malformed profile left out: the others read" \
	"$(json_get '"".join("R" if p["read"] else "-" for p in j["profiles"])' <"$TMP/1.out")" \
	"RRRR-$(printf -- 'R%.0s' "${profiles[@]}")"
check_eq "the malformed profile left out: its error" \
	"$(json_get '"|".join(str(p["error"]) for p in j["profiles"][3:5])' <"$TMP/1.out")" \
	"None|line 2: not a collapsed stack (expected 'frame;frame;... COUNT')"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
