# collapse's sorted output (written without a call tree: the frames kept
# compactly and same-named siblings merged as they are written) holds each
# stack once, in DFS order with siblings in byte order of their names (a
# kernel frame after the other frame of its name), and sums, stack by stack,
# to the --unsorted stream; on every fixture, plain and --annotate, and
# --normalise (whose merged names must also come out once and in order).
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# order FILE...: "ok LINES" when each file's stacks are in order and
# distinct, else the first offence.  A stack's key is its frames, each as
# (name without a _[x] type suffix, kernel or not): a prefix sorts first.
order() {
	python3 - "$@" <<'PY'
import re, sys
suffix = re.compile(rb"_\[(k|j|i|0|1)\]$")
lines = 0
for path in sys.argv[1:]:
    prev = None
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            stack, _, count = line.rstrip(b"\n").rpartition(b" ")
            key = []
            for frame in stack.split(b";"):
                m = suffix.search(frame)
                key.append((frame[:m.start()] if m else frame, bool(m) and m.group(1) == b"k"))
            if not count.isdigit() or int(count) == 0:
                sys.exit(f"{path}:{n}: not a positive count")
            if prev is not None and key <= prev:
                sys.exit(f"{path}:{n}: {'the same stack again' if key == prev else 'out of order'}")
            prev = key
            lines += 1
print("ok", lines)
PY
}
# summed: stack -> total, sorted by stack bytes (the comparison form).
summed() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); s[$0] += n } END { for (k in s) print k, s[k] }' | LC_ALL=C sort
}

inputs=("$FG_SOURCE_DIR"/fixtures/*.gz "$FG_SOURCE_DIR"/fixtures/tiny-3x.html)
if [[ -n "${FG_SHARED_FIXTURES:-}" && -d "$FG_SHARED_FIXTURES" ]]; then
	inputs+=("$FG_SHARED_FIXTURES"/versions/*.html "$FG_SHARED_FIXTURES"/daily/*.html
		"$FG_SHARED_FIXTURES"/daily/*[^n].collapsed "$FG_SHARED_FIXTURES"/formats/*.html
		"$FG_SHARED_FIXTURES"/formats/jfr-v4.5-healthy.jfr "$FG_SHARED_FIXTURES"/formats/jfr-v4.5-healthy.pb.gz)
fi
files=()
for p in "${inputs[@]}"; do
	for opts in "" --annotate --normalise; do
		out=$TMP/${#files[@]}.txt
		# shellcheck disable=SC2086
		"$FGBISECT" collapse $opts "$p" >"$out" 2>/dev/null || fail "collapse $opts $p failed"
		files+=("$out")
		# (JFR frame types are merged per node of the tree, as the converter
		# does, so annotated JFR streams differ from the tree by design.)
		if [[ -z $opts || ($opts == --annotate && $p != *.jfr) ]]; then
			# shellcheck disable=SC2086
			check_eq "collapse $opts $p: the stream's stacks" "$(summed <"$out" | md5sum)" \
				"$("$FGBISECT" collapse --unsorted $opts "$p" 2>/dev/null | summed | md5sum)"
		fi
	done
done
result=$(order "${files[@]}" 2>&1 || true)
check_eq "every output in order, each stack once" "${result%% *}" ok
CHECKS=$((CHECKS + 1))
[[ ${result#ok } -gt 10000 ]] || fail "too few lines checked: $result"
# The planted offences are found: a line repeated, two lines swapped, a
# kernel frame before the other of its name, a child after its parent's
# next sibling.
printf 'a 1\na 1\n' >"$TMP/twice"
printf 'a;c 1\na;b 1\n' >"$TMP/swapped"
printf 'a_[k] 1\na 1\n' >"$TMP/kernel"
printf 'a 1\na_[k] 1\naZ 2\na;b2 1\n' >"$TMP/late-child"
printf 'a 1\na;b2 1\na_[k] 1\naZ 2\n' >"$TMP/fine"
check_eq "a repeated stack" "$(order "$TMP/twice" 2>&1 || true)" "$TMP/twice:2: the same stack again"
check_eq "swapped stacks" "$(order "$TMP/swapped" 2>&1 || true)" "$TMP/swapped:2: out of order"
check_eq "a kernel frame first" "$(order "$TMP/kernel" 2>&1 || true)" "$TMP/kernel:2: out of order"
check_eq "a child after its parent's sibling" "$(order "$TMP/late-child" 2>&1 || true)" "$TMP/late-child:4: out of order"
check_eq "in order" "$(order "$TMP/fine" 2>&1 || true)" "ok 4"

# The large page: the first 100 MB of javac's 1.55 GB (a DFS prefix) with
# ../shared, else all of the generated one (FG_PAGES: 72 MB).
large=$FG_PAGES/large.html.gz
if [[ -n "${FG_SHARED_FIXTURES:-}" && -d "$FG_SHARED_FIXTURES" ]]; then
	large=$FG_SHARED_FIXTURES/large/javac-large.html.gz
fi
{ "$FGBISECT" collapse "$large" 2>/dev/null || true; } | head -c 100000000 | head -n -1 >"$TMP/large"
check_eq "the large page in order (and read)" "$(order "$TMP/large" | awk '{ print $1, ($2 > 10000) }')" "ok 1"

echo "$CHECKS checks, $FAILS failed"
[[ $FAILS -eq 0 ]]
