# What real files showed (issue #10): inputs that browsers or other tools take
# and fgbisect once refused or misread, each written here from a description
# of what such files hold (no copies of real files).
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run_fg NAME ARGS...: fgbisect ARGS, stdout in $TMP/NAME.out, stderr in
# $TMP/NAME.err; prints the exit status.
run_fg() {
	local name=$1 rc=0
	shift
	"$FGBISECT" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
	echo "$rc"
}

# has NAME FILE TEXT: FILE holds TEXT.
has() {
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$3" "$2" || fail "$1: $(basename "$2") lacks '$3': $(head -c 400 "$2")"
}

# ---- a 2.x page whose writer indents the root line and the footer -----------
# (third-party writers of the template; browsers run the calls all the same)
# v2_page FILE LINE...: a 2.x page (its template's code left out) with these
# lines as its frame block and footer.
v2_page() {
	local file=$1
	shift
	{
		printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n<h1>CPU profile</h1>\n'
		printf '<canvas id="canvas"></canvas>\n<script>\n'
		printf '\tfunction f(level, left, width, type, title, inln, c1, int) {\n\t\tlevels[level].push(...);\n\t}\n'
		printf '%s\n' "$@"
		printf '</script></body></html>\n'
	} >"$file"
}
v2_page "$TMP/indented.html" "    f(0,0,10,3,'all')" "    f(1,0,10,1,'io/example/Main.run')" \
	"    f(2,0,4,1,'io/example/Store.get')" "    f(2,4,3,1,'io/example/Store.put')" "    f(3,4,2,3,'memcpy')" \
	"" "    search();"
check_eq "indented 2.x page: share" "$(run_fg ind share -f Store "$TMP/indented.html")" 0
has "indented 2.x page" "$TMP/ind.out" "Store                                             7   70.00%"
check_eq "indented 2.x page: collapse" "$(run_fg indc collapse "$TMP/indented.html")" 0
check_eq "indented 2.x page: the stacks" "$(cat "$TMP/indc.out")" "io/example/Main.run 3
io/example/Main.run;io/example/Store.get 4
io/example/Main.run;io/example/Store.put 1
io/example/Main.run;io/example/Store.put;memcpy 2"

# ---- an empty graph: the converter's page for zero samples ------------------
# (the cpool holds only 'all'; the root inherits width0 = 0)
cat >"$TMP/empty.html" <<'HTML'
<!DOCTYPE html>
<html><body><h1>Flame Graph</h1>
<script>
const cpool = [
'all'
];
unpack(cpool);

n(2)

search();
</script></body></html>
HTML
for c in "share -f x" top collapse protocol subsystems; do
	# shellcheck disable=SC2086
	check_eq "empty graph: $c" "$(run_fg e $c "$TMP/empty.html")" 3
	has "empty graph: $c" "$TMP/e.err" "no samples: an empty flame graph (its root has width 0)"
	check_eq "empty graph: $c prints nothing" "$(cat "$TMP/e.out")" ""
done
# No share of an empty profile as a number: the JSON is the error object.
check_eq "empty graph: share --json" "$(run_fg ej share --json -f x "$TMP/empty.html")" 3
check_eq "empty graph: share --json" "$(json_get 'sorted(j.keys()), j["error"]["code"]' <"$TMP/ej.out")" \
	"(['error'], 'invalid-profile')"
check_eq "empty graph: top --json" "$(run_fg tj top --json "$TMP/empty.html")" 3
check_eq "empty graph: top --json" "$(json_get 'sorted(j.keys())' <"$TMP/tj.out")" "['error']"
# A verdict skips the build, with the reason.
git init -q "$TMP/repo"
git -C "$TMP/repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
head=$(git -C "$TMP/repo" rev-parse HEAD)
printf '2026-11-04 %s - - cpu %s\n' "${head:0:10}" "$TMP/empty.html" >"$TMP/runs.txt"
rc=0
(cd "$TMP/repo" && "$FGBISECT" run --frame x --threshold 5 --runs "$TMP/runs.txt") >"$TMP/v.out" 2>"$TMP/v.err" || rc=$?
check_eq "empty graph: run skips" "$rc" 125
has "empty graph: run says why" "$TMP/v.err" "no samples: an empty flame graph"

