# fgbisect runs scan: both Camunda artifact layouts, every variant and event,
# .html.gz, namespaced pod names, junk and unidentifiable files skipped.
# Only names matter, so the files are empty.
source "$(dirname "$0")/../lib.sh"
# Exit statuses are read with $? after each command: no set -e here.
set +e
trap - ERR

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # check DESCRIPTION EXPECTED ACTUAL
	check_eq "$1" "$3" "$2"
}

d=$tmp/artifacts
mk() { mkdir -p "$d/$(dirname "$1")" && : > "$d/$1"; }

# Layout 1: one artifact folder per variant, event and pod (newest form).
a=flamegraph-medic-daily-2026-08-31-abc1234-test
mk "$a-grpc-cpu-camunda-0-20260831/c8-medic-daily-2026-08-31-abc1234-test-grpc-camunda-0-flamegraph-grpc-cpu-20260831.html"
mk "$a-grpc-wall-camunda-1-20260831/c8-medic-daily-2026-08-31-abc1234-test-grpc-camunda-1-flamegraph-grpc-wall-20260831.html"
# Captured after midnight: the build date still comes from the benchmark name.
mk "$a-rest-alloc-camunda-2-20260901/c8-medic-daily-2026-08-31-abc1234-test-rest-camunda-2-flamegraph-rest-alloc-20260901.html.gz"
mk "$a-none-cpu-camunda-0-20260831/c8-medic-daily-2026-08-31-abc1234-test-none-camunda-0-flamegraph-cpu-20260831.html"
# A file whose pod contradicts its folder: skipped.
mk "$a-grpc-cpu-camunda-0-20260831/c8-medic-daily-2026-08-31-abc1234-test-grpc-camunda-1-flamegraph-grpc-cpu-20260831.html"
mk "flamegraph-medic-daily-2026-08-30-0ff1ce5-test-elasticsearch-lock-camunda-1-20260830/c8-medic-daily-2026-08-30-0ff1ce5-test-elasticsearch-camunda-1-flamegraph-elasticsearch-lock-20260830.html"
# The older gRPC namespace without a variant, an 8-digit sha.
mk "flamegraph-medic-daily-2026-08-29-b1bd4006-test-cpu-camunda-0-20260829/c8-medic-daily-2026-08-29-b1bd4006-test-camunda-0-flamegraph-cpu-20260829.html"
# Older artifact names: the benchmark name must be in a folder above.
mk "medic-daily-2026-08-28-deadbee-test/flamegraph-cpu-camunda-0/camunda-0-flamegraph-cpu-20260828.html"
mk "medic-daily-2026-08-28-deadbee-test/flamegraph-wall-camunda-1/flamegraph-wall.html"
mk "flamegraph-cpu-camunda-2/flamegraph-cpu.html"
# Layout 2: files side by side in DIR.
mk "c8-medic-daily-2026-09-01-1234abcd-test-rest-camunda-1-flamegraph-rest-cpu-20260901.html"
mk "c8-medic-daily-2026-09-01-1234abcd-test-grpc-camunda-0-flamegraph-grpc-wall-20260901.html.gz"
mk "camunda-0-flamegraph-cpu-20260901.html"
# Junk.
mk "README.md"
mk "combined-grpc-20260901.jfr"
mk "notes.txt"
mk "index.html"
mk ".hidden-flamegraph-cpu.html"
mk "medic-daily-2026-09-02-aaaa111-test/camunda-0-flamegraph-cpu 2.html"

expected_rows=$(cat <<'EOF'
2026-08-28  deadbee   camunda-0  -         cpu    @medic-daily-2026-08-28-deadbee-test/flamegraph-cpu-camunda-0/camunda-0-flamegraph-cpu-20260828.html
2026-08-28  deadbee   camunda-1  -         wall   @medic-daily-2026-08-28-deadbee-test/flamegraph-wall-camunda-1/flamegraph-wall.html
2026-08-29  b1bd4006  camunda-0  -         cpu    @flamegraph-medic-daily-2026-08-29-b1bd4006-test-cpu-camunda-0-20260829/c8-medic-daily-2026-08-29-b1bd4006-test-camunda-0-flamegraph-cpu-20260829.html
2026-08-30  0ff1ce5   camunda-1  -         lock   @flamegraph-medic-daily-2026-08-30-0ff1ce5-test-elasticsearch-lock-camunda-1-20260830/c8-medic-daily-2026-08-30-0ff1ce5-test-elasticsearch-camunda-1-flamegraph-elasticsearch-lock-20260830.html
2026-08-31  abc1234   camunda-0  -         cpu    @flamegraph-medic-daily-2026-08-31-abc1234-test-none-cpu-camunda-0-20260831/c8-medic-daily-2026-08-31-abc1234-test-none-camunda-0-flamegraph-cpu-20260831.html
2026-08-31  abc1234   camunda-0  grpc      cpu    @flamegraph-medic-daily-2026-08-31-abc1234-test-grpc-cpu-camunda-0-20260831/c8-medic-daily-2026-08-31-abc1234-test-grpc-camunda-0-flamegraph-grpc-cpu-20260831.html
2026-08-31  abc1234   camunda-1  grpc      wall   @flamegraph-medic-daily-2026-08-31-abc1234-test-grpc-wall-camunda-1-20260831/c8-medic-daily-2026-08-31-abc1234-test-grpc-camunda-1-flamegraph-grpc-wall-20260831.html
2026-08-31  abc1234   camunda-2  rest      alloc  @flamegraph-medic-daily-2026-08-31-abc1234-test-rest-alloc-camunda-2-20260901/c8-medic-daily-2026-08-31-abc1234-test-rest-camunda-2-flamegraph-rest-alloc-20260901.html.gz
2026-09-01  1234abcd  camunda-0  grpc      wall   @c8-medic-daily-2026-09-01-1234abcd-test-grpc-camunda-0-flamegraph-grpc-wall-20260901.html.gz
2026-09-01  1234abcd  camunda-1  rest      cpu    @c8-medic-daily-2026-09-01-1234abcd-test-rest-camunda-1-flamegraph-rest-cpu-20260901.html
EOF
)
header='# date      commit    node       protocol  event  location'
expect() { # expect PREFIX: the runs file with locations starting with PREFIX
	printf '%s\n' "$header"
	printf '%s\n' "$expected_rows" | sed "s|@|$1|"
}

