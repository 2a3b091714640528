#!/usr/bin/env bash
# ctest-labels: slow
# hotfiles on native profiles (src/git/native.h, src/git/history_native.c):
#
# 1. C: a small repository made here (a few files, commits that change one
#    function, a build file and an unrelated lock file in the window), its
#    program built at good and at bad with gcc -g and profiled by perf
#    (`perf record -g`, `perf script -F +srcline`); where perf cannot
#    record here, the perf-script text is written from the real binaries'
#    symbols and line tables (nm, addr2line) and the test says so.  hotfiles
#    names src/work.c for the grown function, the commit that changed it,
#    the method's commits equal to `git log -L` over its lines and to git's
#    own `git log -L :FUNC:FILE` with `*.c diff=cpp`; the decision is native
#    (no JVM) and lists the build files of the hot file's directories only.
# 2. Definition search (no file in the profile): typed names, a static
#    function defined in two files (both listed), a C++ member defined out
#    of its class and one inside it, a function nowhere (not in repository).
# 3. Go: a repository made here whose functions match a pprof profile with
#    file names (Go's absolute build paths), written by tests/tools/write_pprof.py;
#    the method against `git log -L :FUNC:FILE` with `*.go diff=golang`.
set -euo pipefail

source "$(dirname "$0")/../git_lib.sh"
source "$(dirname "$0")/../method_log.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: gcc not found"; exit 77; }

# git's own -L :FUNC:FILE (its funcname driver finds the range): the commits
# of good..bad, sorted, comma-separated.
git_L_window() { # repo func path good bad
	git -C "$1" log --format=%H -s -L ":$2:$3" "$4..$5" | sed '/^$/d' | sort | paste -sd, -
}

# ---- 1. C with perf ---------------------------------------------------------
repo="$tmp/c"
git init -q -b main "$repo"
cd "$repo"
printf '*.c diff=cpp\n*.h diff=cpp\n*.cc diff=cpp\n' >.gitattributes
mkdir -p src/alt docs
cat >src/work.c <<'EOF'
#include "work.h"

static long helper(long n)
{
	return n * 2;
}

long compute(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += helper(i);
	return s;
}

long other(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i ^ 3;
	return s;
}
EOF
printf 'long compute(long n);\nlong other(long n);\n' >src/work.h
cat >src/main.c <<'EOF'
#include "work.h"
int main(void)
{
	long t = 0;
	for (int k = 0; k < 300; k++)
		t += compute(100000) + other(100000);
	return (int)(t & 1);
}
EOF
# Another work.c, which a bare file name from perf also matches: it does
# not define helper, so the one that does is taken.
printf 'long helper_unused(void) { return 0; }\n' >src/alt/work.c
printf 'static int init_table(void)\n{\n\treturn 1;\n}\nint a(void) { return init_table(); }\n' >src/a.c
printf 'static int init_table(void)\n{\n\treturn 2;\n}\nint b(void) { return init_table(); }\n' >src/b.c
cat >src/cache.cc <<'EOF'
namespace ns {
class Cache {
public:
  int get(int k) const {
    return k + 1;
  }
  int put(int k);
};

int Cache::put(int k)
{
  return k;
}
}
EOF
printf 'all:\n\tgcc -g -O0 src/main.c src/work.c -o prog\n' >Makefile
printf 'sphinx==1\n' >docs/Pipfile.lock
g add -A
commit -m init
good=$(git rev-parse HEAD)
# The window: helper gets slower; the build file and an unrelated lock file change.
sed -i 's/return n \* 2;/long r = 0;\n\tfor (int j = 0; j < 12; j++)\n\t\tr += n * 2;\n\treturn r \/ 12;/' src/work.c
g add -A
commit -m "helper: loop"
slow=$(git rev-parse HEAD)
printf 'all:\n\tgcc -g -O1 src/main.c src/work.c -o prog\n' >Makefile
printf 'sphinx==2\n' >docs/Pipfile.lock
printf 'int Cache_put_was_here;\n' >>src/cache.cc
g add -A
commit -m "build: -O1; docs lock"
bad=$(git rev-parse HEAD)

build() { # rev out
	git -C "$repo" worktree add -q "$tmp/wt-$1" "$1"
	(cd "$tmp/wt-$1" && gcc -g -O0 src/main.c src/work.c -o "$2")
	git -C "$repo" worktree remove --force "$tmp/wt-$1"
}
mkdir -p "$tmp/good" "$tmp/bad"
build "$good" "$tmp/good/prog"
build "$bad" "$tmp/bad/prog"