# ---- async-profiler's --diff collapsed output: stack BASE CURRENT ----------
# (jfrconv --diff base current out.collapsed: self counts of both profiles;
# difffolded.pl writes the same shape)
cat >"$TMP/diff.collapsed" <<'TXT'
io/example/Main.run;io/example/Store.get 30 10
io/example/Main.run;io/example/Store.put 10 60
io/example/Main.run;io/example/Cache.hit 0 20
io/example/Main.run 60 10
TXT
check_eq "diff collapsed: share of CURRENT" "$(run_fg d share --json -f Store -f Cache "$TMP/diff.collapsed")" 0
check_eq "diff collapsed: CURRENT counts" \
	"$(json_get '[j["profiles"][0]["total"]] + [m["samples"] for m in j["profiles"][0]["matches"]]' <"$TMP/d.out")" \
	"[100, 70, 20]"
check_eq "diff collapsed: share of BASE" "$(run_fg db share --json --base-column -f Store -f Cache "$TMP/diff.collapsed")" 0
check_eq "diff collapsed: BASE counts" \
	"$(json_get '[j["profiles"][0]["total"]] + [m["samples"] for m in j["profiles"][0]["matches"]]' <"$TMP/db.out")" \
	"[100, 40, 0]"
# No count glued onto a leaf: collapse writes the names as they are.
check_eq "diff collapsed: collapse" "$(run_fg dc collapse "$TMP/diff.collapsed")" 0
check_eq "diff collapsed: collapse names" "$(cat "$TMP/dc.out")" "io/example/Main.run 10
io/example/Main.run;io/example/Cache.hit 20
io/example/Main.run;io/example/Store.get 10
io/example/Main.run;io/example/Store.put 60"
check_eq "diff collapsed: top" "$(run_fg dt top --json -n 0 "$TMP/diff.collapsed")" 0
check_eq "diff collapsed: top names" "$(json_get 'sorted(f["frame"] for f in j["frames"])' <"$TMP/dt.out")" \
	"['io/example/Cache.hit', 'io/example/Main.run', 'io/example/Store.get', 'io/example/Store.put']"
# A file mixing one- and two-count lines is an error naming the file and line.
{ cat "$TMP/diff.collapsed"; echo "io/example/Main.run;io/example/Store.scan 5"; } >"$TMP/mixed.collapsed"
check_eq "mixed counts" "$(run_fg m share -f Store "$TMP/mixed.collapsed")" 3
has "mixed counts" "$TMP/m.err" "$TMP/mixed.collapsed: line 5: one count after lines of two (stack BASE CURRENT)"
{ echo "io/example/Main.run 5"; cat "$TMP/diff.collapsed"; } >"$TMP/mixed2.collapsed"
check_eq "mixed counts (one first)" "$(run_fg m2 top "$TMP/mixed2.collapsed")" 3
has "mixed counts (one first)" "$TMP/m2.err" "$TMP/mixed2.collapsed: line 2: two counts (stack BASE CURRENT) after lines of one"
# --base-column on a file of one count a line: a usage error.
printf 'a;b 3\n' >"$TMP/one.collapsed"
check_eq "--base-column, one count" "$(run_fg bc share --base-column -f b "$TMP/one.collapsed")" 2
has "--base-column, one count" "$TMP/bc.err" "--base-column reads the first of two counts a line"

# ---- a root wider than its children: samples that stopped at the root ------
# (a page whose root has self samples: 2 of 10 here)
v2_page "$TMP/rootself.html" "f(0,0,10,3,'all')" "f(1,2,8,1,'io/example/Main.run')" \
	"f(2,2,3,1,'io/example/Store.get')" "search();"
check_eq "root self: share keeps them" "$(run_fg rs share --json -f Main "$TMP/rootself.html")" 0
check_eq "root self: share total" "$(json_get 'j["profiles"][0]["total"], j["profiles"][0]["matches"][0]["share"]' <"$TMP/rs.out")" \
	"(10, 80.0)"
check_eq "root self: top keeps them" "$(run_fg rt top --json "$TMP/rootself.html")" 0
check_eq "root self: top total" "$(json_get 'j["total"], j["frames"][0]["share"]' <"$TMP/rt.out")" "(10, 80.0)"
for mode in "" --unsorted --normalise; do
	# shellcheck disable=SC2086
	check_eq "root self: collapse $mode" "$(run_fg rc collapse $mode "$TMP/rootself.html")" 0
	check_eq "root self: collapse $mode writes 8" "$(awk '{t += $NF} END {print t}' "$TMP/rc.out")" 8
	has "root self: collapse $mode warns" "$TMP/rc.err" \
		"rootself.html: 2 of 10 samples stop at the root (no frame below it): collapsed stacks cannot hold an empty stack"
