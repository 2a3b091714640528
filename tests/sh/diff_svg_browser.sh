#!/bin/bash
# ctest-labels: slow
# The differential SVG in a real browser: headless Chromium (driven over the
# DevTools protocol by tests/tools/check_diff_svg.py) renders the graphs of
# the fixtures' diff, and the screenshots and the page must show what the
# diff says: a frame within the noise of the healthy nodes is grey, the
# regressed frame red, hovering it names both sides, the Search button finds
# the diff's own shares, a click zooms it to the full width with its whole
# name, Invert puts the root at the top; --color self colours the leaf,
# --svg-base hatches vanished frames, --width narrows and the header wraps;
# Java labels keep the method, the hover rows stay on the canvas, and three
# broken 128-deep stacks are cut so that the first screen shows the graph.
# FG_KEEP_SCREENSHOTS=DIR keeps the screenshots (docs/images are made so).
source "$FG_SOURCE_DIR/tests/lib.sh"
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
	echo "SKIP: ****** chromium is not installed: the differential SVG was NOT tested in a browser" \
		"(apt-get install -y chromium) ******" >&2
	exit 77
fi
F="$FG_SOURCE_DIR/fixtures"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BASES=("$F"/day01-broker-{0,1,2}-grpc.collapsed.gz)
CAND="$F/day10-broker-0-grpc.collapsed.gz"
CHECK="$FG_SOURCE_DIR/tests/tools/check_diff_svg.py"

# What the pictures are checked against: the diff lists the regressed frame
# and not ActorThread.run (within the spread of the bases).
"$FGBISECT" diff --json "${BASES[@]}" -- "$CAND" >"$T/d.json"
check_eq "diff lists the regressed frame" "$(json_get '[round(e["delta"], 2) for e in j["grew"]
	if e["frame"].endswith("TransactionalColumnFamily.ensureInOpenTransaction")]' <"$T/d.json")" "[3.53]"
check_eq "ActorThread.run is noise" "$(json_get '[e for e in j["grew"] + j["shrank"]
	if e["frame"] == "io/camunda/zeebe/scheduler/ActorThread.run"]' <"$T/d.json")" "[]"

run_check() { # MODE SVG (the verdict memoised: tests/lib.sh's browser_passes)
	CHECKS=$((CHECKS + 1))
	browser_passes "$CHECK" "$1" "$2" || fail "the $1 graph in Chromium"
}

"$FGBISECT" diff --svg "$T/d.svg" --svg-base "$T/b.svg" "${BASES[@]}" -- "$CAND" >/dev/null
run_check inclusive "$T/d.svg"
run_check base "$T/b.svg"
"$FGBISECT" diff --color self --svg "$T/s.svg" "${BASES[@]}" -- "$CAND" >/dev/null
run_check self "$T/s.svg"
"$FGBISECT" diff --width 700 --svg "$T/n.svg" "${BASES[@]}" -- "$CAND" >/dev/null
run_check narrow "$T/n.svg"
# Three broken 128-deep stacks among 6,778 samples: the height follows the
# depth that holds 99.5% of the samples (37 in day10) plus 8 rows.
{ zcat "$CAND"; for i in 1 2 3; do printf '[unknown]%.0s;' {1..127}; echo '[unknown] 1'; done; } >"$T/deep.collapsed"
"$FGBISECT" diff --svg "$T/deep.svg" "${BASES[@]}" -- "$T/deep.collapsed" >/dev/null
check_eq "deep stacks: the drawn depth" "$(grep -o 'data-depth="[0-9]*"' "$T/deep.svg")" 'data-depth="45"'
run_check deep "$T/deep.svg"

check_eq "bad --color" "$("$FGBISECT" diff --color blue --svg "$T/x.svg" "$CAND" "$CAND" 2>&1 >/dev/null | head -1)" \
	"fgbisect diff: --color wants self or inclusive, not 'blue'"
check_eq "bad --width" "$("$FGBISECT" diff --width 10 --svg "$T/x.svg" "$CAND" "$CAND" >/dev/null 2>&1; echo $?)" 2
finish
