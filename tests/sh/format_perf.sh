# perf script text read natively, folded as stackcollapse-perf.pl folds it:
# a sample written here from a description of perf's output (every header
# and frame variant), and, where perf_event works, a real recording against
# perf's own folding (`perf script report stackcollapse`).
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Header variants: pid only, pid/tid, a CPU, a period, a command with a space;
# frames with +0x offsets, [unknown] in a known and an unknown module, kernel
# frames, an older perf's "a->b" inlined chain, C++ parameters, a symbol
# starting with '(' (dropped, as stackcollapse-perf.pl drops process names),
# a Go method, quotes, a Java signature in a java process; a second event type
# (skipped).
cat >"$TMP/p.txt" <<'PERF'
# ========
# captured on    : Tue Dec  1 07:42:00 2026
# ========
#
app 1234 [000] 100.000100:    1001001 cpu-clock:pppH: 
	ffffffff8103ce3b native_safe_halt+0x1b ([kernel.kallsyms])
	          167158 __strcmp_evex+0x38 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	            9e90 [unknown] (/usr/bin/app)
	    7ffc0e95e790 [unknown] ([unknown])

app 1234/1240 100.001100:    1001001 cpu-clock:pppH: 
	            4010 inner->innermost (/usr/bin/app)
	            4020 std::vector<int>::push_back(int const&)+0x10 (/usr/bin/app)
	            4030 (anonymous namespace)::run(int) (/usr/bin/app)
	            4040 main (/usr/bin/app)

V8 WorkerThread 99 100.002100: 1001001 cpu-clock:pppH:
	            5000 net/http.(*Client).Do (/usr/bin/gosrv)
	            5010 "quoted'name" (/usr/bin/gosrv)

java 77/78 [001] 100.003100: 1001001 cpu-clock:pppH: 
	    7f722d142778 Ljava/io/PrintStream;::print (/tmp/perf-77.map)
	    7f722d142700 Interpreter (/tmp/perf-77.map)

app 1234 [000] 100.004100:     20000 page-faults: 
	            4040 main (/usr/bin/app)

app 1234 [000] 100.005100:    1001001 cpu-clock:pppH: 
	            4040 main (/usr/bin/app)

PERF
cat >"$TMP/want" <<'WANT'
V8_WorkerThread;quotedname;net/http.(*Client).Do 1
app;[unknown];[app];__strcmp_evex;native_safe_halt_[k] 1
app;main 1
app;main;std::vector<int>::push_back;inner;innermost 1
java;Interpreter;java/io/PrintStream:::print 1
WANT
"$FGBISECT" collapse "$TMP/p.txt" 2>"$TMP/err" | LC_ALL=C sort >"$TMP/got"
CHECKS=$((CHECKS + 1))
cmp -s "$TMP/want" "$TMP/got" || fail "perf script folding: $(diff "$TMP/want" "$TMP/got")"
check_eq "no warning" "$(cat "$TMP/err")" ""
out=$("$FGBISECT" share --json --frame main "$TMP/p.txt")
check_eq "perf format" "$(json_get 'j["profiles"][0]["format"]' <<<"$out")" perf-script
check_eq "perf total: the page-faults sample left out" "$(json_get 'j["profiles"][0]["total"]' <<<"$out")" 5
check_eq "inlined frame typed" "$("$FGBISECT" collapse --annotate "$TMP/p.txt" | grep -o 'innermost_\[i\]')" "innermost_[i]"
check_eq "JIT frame typed" "$("$FGBISECT" collapse --annotate "$TMP/p.txt" | grep -o 'Interpreter_\[j\]')" "Interpreter_[j]"