done
# No warning when nothing stops at the root.
check_eq "no root self: collapse" "$(run_fg rn collapse "$TMP/indented.html")" 0
check_eq "no root self: no warning" "$(cat "$TMP/rn.err")" ""

# ---- one unreadable file among several -------------------------------------
# (share A B C: the error of the one, the answers of the others, then the
# exit status of that error)
for j in 1 2; do
	check_eq "share -j $j, one missing" "$(run_fg sm share -j $j -f Store "$TMP/indented.html" "$TMP/nope.html" "$TMP/diff.collapsed")" 4
	check_eq "share -j $j, one missing: answers" "$(grep -c '^  Store ' "$TMP/sm.out")" 2
	check_eq "share -j $j, one missing: the error" "$(cat "$TMP/sm.err")" "fgbisect: $TMP/nope.html: cannot open: No such file or directory"
done
check_eq "share, one invalid" "$(run_fg si share -f Store "$TMP/indented.html" "$TMP/empty.html")" 3
has "share, one invalid: the answer" "$TMP/si.out" "Store                                             7   70.00%"
has "share, one invalid: the error" "$TMP/si.err" "empty.html: line 9: no samples"
# Two failures: both named in order; the first gives the status.
check_eq "share, two failing" "$(run_fg s2 share -f Store "$TMP/empty.html" "$TMP/indented.html" "$TMP/nope.html")" 3
check_eq "share, two failing: errors" "$(sed 's/:.*//' "$TMP/s2.err")" "fgbisect
fgbisect"
check_eq "share, two failing: order" "$(grep -o '[a-z]*\.html' "$TMP/s2.err")" "empty.html
nope.html"
# --json: valid, the error an object in its place among the profiles.
check_eq "share --json, one missing" "$(run_fg sj share --json -f Store "$TMP/indented.html" "$TMP/nope.html" "$TMP/diff.collapsed")" 4
check_eq "share --json, one missing: result" \
	"$(json_get '[p.get("total") or p["error"]["code"] for p in j["profiles"]], j["profiles"][1]["error"]["source"].endswith("nope.html")' <"$TMP/sj.out")" \
	"([10, 'fetch', 100], True)"
# Every profile failing: the errors, the first as the JSON output (as with one).
check_eq "share --json, all failing" "$(run_fg sa share --json -f Store "$TMP/nope.html" "$TMP/empty.html")" 4
check_eq "share --json, all failing: output" "$(json_get 'list(j), j["error"]["code"]' <"$TMP/sa.out")" "(['error'], 'fetch')"
check_eq "share --json, all failing: stderr" "$(wc -l <"$TMP/sa.err")" 2
# protocol has the same shape.
check_eq "protocol, one missing" "$(run_fg pm protocol "$TMP/indented.html" "$TMP/nope.html" "$TMP/diff.collapsed")" 4
check_eq "protocol, one missing: answers" "$(grep -c '  unknown  event ' "$TMP/pm.out")" 2
has "protocol, one missing: the error" "$TMP/pm.err" "nope.html: cannot open: No such file or directory"
check_eq "protocol --json, one invalid" "$(run_fg pj protocol --json "$TMP/empty.html" "$TMP/indented.html")" 3
check_eq "protocol --json, one invalid: result" \
	"$(json_get '[p.get("protocol") or p["error"]["code"] for p in j["profiles"]]' <"$TMP/pj.out")" "['invalid-profile', 'unknown']"

# ---- normalisation: deleted temp libraries, unnamed-package lambdas --------
# (two runs of a Main class with lambdas and Netty's epoll library, which
# Netty deletes once loaded: the kernel's maps say "(deleted)")
cat >"$TMP/run1.collapsed" <<'TXT'
Main.main;Main$$Lambda$14.0x00007f1084016480.run;/tmp/libnetty_transport_native_epoll_x86_64123456789.so (deleted) 3
Main.main;Main$$Lambda$15.0x00007f1084016a00.run 2
TXT
cat >"$TMP/run2.collapsed" <<'TXT'
Main.main;Main$$Lambda$123/0x0000000800c01234.run;[libnetty_transport_native_epoll_x86_64987654321.so (deleted)] 4
Main.main;Main$$Lambda.0x0000000800c05678.run;/tmp/libnetty_transport_native_epoll_x86_645551234567890.so 1
TXT
check_eq "normalise run 1" "$(run_fg n1 collapse --normalise "$TMP/run1.collapsed")" 0
check_eq "normalise run 1: names" "$(cat "$TMP/n1.out")" 'Main.main;Main$$Lambda.run 2
Main.main;Main$$Lambda.run;/tmp/libnetty_transport_native_epoll_x86_64.so 3'
check_eq "normalise run 2" "$(run_fg n2 collapse --normalise "$TMP/run2.collapsed")" 0
check_eq "normalise run 2: names" "$(cat "$TMP/n2.out")" 'Main.main;Main$$Lambda.run;/tmp/libnetty_transport_native_epoll_x86_64.so 1
Main.main;Main$$Lambda.run;[libnetty_transport_native_epoll_x86_64.so] 4'
# top counts the names as one (normalised unless --raw).
check_eq "top, normalised" "$(run_fg nt top --json "$TMP/run1.collapsed")" 0
check_eq "top, normalised: the lambda" "$(json_get '[(f["frame"], f["samples"]) for f in j["frames"] if "Lambda" in f["frame"]]' <"$TMP/nt.out")" \
	"[('Main\$\$Lambda.run', 5)]"
