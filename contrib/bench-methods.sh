#!/usr/bin/env bash
# Benchmark: method histories for 10 hot frames over a 200-commit window of a
# 40,000-commit monorepo (merges every 40 commits, 2,000 Java classes of 12
# methods, the hot classes changed ten times as often as the others), built
# with git fast-import.  Times, as medians of RUNS interleaved rounds (one
# run of each command a round, so that the load weighs on all alike):
#   - one `fgbisect hotfiles --good --frame ×10` call (files and methods);
#   - the same call with --no-methods (the files' history only: hotfiles
#     before method histories);
#   - 10 calls of `git log -L :METHOD(:PATH good..bad` (the window only);
#   - 10 calls of `git log -L :METHOD(:PATH -n K bad`, K the window's
#     commits of that method plus one: each lists the method's commits in
#     the window and the last one before it, which is what the one call
#     answers for each frame (the number is taken from the window call
#     first, outside the timing);
#   - 10 calls with `-n1 bad` (the last change alone).
# It also checks that fgbisect's method commits are git's.
#
# usage: contrib/bench-methods.sh [FGBISECT] [RUNS]
#   FGBISECT  the binary (default: build/fgbisect); RUNS default 9.
#   BENCH_DIR keeps the repository there between runs (default: a temp dir);
#   BENCH_COMMITS (40000), BENCH_WINDOW (200);
#   BENCH_BASE another fgbisect (e.g. a build of main before method
#   histories) to time as "hotfiles before";
#   BENCH_CALLGRIND=1 also counts instructions (valgrind): the fgbisect calls
#   and the 10 window calls of git;
#   BENCH_GRAPH=1 writes a commit-graph first (as git gc does),
#   BENCH_GRAPH=paths one with changed-path Bloom filters (--changed-paths),
#   else the repository has none;
#   BENCH_PACK=fast-import keeps the pack git fast-import wrote (each version
#   of a file a delta of the one before, so reading history newest first
#   resolves long delta chains); by default the new repository is repacked
#   once (`git repack -adf`), as a clone or `git gc` leaves a repository.
set -euo pipefail

fgbisect=${1:-build/fgbisect}
runs=${2:-9}
commits=${BENCH_COMMITS:-40000}
window=${BENCH_WINDOW:-200}
[ -x "$fgbisect" ] || { echo "bench-methods: no binary at $fgbisect" >&2; exit 2; }
fgbisect=$(cd "$(dirname "$fgbisect")" && pwd)/$(basename "$fgbisect")
command -v python3 >/dev/null || { echo "bench-methods: python3 is needed to generate the repository" >&2; exit 2; }

if [ -n "${BENCH_DIR:-}" ]; then
	repo=$BENCH_DIR
	cleanup=
else
	repo=$(mktemp -d)
	cleanup=$repo
fi
tmpd=$(mktemp -d)
trap '[ -z "$cleanup" ] || rm -rf "$cleanup"; rm -rf "$tmpd"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

if [ ! -d "$repo/.git" ]; then
	echo "building $commits commits in $repo ..." >&2
	git init -q -b main "$repo"
	echo '*.java diff=java' >"$repo/.gitattributes"
	start=$(date +%s.%N)
	python3 - "$commits" "$window" <<'PY' | git -C "$repo" fast-import --quiet
import random, sys
commits, window = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(14)
NFILES, NMETHODS, HOT = 2000, 12, 10
out = sys.stdout.buffer
def path(i):
    return "mod%02d/src/main/java/io/example/p%03d/Class%04d.java" % (i % 40, i % 200, i)
class F:
    def __init__(self, i):
        self.i, self.imports = i, 2
        self.methods = [["        int x = a + %d;" % k, "        x = x * %d;" % (k + 1), "        return x;"]
                        for k in range(NMETHODS)]
    def text(self):
        lines = ["package io.example.p%03d;" % (self.i % 200), ""]
        lines += ["import java.util.List%d;" % k for k in range(self.imports)]
        lines += ["", "public class Class%04d {" % self.i, "    private int field;", ""]
        for k, body in enumerate(self.methods):
            lines += ["    public int m%02d(int a) {" % k] + body + ["    }", ""]
        return ("\n".join(lines) + "}\n").encode()
