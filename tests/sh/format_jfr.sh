# ctest-labels: slow
# JFR recordings read natively: async-profiler's own against its collapsed
# twin (the converter's output: stacks, counts and frame types), and one the
# JDK records here against what the JDK's `jfr print` says of it.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Collapsed stacks as a multiset, type suffixes kept.
multiset() {
	awk '{n=$NF; s=$0; sub(/ [0-9]+$/,"",s); c[s]+=n} END {for (k in c) print k " " c[k]}' | LC_ALL=C sort
}

if [[ -n "${FG_SHARED_FIXTURES:-}" && -d "$FG_SHARED_FIXTURES" ]]; then
	F=$FG_SHARED_FIXTURES/formats
	out=$("$FGBISECT" share --json --frame TransactionalColumnFamily "$F/jfr-v4.5-healthy.jfr")
	check_eq "jfr total" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" 5728
	check_eq "jfr samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" 159
	check_eq "jfr format" "$(json_get 'j["profiles"][0]["format"]' <<<"$out")" jfr
	# The twin is the converter's annotated output: types must agree too
	# (interpreted, C1, JIT and inlined frames merged per node by majority).
	"$FGBISECT" collapse --annotate "$F/jfr-v4.5-healthy.jfr" | multiset >"$TMP/a"
	multiset <"$F/jfr-v4.5-healthy.collapsed" >"$TMP/b"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/a" "$TMP/b" || fail "jfr collapse --annotate differs from its twin: $(diff "$TMP/a" "$TMP/b" | head -3)"
	# The same samples through gzip and stdin.
	gzip -c "$F/jfr-v4.5-healthy.jfr" >"$TMP/rec.jfr.gz"
	out=$("$FGBISECT" share --json --frame TransactionalColumnFamily - <"$TMP/rec.jfr.gz")
	check_eq "jfr.gz from stdin" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" 159
	# --threads: a [name tid=N] frame under the root of every stack, the
	# samples unchanged.
	"$FGBISECT" collapse --threads "$F/jfr-v4.5-healthy.jfr" >"$TMP/t"
	check_eq "every stack under a thread frame" "$(grep -cv '^\[[^;]* tid=[0-9]*\];' "$TMP/t" || true)" 0
	check_eq "thread frames keep the samples" "$(awk '{t+=$NF} END {print t}' "$TMP/t")" 5728
	# --from/--to: the window's samples, from the events' time stamps.
	whole=$("$FGBISECT" share --json --frame x --from 0 "$F/jfr-v4.5-healthy.jfr" | json_get 'j["profiles"][0]["total"]')
	check_eq "--from 0 keeps everything" "$whole" 5728
	a=$("$FGBISECT" share --json --frame x --to 50% "$F/jfr-v4.5-healthy.jfr" | json_get 'j["profiles"][0]["total"]')
	b=$("$FGBISECT" share --json --frame x --from 50% "$F/jfr-v4.5-healthy.jfr" | json_get 'j["profiles"][0]["total"]')
	check_eq "the two halves add up" "$((a + b))" 5728
	CHECKS=$((CHECKS + 1))
	[[ $a -gt 2000 && $b -gt 2000 ]] || fail "halves of a steady 12 s recording: $a and $b samples"
	s=$("$FGBISECT" share --json --frame x --from 3 --to 6s "$F/jfr-v4.5-healthy.jfr" | json_get 'j["profiles"][0]["total"]')
	CHECKS=$((CHECKS + 1))
	[[ $s -gt 1000 && $s -lt 1800 ]] || fail "3 s of a 5728-sample, 12 s recording: $s samples"
	# No event of the kind asked for: an error that says so.
	err=$("$FGBISECT" share --frame x --event alloc "$F/jfr-v4.5-healthy.jfr" 2>&1 >/dev/null) && fail "alloc events from a cpu recording"
	CHECKS=$((CHECKS + 1))
	[[ "$err" == *"no samples: no alloc events"* ]] || fail "message for a missing event: $err"
else
	echo "SKIP (part): the shared fixtures are not at '${FG_SHARED_FIXTURES:-}': async-profiler's JFR not checked" >&2
fi

# A recording made here by the JDK's Flight Recorder.
if ! command -v java >/dev/null || ! command -v javac >/dev/null || ! command -v jfr >/dev/null; then
	echo "SKIP (part): no JDK (java, javac, jfr): install openjdk-17-jdk-headless to check a JDK recording" >&2
	[[ $CHECKS -gt 0 ]] || exit 77
	finish
	exit
fi
javac -d "$TMP" "$FG_SOURCE_DIR/tests/java/Work.java"
java -XX:StartFlightRecording=filename="$TMP/jdk.jfr",settings=profile -cp "$TMP" Work 1500 >/dev/null 2>&1
jfr print --json --stack-depth 64 "$TMP/jdk.jfr" >"$TMP/jdk.json"
for event in cpu alloc lock; do
	python3 "$FG_SOURCE_DIR/tests/tools/jfr_print_collapse.py" $event <"$TMP/jdk.json" | multiset >"$TMP/want"
	"$FGBISECT" collapse --event $event "$TMP/jdk.jfr" | multiset >"$TMP/got"
	CHECKS=$((CHECKS + 1))
	if [[ ! -s "$TMP/want" ]]; then
		fail "the JDK recorded no $event events (the workload should make them)"
	elif ! cmp -s "$TMP/want" "$TMP/got"; then
		fail "JDK recording, $event: fgbisect differs from jfr print: $(diff "$TMP/want" "$TMP/got" | head -4)"
	fi
done
# The JDK's allocation samples weigh bytes: said so, no sample interval.
out=$("$FGBISECT" share --json --frame Work.alloc --event alloc "$TMP/jdk.jfr")
check_eq "alloc unit" "$(json_get '[j["profiles"][0][k] for k in ("unit", "event")] + [j["profiles"][0]["matches"][0]["ci95"]]' <<<"$out")" "['bytes', 'alloc', None]"
out=$("$FGBISECT" share --json --frame Work --event lock "$TMP/jdk.jfr")
check_eq "lock unit" "$(json_get 'j["profiles"][0]["unit"]' <<<"$out")" ns
finish
