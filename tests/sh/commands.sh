# share, top and collapse on the project's own samples (no ../shared needed):
# numbers, output forms, --help, exit codes and error messages.
source "$(dirname "$0")/../lib.sh"
FX="$FG_SOURCE_DIR/fixtures"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# share: exact numbers against an independent count of the same stacks.
read -r total tcf < <(truth "$FX/zeebe-regressed.collapsed.gz" TransactionalColumnFamily)
out=$("$FGBISECT" share --json --frame TransactionalColumnFamily "$FX/zeebe-regressed.collapsed.gz")
check_eq "share total" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" "$total"
check_eq "share samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" "$tcf"
check_eq "share format" "$(json_get 'j["profiles"][0]["format"]' <<<"$out")" "collapsed"
check_eq "share pct" "$(json_get '"%.2f" % j["profiles"][0]["matches"][0]["share"]' <<<"$out")" "7.11"
check_eq "share ci" "$(json_get '"%.2f %.2f" % tuple(j["profiles"][0]["matches"][0]["ci95"])' <<<"$out")" "6.46 7.82"
# Several profiles and patterns, text output, stdin.
out=$("$FGBISECT" share -f TransactionalColumnFamily -f ProcessingStateMachine "$FX/zeebe-healthy.collapsed.gz" - <"$FX/zeebe-regressed.collapsed.gz")
check_eq "text lines" "$(wc -l <<<"$out")" 6
[[ "$out" == *"TransactionalColumnFamily"*"145"*"2.84%"* ]] || fail "text share: $out"
[[ "$out" == *$'\n-  collapsed'*"390"*"7.11%"* ]] || fail "stdin share: $out"
# Regex patterns; a pattern that matches nothing is 0% with a warning.
out=$("$FGBISECT" share --json --regex -f 'TransactionalColumnFamily\.(get|upsert)$' "$FX/zeebe-healthy.collapsed.gz")
read -r t2 h2 < <(zcat "$FX/zeebe-healthy.collapsed.gz" | awk '{n=$NF; t+=n; s=$0; sub(/ [0-9]+$/,"",s); if (s ~ /TransactionalColumnFamily\.(get|upsert)(;|$)/) h+=n} END {print t, h+0}')
check_eq "regex samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <<<"$out")" "$h2"
err=$("$FGBISECT" share -f NoSuchFrameAnywhere "$FX/zeebe-healthy.collapsed.gz" 2>&1 >/dev/null)
[[ "$err" == *"mistyped"* ]] || fail "no warning for a pattern that matches nothing: $err"

# The hand-written 3.x page.
check_eq "tiny collapse" "$("$FGBISECT" collapse "$FX/tiny-3x.html")" \
"io/camunda/zeebe/scheduler/ActorThread.run 1
io/camunda/zeebe/scheduler/ActorThread.run;io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get 1
io/camunda/zeebe/scheduler/ActorThread.run;io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert 3"
check_eq "tiny annotate" "$("$FGBISECT" collapse --annotate "$FX/tiny-3x.html" | tail -1)" \
"io/camunda/zeebe/scheduler/ActorThread.run_[j];io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.upsert_[j] 3"
out=$("$FGBISECT" top --json "$FX/tiny-3x.html")
check_eq "tiny top" "$(json_get '[(f["frame"].rsplit("/",1)[1], f["samples"], f["self_samples"]) for f in j["frames"]]' <<<"$out")" \
"[('ActorThread.run', 5, 1), ('TransactionalColumnFamily.upsert', 3, 3), ('TransactionalColumnFamily.get', 1, 1)]"
out=$("$FGBISECT" top --self -n 1 --json "$FX/tiny-3x.html")
check_eq "top --self" "$(json_get 'j["frames"][0]["self_share"]' <<<"$out")" "60.0"