files = [F(i) for i in range(NFILES)]
hot = [i * (NFILES // HOT) + 7 for i in range(HOT)]
n = [0]
def change(f):
    """An edit somewhere in the file: mostly a method body, sometimes the imports."""
    n[0] += 1
    r = rnd.random()
    if r < 0.1:
        f.imports += 1
        return
    body = f.methods[rnd.randrange(NMETHODS)]
    if r < 0.7 or len(body) > 12:
        body[rnd.randrange(len(body) - 1)] = "        x = x + %d;" % n[0]
    else:
        body.insert(rnd.randrange(len(body)), "        x = x - %d;" % n[0])
def blob(data):
    out.write(b"data %d\n" % len(data) + data + b"\n")
t, mark = 1500000000, 0
def commit(ref, msg, parents, changed):
    global t, mark
    t += 60
    mark += 1
    out.write(b"commit %s\nmark :%d\ncommitter b <b@e> %d +0000\n" % (ref, mark, t))
    blob(msg.encode())
    if parents:
        out.write(b"from :%d\n" % parents[0])
        for p in parents[1:]:
            out.write(b"merge :%d\n" % p)
    for i in changed:
        out.write(b"M 100644 inline %s\n" % path(i).encode())
        blob(files[i].text())
    out.write(b"\n")
    return mark
def pick():
    # hot classes change ten times as often as the others (they are hot
    # in the profile because much of the code goes through them)
    return rnd.choice(hot) if rnd.random() < 0.05 else rnd.randrange(NFILES)
main = commit(b"refs/heads/main", "initial import", [], range(NFILES))
c = 1
while c < commits:
    if c == commits - window:
        out.write(b"reset refs/tags/good\nfrom :%d\n\n" % main)
    if c % 40 == 0 and c + 3 < commits:
        side = main
        for k in range(2):
            i = pick(); change(files[i])
            side = commit(b"refs/heads/side", "side %d.%d" % (c, k), [side], [i])
        i = pick(); change(files[i])
        main = commit(b"refs/heads/main", "merge %d" % c, [main, side], [i])
        c += 3
        continue
    changed = sorted({pick() for _ in range(1 + rnd.randrange(2))})
    for i in changed:
        change(files[i])
    main = commit(b"refs/heads/main", "change %d" % c, [main], changed)
    c += 1
PY
	git -C "$repo" reset -q --hard main
	git -C "$repo" add .gitattributes && git -C "$repo" -c user.name=b -c user.email=b@e commit -q -m "attributes"
	if [ "${BENCH_PACK:-}" != fast-import ]; then
		git -C "$repo" repack -q -a -d -f
		touch "$repo/.git/bench-repacked"
	fi
	echo "built in $(echo "$(date +%s.%N) - $start" | bc) s: $(git -C "$repo" rev-list --count main) commits," \
		"window $(git -C "$repo" rev-list --count good..main) commits" >&2
fi

rm -f "$repo/.git/objects/info/commit-graph"
case ${BENCH_GRAPH:-} in
1) git -C "$repo" commit-graph write --reachable --no-changed-paths 2>/dev/null; graph=yes ;;
paths) git -C "$repo" commit-graph write --reachable --changed-paths 2>/dev/null; graph="with changed paths" ;;
*) graph=no ;;
esac

