#!/bin/bash
# JFR constant pools whose keys would cost memory out of proportion to the
# recording's bytes (docs/bad-inputs.md): keys spread over many types, and
# more sparse keys than the chunk's bytes allow, are held or refused within
# a bound; dense keys past 2^22 are read.  The recordings are written here by
# tests/tools/write_jfr.py; peak memory is the child's maximum RSS.
# ctest-labels: slow (writing 40 MB of recordings in python)
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PYTHONPATH="$FG_SOURCE_DIR/tests/tools" python3 - "$TMP" <<'PY'
import os, sys
from write_jfr import chunk, jstr, varint
out = sys.argv[1]
stacks = {1: ["a/A.main_[j]", "a/B.work_[i]"], 2: ["a/A.main_[j]", "libc.so"]}
events = [(1 + i % 2, 1000 + i * 1000) for i in range(100)]
class Entries:
    """n pool entries made as they are written (a list would take GBs)."""
    def __init__(self, n, key, value):
        self.n, self.key, self.value = n, key, value
    def __len__(self):
        return self.n
    def __iter__(self):
        return ((self.key(i), self.value) for i in range(self.n))
def put(name, **kw):
    open(os.path.join(out, name), "wb").write(chunk(stacks, events, 10**18, 10**8, **kw))
# 64 types with one pool entry each, its key 2^22 - 1: 16 MB of table a type
# before the bound (1 GB from 3 KB).
types = [(1000 + i, "x.T%d" % i, [("v", 6, 0, 0)]) for i in range(64)]
put("spread.jfr", extra_classes=types, extra_pools=[(t[0], [((1 << 22) - 1, varint(1))]) for t in types])
# 2^19 + 1 sparse symbol keys (about 200 bytes of map each) in 6 MB: one
# past the bound.
put("sparse.jfr", extra_pools=[(24, Entries((1 << 19) + 1, lambda i: (i + 1) << 40, jstr("x")))])
# 4.3 million dense symbol keys (past 2^22): an array, not the map.
put("dense.jfr", extra_pools=[(24, Entries(4_300_000, lambda i: 1000 + i, jstr("x")))])
PY

# Runs fgbisect share on a recording: its exit status, then its peak RSS in MB.
run() {
	python3 - "$FGBISECT" "$TMP/$1" "$TMP/err" <<'PY'
import resource, subprocess, sys
with open(sys.argv[3], "wb") as err:
    rc = subprocess.call([sys.argv[1], "share", "--frame", "a/B.work", sys.argv[2]], stdout=subprocess.DEVNULL, stderr=err)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
}

# Sanitizers shadow every allocation: their memory says nothing of ours.
limit=200
[[ ${FG_SANITIZED:-0} == 1 ]] && limit=100000
for f in spread dense; do
	read -r rc mb < <(run $f.jfr)
	check_eq "$f.jfr: exit status ($(head -c 200 "$TMP/err"))" "$rc" 0
	[[ $mb -le $limit ]] || fail "$f.jfr: peak RSS $mb MB, more than $limit MB"
	CHECKS=$((CHECKS + 1))
done
read -r rc mb < <(run sparse.jfr)
check_eq "sparse.jfr: exit status" "$rc" 3
check_eq "sparse.jfr: the message" "$(cat "$TMP/err")" \
	"fgbisect: $TMP/sparse.jfr: chunk 1: more than 524288 sparse constant-pool keys (the limit: one per 64 bytes of the chunk, at least 524288; docs/bad-inputs.md)"
[[ $mb -le $((limit * 2)) ]] || fail "sparse.jfr: peak RSS $mb MB, more than $((limit * 2)) MB"
finish