# perf script --header (and perf 3.x by default) starts with a '#' header
# longer than the first read looked at (here 1.6 KB: an event's id list per
# CPU); perf 3.x wrote sample headers without a time ("comm pid event:") and
# an empty symbol where it could not name one ("addr  (module)"), read as
# [unknown] is: [module basename].
{
	echo '# ========'
	echo '# captured on: Thu Dec  4 18:23:53 2014'
	echo '# perf version : 3.2.50'
	echo '# cmdline : /usr/bin/perf record -F 99 -p 3236 -g'
	printf '# event : name = cycles, type = 1, config = 0x0, id = {'
	for ((i = 15000; i < 15250; i++)); do printf ' %d,' "$i"; done
	echo ' 15250 }'
	echo '# HEADER_CPU_TOPOLOGY info available, use -I to display'
	echo '# ========'
	echo '#'
	printf 'java  3244 cpu-clock: \n\t    7f1e214c24d9 SpinPause (/opt/jdk/lib/server/libjvm.so)\n'
	printf '\t    7f1e21c41e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.15.so)\n\n'
	printf 'java  3278 cpu-clock: \n\t    7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)\n'
	printf '\t    7f1e11300e8b Lsun/nio/ch/FileDispatcherImpl;.write0(Ljava/io/FileDescriptor;JI)I (/tmp/perf-3236.map)\n\n'
} >"$TMP/old.txt"
CHECKS=$((CHECKS + 1))
[[ $(head -n 9 "$TMP/old.txt" | wc -c) -gt 1024 ]] || fail "the perf 3.x header should be longer than a first read"
cat >"$TMP/want" <<'WANT'
java;start_thread;SpinPause 1
java;sun/nio/ch/FileDispatcherImpl:.write0;[libc-2.15.so] 1
WANT
"$FGBISECT" collapse "$TMP/old.txt" 2>"$TMP/err" | LC_ALL=C sort >"$TMP/got"
CHECKS=$((CHECKS + 1))
cmp -s "$TMP/want" "$TMP/got" || fail "perf 3.x header and samples: $(diff "$TMP/want" "$TMP/got") $(cat "$TMP/err")"
check_eq "perf 3.x: event" "$("$FGBISECT" share --json --frame SpinPause "$TMP/old.txt" | json_get 'j["profiles"][0]["event"]')" cpu

# A sample cut before its closing blank line is dropped, with a warning; a
# line that is no perf output is an error naming it.
head -n 13 "$TMP/p.txt" >"$TMP/cut.txt"
"$FGBISECT" collapse "$TMP/cut.txt" >/dev/null 2>"$TMP/err"
CHECKS=$((CHECKS + 1))
grep -q "cut short" "$TMP/err" || fail "no warning for a cut sample: $(cat "$TMP/err")"
{ head -n 8 "$TMP/p.txt"; echo "garbage here"; tail -n +9 "$TMP/p.txt"; } >"$TMP/bad.txt"
rc=0
"$FGBISECT" top "$TMP/bad.txt" >/dev/null 2>"$TMP/err" || rc=$?
check_eq "garbage line: exit status" "$rc" 3
CHECKS=$((CHECKS + 1))
grep -q "line 9: not perf script output" "$TMP/err" || fail "garbage line: $(cat "$TMP/err")"

# A real recording, where this machine lets perf sample (perf_event_open).
if ! command -v perf >/dev/null; then
	echo "SKIP (part): no perf (install linux-perf): no real perf script output checked" >&2
elif ! perf record -q -F 499 -g -o "$TMP/perf.data" -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
	>/dev/null 2>"$TMP/perr"; then
	echo "SKIP (part): perf cannot record here ($(head -c 200 "$TMP/perr")): no real perf script output checked" >&2
else
	perf script -i "$TMP/perf.data" >"$TMP/real.txt" 2>/dev/null
	perf script report stackcollapse -i "$TMP/perf.data" 2>/dev/null | canonical >"$TMP/want"
	# perf's own folding names an unknown symbol "[unknown]" where
	# stackcollapse-perf.pl names its module: map those back.
	"$FGBISECT" collapse "$TMP/real.txt" | sed -E 's/(^|;)\[[^];]*\]/\1[unknown]/g' | canonical >"$TMP/got"
	CHECKS=$((CHECKS + 1))
	if [[ ! -s "$TMP/want" ]]; then
		fail "perf recorded nothing"
	elif ! cmp -s "$TMP/want" "$TMP/got"; then
		fail "real perf script: fgbisect differs from perf's stackcollapse: $(diff "$TMP/want" "$TMP/got" | head -4)"
	fi
fi
finish