# The 10 hot frames: method m05 of each hot class.
frames=() paths=() names=()
for k in 0 1 2 3 4 5 6 7 8 9; do
	i=$((k * 200 + 7))
	p=$(printf 'mod%02d/src/main/java/io/example/p%03d/Class%04d.java' $((i % 40)) $((i % 200)) $i)
	paths+=("$p")
	names+=(m05)
	cls=${p#*/src/main/java/}
	frames+=(--frame "${cls%.java}.m05")
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# The machine is shared: CPU time (user + system, children included) is the
# figure to compare; wall time is printed too.
TIMEFORMAT='%R %U %S'
# The timed commands run in rounds, one of each a round (interleaved, so
# that the machine's load weighs on all alike); each figure is the median
# of its $runs runs.
time_rounds() { # name...: each a function; $tmpd/NAME gets "WALL CPU" a run
	local i name
	for ((i = 0; i < runs; i++)); do
		for name in "$@"; do
			{ time "$name" >/dev/null; } 2>&1 | awk '{ printf "%s %.3f\n", $1, $2 + $3 }' >>"$tmpd/$name"
		done
	done
}
medians() { # name: "WALL CPU"
	echo "$(cut -d' ' -f1 "$tmpd/$1" | median) $(cut -d' ' -f2 "$tmpd/$1" | median)"
}
git_window() {
	for k in "${!paths[@]}"; do
		git -C "$repo" log --format=%H -s -L ":${names[$k]}(:${paths[$k]}" good..main
	done
}
git_last() {
	for k in "${!paths[@]}"; do
		git -C "$repo" log --format=%H -s -n1 -L ":${names[$k]}(:${paths[$k]}" main
	done
}
window_counts=()
for k in "${!paths[@]}"; do
	window_counts+=("$(git -C "$repo" log --format=%H -s -L ":${names[$k]}(:${paths[$k]}" good..main | grep -c . || true)")
done
git_equivalent() {
	for k in "${!paths[@]}"; do
		git -C "$repo" log --format=%H -s -n $((window_counts[k] + 1)) -L ":${names[$k]}(:${paths[$k]}" main
	done
}

# Correctness first: the window's method commits and the last change, as git says.
out=$("$fgbisect" hotfiles --repo "$repo" --good good --bad main --json "${frames[@]}")
bad=0
for k in "${!paths[@]}"; do
	f=${frames[$((2 * k + 1))]}
	want=$(git -C "$repo" log --format=%H -s -L ":${names[$k]}(:${paths[$k]}" good..main | sed '/^$/d' | sort | paste -sd, -)
	got=$(jq -r --arg f "$f" '.files[] | select(.frame == $f) | .method_commits | map(.commit) | sort | join(",")' <<<"$out")
	[ "$got" = "$want" ] || { echo "MISMATCH $f: window [$got], git log -L [$want]" >&2; bad=1; }
	want=$(git -C "$repo" log --format=%H -s -n1 -L ":${names[$k]}(:${paths[$k]}" main | sed '/^$/d')
	got=$(jq -r --arg f "$f" '.files[] | select(.frame == $f) | .method.last.commit' <<<"$out")
	[ "$got" = "$want" ] || { echo "MISMATCH $f: last $got, git log -L -n1 $want" >&2; bad=1; }
done
changed=$(jq '[.files[] | select(.method_changed_in_window)] | length' <<<"$out")
files_changed=$(jq '[.files[] | select(.changed_in_window)] | length' <<<"$out")
echo "10 hot frames: $files_changed files changed in the window, $changed of their methods" >&2

ours() { "$fgbisect" hotfiles --repo "$repo" --good good --bad main --json "${frames[@]}"; }
files_only() { "$fgbisect" hotfiles --repo "$repo" --good good --bad main --json --no-methods "${frames[@]}"; }
# A base that has method histories is asked for the files alone.
base_args=()
if [ -n "${BENCH_BASE:-}" ] && "$BENCH_BASE" hotfiles --help 2>&1 | grep -q -- --no-methods; then
	base_args=(--no-methods)
fi
base() { "$BENCH_BASE" hotfiles --repo "$repo" --good good --bad main --json "${base_args[@]}" "${frames[@]}"; }
timed=(ours files_only git_window git_last git_equivalent)
[ -z "${BENCH_BASE:-}" ] || timed+=(base)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
time_rounds "${timed[@]}"
read -r ours_w ours < <(medians ours)
read -r files_w files_only < <(medians files_only)
read -r gitw_w gitw < <(medians git_window)
read -r gitl_w gitl < <(medians git_last)
read -r gite_w gite < <(medians git_equivalent)
ratio() { echo "scale=2; $1 / $2" | bc | sed 's/^\./0./'; }
both=$(echo "$gitw + $gitl" | bc)
pack=$([ -e "$repo/.git/bench-repacked" ] && echo "repacked" || echo "fast-import's")
printf 'repository: %s commits, window %s commits, 10 hot frames, commit-graph: %s, %s pack; medians of %s interleaved rounds, CPU s (wall s); load %s before, %s after\n' \
	"$(git -C "$repo" rev-list --count main)" "$(git -C "$repo" rev-list --count good..main)" \
	"$graph" "$pack" "$runs" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'fgbisect hotfiles, files and methods:  %7.3f (%.3f)\n' "$ours" "$ours_w"
printf 'fgbisect hotfiles --no-methods:        %7.3f (%.3f)   methods and files: %sx this\n' "$files_only" "$files_w" \
	"$(ratio "$ours" "$files_only")"
printf '10 x git log -L good..bad (window):    %7.3f (%.3f)   %sx the one call\n' "$gitw" "$gitw_w" "$(ratio "$gitw" "$ours")"
printf '10 x git log -L -n1 bad (last change): %7.3f (%.3f)\n' "$gitl" "$gitl_w"
printf 'both (what the one call answers):      %7.3f          %sx the one call\n' "$both" "$(ratio "$both" "$ours")"
printf '10 x git log -L -n K bad (window+last): %7.3f (%.3f)   %sx the one call\n' "$gite" "$gite_w" "$(ratio "$gite" "$ours")"
if [ -n "${BENCH_BASE:-}" ]; then
	read -r base_w base < <(medians base)
	printf 'BENCH_BASE hotfiles (files only):      %7.3f (%.3f)   methods and files: %sx this\n' "$base" "$base_w" \
		"$(ratio "$ours" "$base")"
fi
if [ "${BENCH_CALLGRIND:-}" = 1 ] && command -v valgrind >/dev/null; then
	irefs() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*refs: *//p' | tr -d , | tail -1; }
	i_ours=$(irefs "$fgbisect" hotfiles --repo "$repo" --good good --bad main --json "${frames[@]}")
	i_files=$(irefs "$fgbisect" hotfiles --repo "$repo" --good good --bad main --json --no-methods "${frames[@]}")
	i_git=0
	for k in "${!paths[@]}"; do
		i=$(irefs git -C "$repo" log --format=%H -s -L ":${names[$k]}(:${paths[$k]}" good..main)
		i_git=$((i_git + i))
	done
	i_gite=0
	for k in "${!paths[@]}"; do
		i=$(irefs git -C "$repo" log --format=%H -s -n $((window_counts[k] + 1)) -L ":${names[$k]}(:${paths[$k]}" main)
		i_gite=$((i_gite + i))
	done
	printf 'instructions: one call %d, --no-methods %d (%sx), 10 x git log -L good..bad %d (%sx the one call),' \
		"$i_ours" "$i_files" "$(ratio "$i_ours" "$i_files")" "$i_git" "$(ratio "$i_git" "$i_ours")"
	printf ' 10 x git log -L -n K bad %d (%sx)\n' "$i_gite" "$(ratio "$i_gite" "$i_ours")"
	if [ -n "${BENCH_BASE:-}" ]; then
		i_base=$(irefs "$BENCH_BASE" hotfiles --repo "$repo" --good good --bad main --json "${base_args[@]}" \
			"${frames[@]}")
		printf 'instructions: BENCH_BASE hotfiles %d (the one call is %sx this)\n' "$i_base" "$(ratio "$i_ours" "$i_base")"
	fi
fi
exit $bad