check_eq "share of a pattern on the normalised name" "$(run_fg ns share --json -f 'Main$$Lambda.run' "$TMP/run2.collapsed")" 0
check_eq "share of a pattern on the normalised name: samples" "$(json_get 'j["profiles"][0]["matches"][0]["samples"]' <"$TMP/ns.out")" 5

# ---- formats not read: the message names the format and its converter ------
printf 'PERFILE2\x68\0\0\0\0\0\0\0' >"$TMP/perf.data"
check_eq "perf.data" "$(run_fg pd share -f x "$TMP/perf.data")" 3
has "perf.data" "$TMP/pd.err" "perf.data: a perf.data file (perf record's binary output): not read; write its text with 'perf script -i FILE > FILE.txt'"
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "profiles": []}\n' | gzip >"$TMP/py.speedscope.json.gz"
check_eq "speedscope (gzip)" "$(run_fg sp top "$TMP/py.speedscope.json.gz")" 3
has "speedscope (gzip)" "$TMP/sp.err" "speedscope JSON: not read; ask the profiler for collapsed stacks instead (py-spy record --format raw"
check_eq "speedscope --json" "$(run_fg spj top --json "$TMP/py.speedscope.json.gz")" 3
check_eq "speedscope --json" "$(json_get 'j["error"]["code"]' <"$TMP/spj.out")" "invalid-profile"

# perf script shows a deleted mapping as "(/tmp/libfoo.so (deleted))": the
# module is the balanced group, so the symbol keeps its name and [unknown]
# its library (stackcollapse-perf.pl's greedy pattern mangles both).
printf '%s\n' 'java 1234/1240 [001] 100.000001: 1000000 cpu-clock:' \
	'	    7f0000001234 [unknown] (/tmp/libnetty_transport_native_epoll_x86_64123456789.so (deleted))' \
	'	    7f0000005678 Java_io_netty_Native_epollWait+0x12 (/tmp/libnetty_transport_native_epoll_x86_64123456789.so (deleted))' \
	'	    7f0000009999 start_thread+0x1 (/usr/lib/x86_64-linux-gnu/libc.so.6)' '' >"$TMP/deleted.perf"
check_eq "perf script, deleted mapping" "$(run_fg pf collapse "$TMP/deleted.perf")" 0
check_eq "perf script, deleted mapping: names" "$(cat "$TMP/pf.out")" \
	"java;start_thread;Java_io_netty_Native_epollWait;[libnetty_transport_native_epoll_x86_64123456789.so] 1"
check_eq "perf script, deleted mapping, normalised" "$(run_fg pfn collapse --normalise "$TMP/deleted.perf")" 0
check_eq "perf script, deleted mapping, normalised: names" "$(cat "$TMP/pfn.out")" \
	"java;start_thread;Java_io_netty_Native_epollWait;[libnetty_transport_native_epoll_x86_64.so] 1"

# ---- frame calls with arguments the converter does not write --------------
# (a fork of async-profiler's converter adds a sixth number to every f()
# call; the page's JavaScript, f(key, level, left, width, inln, c1, int),
# ignores what it does not name: read as it reads them, with a warning.)
sed -E 's/^f\(([0-9]+),([0-9]+),([0-9]+)\)$/f(\1,\2,\3,0)/; s/^f\(([0-9,]+)\)$/f(\1,0,42)/' \
	"$FG_SOURCE_DIR/fixtures/tiny-3x.html" >"$TMP/six.html"
check_eq "six-argument f() calls in the page" "$(grep -cE '^f\([0-9]+(,[0-9]+){5}\)$' "$TMP/six.html")" \
	"$(grep -c '^f(' "$FG_SOURCE_DIR/fixtures/tiny-3x.html")"