# collapse round trip: collapsed -> collapse -> the same multiset.
"$FGBISECT" collapse "$FX/zeebe-healthy.collapsed.gz" | canonical >"$TMP/a"
zcat "$FX/zeebe-healthy.collapsed.gz" | canonical >"$TMP/b"
CHECKS=$((CHECKS + 1))
cmp -s "$TMP/a" "$TMP/b" || fail "collapse round trip differs"
# Sorted: callers first, siblings in byte order.
"$FGBISECT" collapse "$FX/zeebe-healthy.collapsed.gz" | sed 's/ [0-9]*$//' >"$TMP/order"
python3 - "$TMP/order" <<'PY' || fail "collapse output is not sorted frame by frame"
import sys
rows = [l.rstrip("\n").encode().split(b";") for l in open(sys.argv[1], encoding="utf-8")]
assert rows == sorted(rows), "not sorted"
PY

# --help for every command, --version, usage errors (2).
for c in share top collapse; do
	"$FGBISECT" "$c" --help | grep "^usage: fgbisect $c" >/dev/null || fail "$c --help"
done
"$FGBISECT" --version | grep -Eq '^fgbisect [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version"
# Not a command: run mode, whose usage errors abort git bisect (docs/bisect.md).
check_eq "unknown command" "$(status "$FGBISECT" frobnicate)" 255
check_eq "share without --frame" "$(status "$FGBISECT" share "$FX/tiny-3x.html")" 2
check_eq "bad regex" "$(status "$FGBISECT" share -E -f '(' "$FX/tiny-3x.html")" 2
check_eq "top no profile" "$(status "$FGBISECT" top)" 2
check_eq "top two profiles pooled" "$("$FGBISECT" top --json "$FX/tiny-3x.html" "$FX/tiny-3x.html" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')" \
	"$(("$("$FGBISECT" top --json "$FX/tiny-3x.html" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')" * 2))"
check_eq "bad -n" "$(status "$FGBISECT" top -n x "$FX/tiny-3x.html")" 2

# Inputs that are not profiles (3), missing files (4): one line naming the file.
printf 'just some text\n' >"$TMP/text.txt"
check_eq "text file" "$(status "$FGBISECT" share -f x "$TMP/text.txt")" 3
err=$("$FGBISECT" share -f x "$TMP/text.txt" 2>&1 >/dev/null || true)
check_eq "error line" "$err" "fgbisect: $TMP/text.txt: line 1: not a collapsed stack (expected 'frame;frame;... COUNT')"
out=$("$FGBISECT" share --json -f x "$TMP/text.txt" 2>/dev/null || true)
check_eq "json error" "$(json_get 'j["error"]["code"] + " " + j["error"]["source"]' <<<"$out")" "invalid-profile $TMP/text.txt"
head -c 520 "$FX/tiny-3x.html" >"$TMP/cut.html"
check_eq "truncated html" "$(status "$FGBISECT" top "$TMP/cut.html")" 3
check_eq "missing file" "$(status "$FGBISECT" share -f x "$TMP/nope.html")" 4
err=$("$FGBISECT" share -f x "$TMP/nope.html" 2>&1 || true)
[[ "$err" == "fgbisect: $TMP/nope.html: cannot open: No such file or directory" ]] || fail "missing file message: $err"
head -c 20000 <(zcat "$FX/zeebe-healthy.collapsed.gz") | gzip >"$TMP/cut.collapsed.gz"
err=$("$FGBISECT" share -f x "$TMP/cut.collapsed.gz" 2>&1 >/dev/null || true)
[[ "$err" == *"no newline"* || "$err" == *"not a collapsed stack"* ]] || fail "cut collapsed: $err"

# A closed pipe ends fgbisect with an error status, never a signal.
set +o pipefail
"$FGBISECT" collapse "$FX/zeebe-regressed.collapsed.gz" | head -1 >/dev/null
code=${PIPESTATUS[0]}
set -o pipefail
CHECKS=$((CHECKS + 1))
[[ $code -lt 128 ]] || fail "collapse | head died by a signal ($code)"

finish
