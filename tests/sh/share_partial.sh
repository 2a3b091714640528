# share over JFR and pprof stops reading a stack at a frame that matches
# every pattern (fg_stop_fn, docs/formats.md): the answers must be those of
# the same stacks as collapsed text (read whole) and of awk over it, for a
# match at the leaf, in the middle, at the root-most frame, in the caller of
# an inlined pprof location, two patterns at different depths, one name
# matching both, --self, --regex, one and three JFR chunks, packed and
# unpacked pprof; and a damaged frame nearer the root than the match must
# fail the read as it does when every frame is read.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
T="$FG_SOURCE_DIR/tests/tools"

# Deep stacks before shallow ones (a slot of the last stack must not leak
# into the next), the matching frame at every depth.
cat >"$TMP/s.collapsed" <<'EOF'
r/R.root_[j];a/A.m_[j];b/B.n_[j];x/X.leaf_[j] 17
r/R.root_[j];a/A.m_[j];x/X.leaf_[j] 5
r/R.root_[j];x/X.mid_[j];a/A.m_[j] 7
a/A.m_[j];x/X.a_[j];x/X.b_[j] 11
r/R.root_[j];y/Y.q_[j] 13
r/R.root_[j];b/B.n_[j];a/A.m_[j];b/B.n_[j];z/Z.z_[j] 19
r/R.root_[j];a/AB.mn_[j];x/X.leaf_[j] 23
r/R.root_[j];a/A.m_[j];x/X.inl_[i];x/X.leaf_[j] 29
r/R.root_[j];y/Y.q_[j];x/X.inl_[j];a/A.m_[j];b/B.n_[j];x/X.leaf_[j] 31
EOF
python3 "$T/write_jfr.py" "$TMP/s.collapsed" "$TMP/one.jfr"
python3 "$T/write_jfr.py" --chunks 3 "$TMP/s.collapsed" "$TMP/three.jfr"
python3 "$T/write_pprof.py" "$TMP/s.collapsed" "$TMP/s.pb"
python3 "$T/write_pprof.py" --packed "$TMP/s.collapsed" "$TMP/packed.pb.gz"

# The samples of stacks holding the pattern (inclusive) or ending in it
# (--self), by awk over the collapsed text without the type suffixes.
awk_truth() { # PATTERN [self]
	sed -E 's/_\[[0-9a-z]\]//g' "$TMP/s.collapsed" | awk -v pat="$1" -v self="${2:-}" '{
		n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
		if (self ? index(f[k], pat) : index(s, pat)) h += n
	} END { print h + 0 }'
}
samples() { # ARGS... (share's own): the samples of each pattern, one line
	"$FGBISECT" share --json "$@" | json_get '" ".join(str(m["samples"]) for m in j["profiles"][0]["matches"])'
}
for args in "--frame A.m" "--frame B.n" "--frame X.leaf" "--frame R.root" "--frame X.inl" "--frame A.m --frame B.n" \
	"--frame B.n --frame A.m" "--frame AB --frame mn" "--frame A --frame X.leaf" "--self --frame X.leaf" \
	"--self --frame A.m" "--self --frame A.m --frame B.n" "--regex --frame A[.]m$" "--regex --frame ^a/A"; do
	# shellcheck disable=SC2086
	want=$(samples $args "$TMP/s.collapsed")
	for f in one.jfr three.jfr s.pb packed.pb.gz; do
		# shellcheck disable=SC2086
		check_eq "share $args $f" "$(samples $args "$TMP/$f")" "$want"
	done
done
# The collapsed answers themselves, against awk.
check_eq "A.m inclusive" "$(samples --frame A.m "$TMP/s.collapsed")" "$(awk_truth A.m)"
check_eq "A.m inclusive (figure)" "$(awk_truth A.m)" 119
check_eq "R.root (the root-most frame)" "$(samples --frame R.root "$TMP/s.collapsed")" "$(awk_truth R.root)"
check_eq "two patterns" "$(samples --frame A.m --frame B.n "$TMP/s.collapsed")" "$(awk_truth A.m) $(awk_truth B.n)"
check_eq "X.leaf self" "$(samples --self --frame X.leaf "$TMP/s.collapsed")" "$(awk_truth X.leaf self)"
check_eq "A.m self" "$(samples --self --frame A.m "$TMP/s.collapsed")" "$(awk_truth A.m self)"
# Thread frames and the whole text output, besides --json.
for f in one.jfr three.jfr; do
	check_eq "share --threads $f" "$(samples --threads --frame A.m --frame main "$TMP/$f")" "$(awk_truth A.m) 155"
done
"$FGBISECT" share --frame A.m --frame B.n "$TMP/s.collapsed" | tail -n +2 >"$TMP/want"
for f in one.jfr s.pb; do
	"$FGBISECT" share --frame A.m --frame B.n "$TMP/$f" | tail -n +2 >"$TMP/got"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/got" "$TMP/want" || fail "share text over $f: $(diff "$TMP/got" "$TMP/want" | head -3)"
