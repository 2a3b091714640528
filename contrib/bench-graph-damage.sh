#!/usr/bin/env bash
# What a damaged commit-graph costs on a real history, and that it changes
# no answer: the camunda/zeebe repository (40,380 commits) with a graph and
# its changed-path filters (`git commit-graph write --reachable
# --changed-paths`), and a copy whose entry for HEAD~5 (on every hot file's
# walk) names the commit itself as its first parent.  For the 24 hot frames
# of contrib/check-history-real.sh, four calls (files only and with methods,
# without a window and over d48dc33f..HEAD, 20,172 commits) on each
# repository: medians of user + system CPU seconds over RUNS interleaved
# rounds, and whether the damaged repository's output is the intact one's.
#
# usage: contrib/bench-graph-damage.sh [FGBISECT] [RUNS]
#   FG_ZEEBE_REPO  the camunda/zeebe clone; without it: SKIP, exit 77.
#   The repository is cloned locally (hard links) into a temporary folder
#   and its graph written there (about a minute); nothing of it is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
fgbisect=$(realpath "${1:-build/fgbisect}")
runs=${2:-5}
[ -x "$fgbisect" ] || { echo "bench-graph-damage: no binary at $fgbisect" >&2; exit 2; }
repo=${FG_ZEEBE_REPO:-}
if [ -z "$repo" ] || ! git -C "$repo" rev-parse -q --verify d48dc33f^{commit} >/dev/null 2>&1; then
	echo "SKIP: FG_ZEEBE_REPO does not name a camunda/zeebe clone with d48dc33f (got '${repo}')" >&2
	exit 77
fi
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
export GIT_CONFIG_NOSYSTEM=1

mapfile -t frames < <(sed -n '/^frames=(/,/^)/p' "$here/contrib/check-history-real.sh" | sed '1d;$d' | tr -d '\t')
args=()
for f in "${frames[@]}"; do args+=(--frame "$f"); done
git clone -q --bare "$repo" "$tmpd/intact.git"
git -C "$tmpd/intact.git" commit-graph write --reachable --changed-paths 2>/dev/null
git clone -q --bare "$repo" "$tmpd/damaged.git"
# A copy, not a link: the damage must not reach the intact graph.
rm -f "$tmpd/damaged.git/objects/info/commit-graph"
cp "$tmpd/intact.git/objects/info/commit-graph" "$tmpd/damaged.git/objects/info/commit-graph"
chmod u+w "$tmpd/damaged.git/objects/info/commit-graph"
python3 -S "$here/tests/tools/damage_graph.py" "$tmpd/damaged.git/objects/info/commit-graph" \
	"$(git -C "$repo" rev-parse HEAD~5)" self-parent

# cpu REPO ARGS…: user + system seconds of one call; its output in
# $tmpd/REPO.out.
cpu() {
	local r=$1
	shift
	/usr/bin/time -f "%U %S" -o "$tmpd/time" "$fgbisect" hotfiles --repo "$tmpd/$r.git" "$@" "${args[@]}" \
		>"$tmpd/$r.out" 2>/dev/null
	awk '{printf "%.3f\n", $1 + $2}' "$tmpd/time"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

printf '%-40s %10s %10s %6s  %s\n' call intact damaged ratio "same output"
for call in "--no-methods" "" "--no-methods --good d48dc33f" "--good d48dc33f"; do
	: >"$tmpd/t.intact"
	: >"$tmpd/t.damaged"
	for _ in $(seq "$runs"); do
		# shellcheck disable=SC2086
		cpu intact $call >>"$tmpd/t.intact"
		# shellcheck disable=SC2086
		cpu damaged $call >>"$tmpd/t.damaged"
	done
	a=$(median <"$tmpd/t.intact") b=$(median <"$tmpd/t.damaged")
	same=$(sed 's/damaged\.git/intact.git/' "$tmpd/damaged.out" | cmp -s - "$tmpd/intact.out" && echo yes || echo NO)
	printf '%-40s %9ss %9ss %5.2fx  %s\n' "hotfiles ${call:-(methods)}" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {print b / a}')" "$same"
done