# perf-script text from a binary's symbols and line table: one stack a
# sample (main → compute → helper, main → other), counts as given.
synth_perf() { # binary helper-count compute-self other
	local bin=$1 h=$2 c=$3 o=$4 sym addr line
	declare -A at src
	for sym in main compute helper other; do
		addr=$(nm "$bin" | awk -v s="$sym" '$3 == s { print $1 }')
		addr=$(printf '%x' $((16#$addr + 4)))
		at[$sym]=$addr
		src[$sym]=$(addr2line -e "$bin" "$addr" | sed 's,^.*/,,')
	done
	emit() { # count frames (leaf first)
		local n=$1 i f
		shift
		for ((i = 0; i < n; i++)); do
			printf 'prog 1 %d.000001:    1001001 cpu-clock:ppp: \n' "$((i + 1))"
			for f in "$@"; do
				printf '\t    %s %s+0x4 (%s)\n  %s\n' "${at[$f]}" "$f" "$bin" "${src[$f]}"
			done
			printf '\n'
		done
	}
	emit "$h" helper compute main
	emit "$c" compute main
	emit "$o" other main
}

perf_how="perf record"
# Two captures a side, as two nodes: with one profile a side the growers
# decide nothing (hotfiles_profiles.sh).
record() { # side capture
	command -v perf >/dev/null &&
		(cd "$tmp/$1" && perf record -q -F 4999 -g -o "$tmp/$2.data" -- ./prog) >/dev/null 2>&1 &&
		perf script -i "$tmp/$2.data" -F +srcline >"$tmp/$2.perf" 2>/dev/null
}
if ! { record good good && record good good2 && record bad bad && record bad bad2; }; then
	perf_how="perf-script text written from the binaries' symbols and line tables (perf cannot record here)"
	synth_perf "$tmp/good/prog" 200 300 400 >"$tmp/good.perf"
	synth_perf "$tmp/good/prog" 210 290 400 >"$tmp/good2.perf"
	synth_perf "$tmp/bad/prog" 700 300 400 >"$tmp/bad.perf"
	synth_perf "$tmp/bad/prog" 680 310 400 >"$tmp/bad2.perf"
fi
C_SIDES=("$tmp/good.perf" "$tmp/good2.perf" -- "$tmp/bad.perf" "$tmp/bad2.perf")
echo "C profiles: $perf_how"
grep -q 'work\.c:[0-9]' "$tmp/bad.perf" || fail "perf script -F +srcline printed no source line of work.c"

"$FGBISECT" hotfiles --json --good "$good" --bad "$bad" "${C_SIDES[@]}" >"$tmp/c.json"
j="$tmp/c.json"
grew=$(jq -r '[.grew[].frame] | index("helper") != null' "$j")
check_eq "helper grew" "$grew" true
if [[ $grew != true ]]; then # what the captures held (a flaky capture is a defect to find)
	"$FGBISECT" top -n 6 "$tmp/good.perf" >&2 || true
	"$FGBISECT" top -n 6 "$tmp/bad.perf" >&2 || true
	jq -c '{grew: [.grew[] | {frame, base, candidate, z}], separable}' "$j" >&2 || true
fi
check_eq "helper's file" "$(jq -r '[.files[] | select(.frame == "helper") | .path] | join(",")' "$j")" src/work.c
check_eq "helper's function" "$(jq -r '.files[] | select(.frame == "helper") | .function' "$j")" helper
check_eq "helper's method last" "$(jq -r '.files[] | select(.frame == "helper") | .method.last.commit' "$j")" "$slow"
check_eq "helper's method window" \
	"$(jq -r '.files[] | select(.frame == "helper") | [.method_commits[].commit] | join(",")' "$j")" "$slow"
check_eq "helper vs git -L :helper:" \
	"$(jq -r '.files[] | select(.frame == "helper") | [.method_commits[].commit] | sort | join(",")' "$j")" \
	"$(git_L_window "$repo" helper src/work.c "$good" "$bad")"
check_eq "helper's lines (git's cpp range: to the line before compute)" \
	"$(jq -c '.files[] | select(.frame == "helper") | .method.lines' "$j")" '[[3,10]]'
out=$(method_check "$j" "$repo" "$good" "$bad")
check_eq "methods against git log -L" "$out" ""
check_eq "the decision is native" "$(jq -r '.decision.native' "$j")" true
check_eq "the suspect" "$(jq -r '[.decision.suspects[].commit] | join(",")' "$j")" "$slow"
"$FGBISECT" hotfiles --good "$good" --bad "$bad" "${C_SIDES[@]}" >"$tmp/c.txt"
grep -q JVM "$tmp/c.txt" && fail "a native profile's decision speaks of the JVM"
grep -q 'the hot method changed in commit' "$tmp/c.txt" || fail "the hot function's change is not named"

# ---- 2. definition search ------------------------------------------------------
"$FGBISECT" hotfiles --json --good "$good" --bad "$bad" --frame helper --frame init_table \
	--frame 'ns::Cache::put(int)' --frame 'ns::Cache::get(int) const' --frame 'compute.constprop.0' \
	--frame printf >"$tmp/d.json"
j="$tmp/d.json"
check_eq "helper by search" "$(jq -r '[.files[] | select(.frame == "helper") | .path] | join(",")' "$j")" src/work.c
check_eq "init_table: both files" \
	"$(jq -r '[.files[] | select(.frame == "init_table") | "\(.path):\(.candidates)"] | join(",")' "$j")" \
	"src/a.c:2,src/b.c:2"
check_eq "Cache::put: out of its class" \
	"$(jq -c '.files[] | select(.frame == "ns::Cache::put(int)") | [.path, .method.lines]' "$j")" \
	'["src/cache.cc",[[10,14]]]'
check_eq "Cache::get: in its class, to its brace" \
	"$(jq -c '.files[] | select(.frame == "ns::Cache::get(int) const") | [.path, .method.lines, .method.status]' "$j")" \
	'["src/cache.cc",[[4,6]],"found"]'
check_eq "a GCC clone is its function" \
	"$(jq -r '.files[] | select(.frame == "compute.constprop.0") | .path' "$j")" src/work.c
check_eq "printf is not in the repository" \
	"$(jq -r '.files[] | select(.frame == "printf") | "\(.path) \(.function)"' "$j")" "null printf"
out=$(method_check "$j" "$repo" "$good" "$bad")
check_eq "searched methods against git log -L" "$out" ""
# git's :put: range from Cache::put's line: the same commits.
check_eq "Cache::put vs git -L :Cache..put:" \
	"$(jq -r '.files[] | select(.frame == "ns::Cache::put(int)") | [.method_commits[].commit] | sort | join(",")' "$j")" \
	"$(git_L_window "$repo" 'Cache..put' src/cache.cc "$good" "$bad")"

# The profile's file decides where the search cannot: init_table is
# defined in src/a.c and src/b.c, perf's source line names b.c.
perf_text() { # file samples-of-init_table samples-of-main
	local i
	for ((i = 0; i < $2 + $3; i++)); do
		printf 'prog 1 %d.000001:    1001001 cpu-clock:ppp: \n' "$((i + 1))"
		[ "$i" -ge "$2" ] || printf '\t    1139 init_table+0x4 (/tmp/prog)\n  /build/app/%s:2\n' "$1"
		printf '\t    1150 main+0x4 (/tmp/prog)\n  main.c:3\n\n'
	done
}
perf_text src/b.c 100 300 >"$tmp/it-base.perf"
perf_text src/b.c 400 0 >"$tmp/it-cand.perf"
check_eq "init_table: the file perf names" \
	"$("$FGBISECT" hotfiles --json --bad "$bad" "$tmp/it-base.perf" "$tmp/it-cand.perf" |
		jq -r '[.files[] | select(.frame == "init_table") | "\(.path):\(.candidates)"] | join(",")')" "src/b.c:1"
# diff --repo too, its profiles read on one thread and on two (the file
# goes along when a part's names are pooled).
for j in 1 2; do
	check_eq "diff --repo -j $j: init_table's file from perf" \
		"$("$FGBISECT" diff -j "$j" --json --repo . --bad "$bad" "$tmp/it-base.perf" "$tmp/it-cand.perf" |
			jq -r '[.grew[] | select(.frame == "init_table") | .files[] | "\(.path):\(.candidates)"] | join(",")')" \
		"src/b.c:1"
done

# The decision's build files: the hot files' directories and above (the
# root Makefile), not docs/.
"$FGBISECT" hotfiles --json --good "$good" --bad "$bad" "${C_SIDES[@]}" >"$tmp/c.json"
check_eq "native build files" "$(jq -r '.decision.build_files | join(",")' "$tmp/c.json")" Makefile

# Native frames outside the repository: in a C project, the decision is
# the build's (a library grew); in a JVM project, C++ frames are the JVM's.
printf 'prog;main;compute;helper 500\nprog;main;memcpy 100\n' >"$tmp/ext-base.collapsed"
printf 'prog;main;compute;helper 500\nprog;main;memcpy 600\n' >"$tmp/ext-cand.collapsed"
printf 'prog;main;compute;helper 490\nprog;main;memcpy 110\n' >"$tmp/ext-base2.collapsed"
printf 'prog;main;compute;helper 510\nprog;main;memcpy 590\n' >"$tmp/ext-cand2.collapsed"
EXT_SIDES=("$tmp/ext-base.collapsed" "$tmp/ext-base2.collapsed" -- "$tmp/ext-cand.collapsed" "$tmp/ext-cand2.collapsed")
"$FGBISECT" hotfiles --json --hot 1 --good "$good" --bad "$bad" "${EXT_SIDES[@]}" >"$tmp/ext.json"
check_eq "memcpy: external, native" "$(jq -r '"\(.decision.kind) \(.decision.native)"' "$tmp/ext.json")" "external true"
"$FGBISECT" hotfiles --hot 1 --good "$good" --bad "$bad" "${EXT_SIDES[@]}" |
	grep -q 'a library, the runtime or the kernel' || fail "a native external decision names no library"
jrepo="$tmp/java"
git init -q -b main "$jrepo"
mkdir -p "$jrepo/src/main/java/p"
printf 'package p;\nclass A {}\n' >"$jrepo/src/main/java/p/A.java"
printf 'int memcpy_unused;\n' >"$jrepo/native.c"
(cd "$jrepo" && g add -A && commit -m one && printf '<project/>\n' >pom.xml && g add -A && commit -m two)
printf 'java;p/A.run;G1ParScanThreadState::trim_queue() 100\njava;p/A.run 500\n' >"$tmp/jvm-base.collapsed"
printf 'java;p/A.run;G1ParScanThreadState::trim_queue() 500\njava;p/A.run 100\n' >"$tmp/jvm-cand.collapsed"
printf 'java;p/A.run;G1ParScanThreadState::trim_queue() 110\njava;p/A.run 490\n' >"$tmp/jvm-base2.collapsed"
printf 'java;p/A.run;G1ParScanThreadState::trim_queue() 490\njava;p/A.run 110\n' >"$tmp/jvm-cand2.collapsed"
"$FGBISECT" hotfiles --json --hot 1 --repo "$jrepo" --good HEAD~1 "$tmp/jvm-base.collapsed" "$tmp/jvm-base2.collapsed" -- \
	"$tmp/jvm-cand.collapsed" "$tmp/jvm-cand2.collapsed" >"$tmp/jvm.json"
check_eq "a JVM's C++ frame: not native" "$(jq -r '"\(.decision.kind) \(.decision.native)"' "$tmp/jvm.json")" \
	"external false"

# ---- 3. Go, pprof with file names ----------------------------------------------
repo="$tmp/go"
git init -q -b main "$repo"
cd "$repo"
printf '*.go diff=golang\n' >.gitattributes
mkdir -p pkg/server cmd/app web
printf 'module example.com/shop\n\ngo 1.21\n' >go.mod
printf 'example.com/dep v1.0.0 h1:x\n' >go.sum
printf 'lodash@1\n' >web/yarn.lock
cat >pkg/server/server.go <<'EOF'
package server

func (s *Server) Handle(req int) int {
	f := func() int { return req * 2 }
	return f()
}

type Server struct {
	n int
}

func New() *Server {
	return &Server{}
}
EOF
cat >cmd/app/main.go <<'EOF'
package main

import "example.com/shop/pkg/server"

func main() {
	s := server.New()
	for i := 0; i < 10; i++ {
		s.Handle(i)
	}
}
EOF
g add -A
commit -m init
ggood=$(git rev-parse HEAD)
sed -i 's/return req \* 2/return req * 2 + len(make([]byte, 1<<10))/' pkg/server/server.go
g add -A
commit -m "server: allocate in Handle"
gslow=$(git rev-parse HEAD)
printf 'example.com/dep v1.1.0 h1:y\n' >go.sum
printf 'lodash@2\n' >web/yarn.lock
g add -A
commit -m "deps"
gbad=$(git rev-parse HEAD)

H='example.com/shop/pkg/server.(*Server).Handle'
printf '%s\t/home/dev/shop/pkg/server/server.go\nmain.main\t/home/dev/shop/cmd/app/main.go\n%s.func1\t/home/dev/shop/pkg/server/server.go\nruntime.mallocgc\t/usr/local/go/src/runtime/malloc.go\n' \
	"$H" "$H" >"$tmp/files.tsv"
printf 'app;runtime.main;main.main;%s 300\napp;runtime.main;main.main;%s;%s.func1 100\napp;runtime.main;main.main 600\n' \
	"$H" "$H" "$H" >"$tmp/base.collapsed"
printf 'app;runtime.main;main.main;%s 300\napp;runtime.main;main.main;%s;%s.func1;runtime.mallocgc 500\napp;runtime.main;main.main 200\n' \
	"$H" "$H" "$H" >"$tmp/cand.collapsed"
W="$FG_SOURCE_DIR/tests/tools/write_pprof.py"
# A second node a side: the same stacks, a few samples moved.
sed 's/ 600$/ 590/' "$tmp/base.collapsed" >"$tmp/base2.collapsed"
sed 's/ 200$/ 210/' "$tmp/cand.collapsed" >"$tmp/cand2.collapsed"
for f in base base2 cand cand2; do
	python3 "$W" --packed --files "$tmp/files.tsv" "$tmp/$f.collapsed" "$tmp/$f.pb.gz"
done
"$FGBISECT" hotfiles --json --good "$ggood" --bad "$gbad" "$tmp/base.pb.gz" "$tmp/base2.pb.gz" -- \
	"$tmp/cand.pb.gz" "$tmp/cand2.pb.gz" >"$tmp/go.json"
j="$tmp/go.json"
check_eq "Go: Handle's file" "$(jq -r "[.files[] | select(.frame == \"$H\") | .path] | join(\",\")" "$j")" \
	pkg/server/server.go
check_eq "Go: the closure is Handle's" "$(jq -r ".files[] | select(.frame == \"$H.func1\") | .function" "$j")" Handle
check_eq "Go: Handle's lines (git's golang range)" \
	"$(jq -c ".files[] | select(.frame == \"$H\") | .method.lines" "$j")" '[[3,7]]'
check_eq "Go: Handle's commits" \
	"$(jq -r ".files[] | select(.frame == \"$H\") | [.method_commits[].commit] | join(\",\")" "$j")" "$gslow"
check_eq "Go: Handle vs git -L :Handle:" \
	"$(jq -r ".files[] | select(.frame == \"$H\") | [.method_commits[].commit] | sort | join(\",\")" "$j")" \
	"$(git_L_window "$repo" Handle pkg/server/server.go "$ggood" "$gbad")"
check_eq "Go: runtime.mallocgc is not the repository's" \
	"$(jq -r '.files[] | select(.frame == "runtime.mallocgc") | .path' "$j")" null
out=$(method_check "$j" "$repo" "$ggood" "$gbad")
check_eq "Go methods against git log -L" "$out" ""
check_eq "Go: native decision" "$(jq -r '.decision.native' "$j")" true
check_eq "Go: build files of the module, not web/" "$(jq -r '.decision.build_files | join(",")' "$j")" go.sum
# A Go name that reads as a Java class (`server.New`: class New of package
# server) is a function once a Go file defines it.
check_eq "Go: server.New is no class" \
	"$("$FGBISECT" hotfiles --json --repo "$repo" --frame server.New | jq -c '.files[] | [.class, .function, .path]')" \
	'[null,"New","pkg/server/server.go"]'
# A profile's JDK frame is Java's even though no file holds its class: the
# Go function of the same name is not its definition (the JDK's
# AbstractQueuedSynchronizer.enqueue was once found in a vendored gRPC's
# controlbuf.go); a lower-case package (`shop/queue.enqueue`) may be Go's.
printf 'package server\n\nfunc enqueue(n int) int {\n\treturn n + 1\n}\n' >pkg/server/queue.go
g add -A
commit -m "server: a queue"
Q='java/util/concurrent/locks/AbstractQueuedSynchronizer.enqueue'
printf 'app;%s 10\napp;shop/queue.enqueue 10\napp 500\n' "$Q" >"$tmp/q-base.collapsed"
printf 'app;%s 400\napp;shop/queue.enqueue 300\napp 500\n' "$Q" >"$tmp/q-cand.collapsed"
check_eq "a JDK frame is no Go function" \
	"$("$FGBISECT" hotfiles --json --repo "$repo" "$tmp/q-base.collapsed" "$tmp/q-cand.collapsed" |
		jq -c '[.files[] | [.frame, .class, .function, .path]]')" \
	"[[\"$Q\",\"java/util/concurrent/locks/AbstractQueuedSynchronizer\",null,null],[\"shop/queue.enqueue\",null,\"enqueue\",\"pkg/server/queue.go\"]]"

finish