# To standard output: locations relative to DIR.
"$FGBISECT" runs scan "$d" > "$tmp/stdout.txt" 2> "$tmp/stderr.txt"
check "exit status" 0 $?
if ! diff -u <(expect "") "$tmp/stdout.txt"; then
	fail "stdout runs file differs"
fi
# One warning per unusable flame graph, none for the junk.
check "warnings" 5 "$(grep -c 'warning: .*skipped: ' "$tmp/stderr.txt")"
for name in flamegraph-cpu-camunda-2/flamegraph-cpu.html camunda-0-flamegraph-cpu-20260901.html index.html \
	"camunda-0-flamegraph-cpu 2.html" "test-grpc-camunda-1-flamegraph-grpc-cpu-20260831.html"; do
	grep -qF "$name: skipped: " "$tmp/stderr.txt" || { fail "no warning for $name"; }
done
grep -q 'flamegraph-cpu-camunda-2/flamegraph-cpu.html: skipped: no benchmark name' "$tmp/stderr.txt" ||
	{ fail "reason for a file without benchmark name"; }
grep -q 'camunda-1-flamegraph-grpc-cpu-20260831.html: skipped: folder .* names another node (camunda-0, not camunda-1)' \
	"$tmp/stderr.txt" || { fail "reason for a contradicting pod"; }
grep -qE 'README|notes|jfr|hidden' "$tmp/stderr.txt" && { fail "junk reported"; }

# -o FILE elsewhere: locations relative to FILE's folder.
mkdir -p "$tmp/out"
"$FGBISECT" runs scan "$d" -o "$tmp/out/runs.txt" 2> /dev/null
check "exit status with -o" 0 $?
if ! diff -u <(expect "../artifacts/") "$tmp/out/runs.txt"; then
	fail "-o runs file differs"
fi
# Relative paths, a trailing slash and --output=: the same file from the top.
(cd "$tmp" && "$FGBISECT" runs scan artifacts/ --output=runs.txt 2> /dev/null)
check "exit status with --output=" 0 $?
if ! diff -u <(expect "artifacts/") "$tmp/runs.txt"; then
	fail "--output= runs file differs"
fi
# Inside DIR: the same text as standard output.
"$FGBISECT" runs scan "$d" -o "$d/runs.txt" 2> /dev/null
cmp -s "$d/runs.txt" "$tmp/stdout.txt" || { fail "-o DIR/runs.txt differs from stdout"; }
ls "$d" | grep -q '\.tmp\.' && { fail "temporary file left behind"; }

# The benchmark name in DIR's own name: `runs scan .` inside a build folder.
b=$tmp/medic-daily-2026-10-01-feedf00d-test-rest
mkdir -p "$b"
: > "$b/camunda-2-flamegraph-alloc-20261001.html"
out=$(cd "$b" && "$FGBISECT" runs scan . 2> /dev/null | tail -n 1)
check "benchmark name from DIR's path" "2026-10-01  feedf00d  camunda-2  rest      alloc  camunda-2-flamegraph-alloc-20261001.html" "$out"

# Errors.
"$FGBISECT" runs scan > /dev/null 2>&1
check "no DIR" 2 $?
"$FGBISECT" runs scan "$d" "$d" > /dev/null 2>&1
check "two DIRs" 2 $?
"$FGBISECT" runs scan --frob "$d" > /dev/null 2>&1
check "unknown option" 2 $?
"$FGBISECT" runs frob > /dev/null 2>&1
check "unknown action" 2 $?
"$FGBISECT" runs scan "$tmp/missing" > /dev/null 2> "$tmp/err.txt"
check "missing DIR" 4 $?
grep -q "missing: cannot read the folder" "$tmp/err.txt" || { fail "missing DIR message"; }
mkdir "$tmp/empty"
: > "$tmp/empty/notes.txt"
"$FGBISECT" runs scan "$tmp/empty" -o "$tmp/empty/runs.txt" > /dev/null 2> "$tmp/err.txt"
check "no flame graph" 3 $?
grep -q "no Camunda daily flame graph found" "$tmp/err.txt" || { fail "empty DIR message"; }
[ -e "$tmp/empty/runs.txt" ] && { fail "runs file written for an empty DIR"; }
"$FGBISECT" runs scan "$d" -o "$tmp/no/such/dir/runs.txt" > /dev/null 2>&1
check "unwritable output" 4 $?
"$FGBISECT" runs scan --help | grep '^usage: fgbisect runs scan DIR \[-o FILE\]' >/dev/null
check "help" 0 $?

finish