done

# Line numbers of nine bytes (the largest with the ninth byte's top bit set,
# and one with it clear): the pool pass steps over frames 32 bytes at a time
# and must leave such runs to its word loop. The same stacks, 12 to 40 frames
# deep, as with one-byte line numbers.
PYTHONPATH="$T" python3 - "$TMP" <<'PY'
import sys
from write_jfr import chunk
out = sys.argv[1]
stacks = {k: ["a/A.m%d_[j]" % (i % 7) for i in range(12 + 4 * k)] + ["x/X.leaf_[j]"] for k in range(1, 8)}
events = [(1 + i % 7, 1000 + i * 1000) for i in range(70)]
for name, line in (("line0", 0), ("line-max", 2**64 - 1), ("line-56", 2**56)):
    open("%s/%s.jfr" % (out, name), "wb").write(chunk(stacks, events, 10**18, 10**8, line=line))
PY
"$FGBISECT" collapse "$TMP/line0.jfr" >"$TMP/line0.collapsed"
for f in line-max line-56; do
	"$FGBISECT" collapse "$TMP/$f.jfr" >"$TMP/$f.collapsed"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/$f.collapsed" "$TMP/line0.collapsed" || fail "$f.jfr: collapse differs: $(diff "$TMP/$f.collapsed" "$TMP/line0.collapsed" | head -3)"
	check_eq "$f.jfr share" "$(samples --frame A.m3 --frame X.leaf "$TMP/$f.jfr")" "70 70"
done
check_eq "nine-byte lines: the stacks" "$(wc -l <"$TMP/line0.collapsed")" 7

# Damage nearer the root than the matching frame: read whole, it fails; so
# must share, with the same message and status as a command that reads every
# frame (top).
same_failure() { # WHAT FILE MESSAGE
	local rc=0 rt=0
	"$FGBISECT" share --frame A.m "$2" >/dev/null 2>"$TMP/err" || rc=$?
	"$FGBISECT" top "$2" >/dev/null 2>"$TMP/top.err" || rt=$?
	check_eq "$1: share's status" "$rc" 3
	check_eq "$1: top's status" "$rt" 3
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$3" "$TMP/err" || fail "$1: share's stderr lacks '$3': $(head -c 300 "$TMP/err")"
	check_eq "$1: share's message is top's" "$(sed 's/^[^:]*: //' "$TMP/err")" "$(sed 's/^[^:]*: //' "$TMP/top.err")"
}
PYTHONPATH="$T" python3 - "$TMP" <<'PY'
import sys
from write_jfr import chunk
out = sys.argv[1]
# The root-most method's name holds a NUL; the next stack is whole.
stacks = {1: ["r/R.ro\0ot_[j]", "a/A.m_[j]", "x/X.leaf_[j]"], 2: ["a/A.m_[j]", "x/X.leaf_[j]"]}
events = [(1 + i % 2, 1000 + i * 1000) for i in range(10)]
open(out + "/nul-root.jfr", "wb").write(chunk(stacks, events, 10**18, 10**8))
# The same stacks, the damaged one before --from 5 %: its frames are never
# read, and share answers (its method still in the pool).
events = [(1, 1000)] + [(2, 1000 + i * 10**7) for i in range(1, 10)]
open(out + "/nul-unused.jfr", "wb").write(chunk(stacks, events, 10**18, 10**8))
PY
same_failure "NUL in a root-side method" "$TMP/nul-root.jfr" "NUL in a name"
check_eq "damage out of the window" "$(samples --from 5% --frame A.m "$TMP/nul-unused.jfr")" 9
check_eq "damage out of the window (top)" "$(status "$FGBISECT" top --from 5% "$TMP/nul-unused.jfr")" 0
same_failure "damage in the window" "$TMP/nul-unused.jfr" "NUL in a name"
printf '%s\n' 'r/R.root;a/A.m;x/X.leaf 5' 'a/A.m;x/X.leaf 2' >"$TMP/d.collapsed"
python3 "$T/write_pprof.py" "$TMP/d.collapsed" "$TMP/d.pb"
python3 - "$TMP" <<'PY'
import sys
d = open(sys.argv[1] + "/d.pb", "rb").read()
# Location ids 3 (X.leaf), 2 (A.m), 1 (R.root), one field each: the root's
# id after the match names no location; or its function's name holds a NUL.
ids = b"\x08\x03\x08\x02\x08\x01"
assert d.count(ids) == 1 and d.count(b"r/R.root") == 1
open(sys.argv[1] + "/missing.pb", "wb").write(d.replace(ids, b"\x08\x03\x08\x02\x08\x09"))
open(sys.argv[1] + "/nul-fn.pb", "wb").write(d.replace(b"r/R.root", b"r/R.r\0ot"))
PY
same_failure "a missing location after the match" "$TMP/missing.pb" "a sample names a location that is not in the profile"
same_failure "NUL in a root-side function" "$TMP/nul-fn.pb" "NUL in a function name"
finish
