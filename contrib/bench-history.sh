#!/usr/bin/env bash
# Benchmark: one `fgbisect hotfiles` call for 20 files against 20 calls of
# `git log -1 -- PATH`, on a synthetic repository of about 20,000 commits
# and 5,000 files built with git fast-import.  Prints the medians of RUNS runs
# and the ratio.
#
# usage: contrib/bench-history.sh [FGBISECT] [RUNS]
#   FGBISECT  the binary (default: build/fgbisect); RUNS default 9.
#   BENCH_DIR keeps the repository there between runs (default: a temp dir).
set -euo pipefail

fgbisect=${1:-build/fgbisect}
runs=${2:-9}
commits=${BENCH_COMMITS:-20000}
nfiles=${BENCH_FILES:-5000}
[ -x "$fgbisect" ] || { echo "bench-history: no binary at $fgbisect" >&2; exit 2; }
fgbisect=$(cd "$(dirname "$fgbisect")" && pwd)/$(basename "$fgbisect")

if [ -n "${BENCH_DIR:-}" ]; then
	repo=$BENCH_DIR
	cleanup=
else
	repo=$(mktemp -d)
	cleanup=$repo
fi
trap '[ -z "$cleanup" ] || rm -rf "$cleanup"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

if [ ! -d "$repo/.git" ]; then
	echo "building $commits commits x $nfiles files in $repo ..." >&2
	git init -q -b main "$repo"
	start=$(date +%s.%N)
	# 50 modules, 200 packages; every commit changes 1-3 files; every 40th
	# commit is a merge of a short side branch (two commits) so that the
	# history has merges to simplify, like a real project's.
	awk -v commits="$commits" -v nfiles="$nfiles" '
	function path(i) { return sprintf("mod%02d/src/main/java/io/example/p%03d/Class%04d.java", i % 50, i % 200, i) }
	function blob(s) { printf "data %d\n%s\n", length(s) + 1, s }
	BEGIN {
		srand(42); t = 1500000000; mark = 0
		printf "commit refs/heads/main\nmark :%d\ncommitter b <b@e> %d +0000\n", ++mark, t
		blob("initial import")
		for (i = 0; i < nfiles; i++) { printf "M 100644 inline %s\n", path(i); blob("class " i) }
		printf "\n"
		main = mark
		for (c = 1; c < commits; c++) {
			t += 60
			if (c % 40 == 0) {
				# side branch: two commits from main, then a merge
				printf "commit refs/heads/side\nmark :%d\ncommitter b <b@e> %d +0000\n", ++mark, t
				blob("side " c); printf "from :%d\n", main
				f = int(rand() * nfiles); printf "M 100644 inline %s\n", path(f); blob("side " c " " f)
				printf "\n"; side = mark; t += 60; c++
				printf "commit refs/heads/main\nmark :%d\ncommitter b <b@e> %d +0000\n", ++mark, t
				blob("merge " c); printf "from :%d\nmerge :%d\n", main, side
				f = int(rand() * nfiles); printf "M 100644 inline %s\n", path(f); blob("merge " c " " f)
				printf "\n"; main = mark
				continue
			}
			printf "commit refs/heads/main\nmark :%d\ncommitter b <b@e> %d +0000\n", ++mark, t
			blob("change " c); printf "from :%d\n", main
			n = 1 + int(rand() * 3)
			for (k = 0; k < n; k++) { f = int(rand() * nfiles); printf "M 100644 inline %s\n", path(f); blob("v" c " " f) }
			printf "\n"; main = mark
		}
	}' | git -C "$repo" fast-import --quiet
	git -C "$repo" reset -q --hard main 2>/dev/null || true
	echo "built in $(echo "$(date +%s.%N) - $start" | bc) s: $(git -C "$repo" rev-list --count main) commits," \
		"$(git -C "$repo" ls-tree -r main --name-only | wc -l) files" >&2
fi

# 20 files: spread over the tree, last changed at all depths of the history.
mapfile -t files < <(git -C "$repo" ls-tree -r --name-only main | awk 'NR % 250 == 7' | head -20)
frames=()
for f in "${files[@]}"; do
	cls=${f#*/src/main/java/}
	frames+=(--frame "${cls%.java}.run")
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
elapsed() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
gitlog20() { for f in "${files[@]}"; do git -C "$repo" log -1 --format=%H main -- "$f"; done; }

# Warm the page cache, and check the answers agree.
ours=$("$fgbisect" hotfiles --repo "$repo" --json "${frames[@]}" | grep -o '"last_commit":"[0-9a-f]*"' | cut -d'"' -f4)
theirs=$(gitlog20)
if [ "$ours" != "$theirs" ]; then
	echo "bench-history: answers differ from git log -1" >&2
	diff <(echo "$ours") <(echo "$theirs") >&2 || true
	exit 1
fi

t_ours=$(for ((i = 0; i < runs; i++)); do elapsed "$fgbisect" hotfiles --repo "$repo" --json "${frames[@]}"; done | median)
t_git=$(for ((i = 0; i < runs; i++)); do elapsed gitlog20; done | median)
t_one=$(for ((i = 0; i < runs; i++)); do elapsed git -C "$repo" log -1 --format=%H main -- "${files[0]}"; done | median)
depth=$(for f in "${files[@]}"; do git -C "$repo" rev-list --count "$(git -C "$repo" log -1 --format=%H main -- "$f")..main"; done |
	sort -n | tail -1)

printf 'repository: %s commits, %s files; 20 files, the oldest answer %s commits deep\n' \
	"$(git -C "$repo" rev-list --count main)" "$(git -C "$repo" ls-tree -r main --name-only | wc -l)" "$depth"
printf 'fgbisect hotfiles, 20 files, one call:   %.3f s (median of %d)\n' "$t_ours" "$runs"
printf 'git log -1 -- PATH, 20 calls:            %.3f s (median of %d)\n' "$t_git" "$runs"
printf 'git log -1 -- PATH, 1 call:              %.3f s\n' "$t_one"
printf 'ratio (git log x20 / hotfiles):          %.1fx\n' "$(echo "$t_git / $t_ours" | bc -l)"