"$FGBISECT" collapse "$FG_SOURCE_DIR/fixtures/tiny-3x.html" >"$TMP/six.want"
check_eq "f() calls of six arguments" "$(run_fg six collapse "$TMP/six.html")" 0
check_eq "f() calls of six arguments: the stacks" "$(cat "$TMP/six.out")" "$(cat "$TMP/six.want")"
has "f() calls of six arguments: warning" "$TMP/six.err" "f() calls of 6 arguments, a number async-profiler's converter does not write"
# u() and n() of three, and an f() of 80 numbers (past what a call may hold)
sed -E '0,/^u\(([0-9]+)\)$/s//u(\1,0,9)/' "$FG_SOURCE_DIR/fixtures/tiny-3x.html" >"$TMP/u3.html"
check_eq "u() of three arguments" "$(run_fg u3 collapse "$TMP/u3.html")" 0
check_eq "u() of three arguments: the stacks" "$(cat "$TMP/u3.out")" "$(cat "$TMP/six.want")"
has "u() of three arguments: warning" "$TMP/u3.err" "u() calls of 3 arguments"
sed -E "s/^f\\(([0-9,]+)\\)\$/f(\\1$(printf ',1%.0s' {1..80}))/" "$FG_SOURCE_DIR/fixtures/tiny-3x.html" >"$TMP/f80.html"
check_eq "f() of more than 64 arguments" "$(run_fg f80 collapse "$TMP/f80.html")" 3
has "f() of more than 64 arguments: error" "$TMP/f80.err" "malformed frame call"
if [[ -n "${FG_SHARED_FIXTURES:-}" && -f "$FG_SHARED_FIXTURES/large/javac-large.html.gz" ]]; then
	# The real large page read on two threads: the odd call only in its
	# last frame line, which the second thread reads.
	gzip -dc "$FG_SHARED_FIXTURES/large/javac-large.html.gz" >"$TMP/large.html"
	last=$(grep -n '^[fun](' "$TMP/large.html" | tail -n 1 | cut -d: -f1)
	sed -E "${last}s/\\)\$/,0,0,0,0,0,0,0)/" "$TMP/large.html" >"$TMP/large-odd.html"
	"$FGBISECT" top -j 1 -n 20 "$TMP/large.html" >"$TMP/large.want"
	for j in 1 2; do
		check_eq "large page, last call odd, -j $j" "$(run_fg lo top -j $j -n 20 "$TMP/large-odd.html")" 0
		check_eq "large page, last call odd, -j $j: the answer" "$(sed 1d "$TMP/lo.out")" "$(sed 1d "$TMP/large.want")"
		has "large page, last call odd, -j $j: warning" "$TMP/lo.err" "() calls of"
	done
else
	echo "SKIP (part): the shared large page is not there: an odd call read on the second thread not checked" >&2
fi

# ---- binary profiles larger than the line cap -------------------------------
# (a pprof message and a JFR chunk are read whole: async-profiler's chunks
# reach 100 MB by default, more than the 64 MiB --max-line; --max-size
# bounds them instead.  Made small here: 40,000 distinct stacks against
# --max-line 256K.)
python3 -c 'import sys
for i in range(40000): print("io/example/Main.run;io/example/Worker%d.step;io/example/Store%d.get %d" % (i % 977, i, 1 + i % 3))' >"$TMP/wide.collapsed"
python3 "$FG_SOURCE_DIR/tests/tools/write_pprof.py" "$TMP/wide.collapsed" "$TMP/wide.pb"
python3 "$FG_SOURCE_DIR/tests/tools/write_jfr.py" "$TMP/wide.collapsed" "$TMP/wide.jfr"
for f in wide.pb wide.jfr; do
	check_eq "$f is larger than 256K" "$(($(wc -c <"$TMP/$f") > 262144))" 1
	check_eq "$f under --max-line 256K" "$(run_fg w share --json --max-line 256K -f Store1 "$TMP/$f")" 0
	check_eq "$f under --max-line 256K: the answer" "$(json_get 'j["profiles"][0]["total"], j["profiles"][0]["matches"][0]["samples"]' <"$TMP/w.out")" \
		"$(awk '{t += $NF} /Store1/ {h += $NF} END {printf "(%d, %d)", t, h}' "$TMP/wide.collapsed")"
	check_eq "$f over --max-size" "$(run_fg ws share --max-size 100K -f Store1 "$TMP/$f")" 3
	has "$f over --max-size" "$TMP/ws.err" "content is larger than --max-size (102400 bytes)"
done

finish
