#!/bin/bash
# days draws the tested runs as a chart of their share against the
# threshold: one row per tested run in date order, the interval, the skipped
# run with its reason, the last fast and first slow run pointed at; Unicode
# blocks by default, ASCII with --ascii; ANSI colours only on a terminal
# (script(1) gives one) and never with NO_COLOR set; none with --json; the
# report's SVG chart keeps its texts apart (Chromium, tests/tools/check_chart.py).
source "$FG_SOURCE_DIR/tests/lib.sh"
F="$FG_SOURCE_DIR/fixtures"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$F"/day01-broker-{0,1,2}-grpc.collapsed.gz "$F/day10-broker-0-grpc.collapsed.gz" "$T"/
printf 'garbage\n' >"$T/broken.collapsed"
cat >"$T/runs.txt" <<'RUNS'
2026-11-01 a1a1a1a1a1 broker-0 grpc cpu day01-broker-0-grpc.collapsed.gz
2026-11-02 b2b2b2b2b2 broker-0 grpc cpu day01-broker-1-grpc.collapsed.gz
2026-11-03 c3c3c3c3c3 broker-0 grpc cpu day01-broker-2-grpc.collapsed.gz
2026-11-04 d4d4d4d4d4 broker-0 grpc cpu day01-broker-0-grpc.collapsed.gz
2026-11-05 e5e5e5e5e5 broker-0 grpc cpu broken.collapsed
2026-11-06 f6f6f6f6f6 broker-0 grpc cpu day10-broker-0-grpc.collapsed.gz
2026-11-07 a7a7a7a7a7 broker-0 grpc cpu day10-broker-0-grpc.collapsed.gz
2026-11-08 b8b8b8b8b8 broker-0 grpc cpu day10-broker-0-grpc.collapsed.gz
RUNS
days() { "$FGBISECT" days --runs "$T/runs.txt" --frame TransactionalColumnFamily --threshold 4 "$@"; }
chart() { sed -n '/^share of the frame/,/ threshold /p'; }

# Shares: day01-broker-0 148/5616 = 2.64%, day10-broker-0 445/6775 = 6.57%;
# on a 0-10% scale of 40 cells (0.25 points each) the threshold is cell 16.
days --ascii 2>/dev/null | chart | sed "s|$T/||" >"$T/ascii"
cat >"$T/expected" <<'CHART'
share of the frame in the tested runs, by date:
2026-11-01 a1a1a1a1a1  fast   2.64% ###########...  |                        2.03-3.29%
2026-11-04 d4d4d4d4d4  fast   2.64% ###########...  |                        2.03-3.29%  <- last fast
2026-11-05 e5e5e5e5e5  skip       -                 |                         broken.collapsed: line 1: not a collapsed stack (expected 'frame;frame;... COUNT')
2026-11-06 f6f6f6f6f6  slow   6.57% ################|##########...           5.83-7.34%  <- first slow
2026-11-08 b8b8b8b8b8  slow   6.57% ################|##########...           5.83-7.34%
                                    0%              4%                   10%
                                    | threshold 4%, . 95% interval, scale 0-10%
CHART
check_eq "ASCII chart" "$(cat "$T/ascii")" "$(cat "$T/expected")"
check_eq "the shares are the truth's" "$(truth "$F/day10-broker-0-grpc.collapsed.gz" TransactionalColumnFamily |
	awk '{ printf "%.2f%%", 100 * $2 / $1 }')" "$(awk '/first slow/ { print $4 }' "$T/ascii")"
check_eq "ASCII only" "$(LC_ALL=C grep -c '[^ -~]' "$T/ascii")" 0

days 2>/dev/null | chart >"$T/unicode"
# 2.64% = 10.56 cells: ten full blocks and a half; 6.57% = 26.28 cells.
check_eq "Unicode bar of a fast run" "$(sed -n 2p "$T/unicode" | grep -o '█*▌···  │' | head -1)" "██████████▌···  │"
check_eq "Unicode bar through the threshold" "$(sed -n 5p "$T/unicode" | grep -o '█*┃█*▎···' | head -1)" \
	"████████████████┃█████████▎···"
check_eq "no colour into a pipe" "$(grep -c $'\033' "$T/unicode")" 0

# On a terminal: colours; with NO_COLOR: none.
tty_days() { script -qec "$(printf '%q ' "$FGBISECT" days --runs "$T/runs.txt" --frame TransactionalColumnFamily --threshold 4)" /dev/null; }
check_eq "colours on a terminal" "$(tty_days 2>/dev/null | grep -c $'\033\\[31mslow')" 2
check_eq "NO_COLOR respected" "$(NO_COLOR=1 tty_days 2>/dev/null | grep -c $'\033')" 0
check_eq "no chart with --json" "$(days --json 2>/dev/null | grep -c 'share of the frame')" 0

# The report's picture of the same chart (--html) in headless Chromium: no
# two texts overlap and none leaves the picture, with the 5 tested runs
# above and with 60 (58 broken profiles between a fast and a slow end: every
# run is tested, 13 px a column, so the date labels are thinned to every
# other column, 0, 2, … 56, and the first slow run's 59 taking 58's place).
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
	days --html "$T/r5.html" >/dev/null 2>&1
	CHECKS=$((CHECKS + 1))
	browser_passes "$FG_SOURCE_DIR/tests/tools/check_chart.py" "$T/r5.html" 5 || fail "the chart of 5 runs in Chromium"
	for i in $(seq 0 59); do
		p=broken.collapsed
		((i == 0)) && p=day01-broker-0-grpc.collapsed.gz
		((i == 59)) && p=day10-broker-0-grpc.collapsed.gz
		echo "$(date -u -d "2026-01-01 + $i days" +%F) $(printf '%02dc0ffee%02d' "$i" "$i") broker-0 grpc cpu $p"
	done >"$T/runs60.txt"
	"$FGBISECT" days --runs "$T/runs60.txt" --frame TransactionalColumnFamily --threshold 4 --html "$T/r60.html" \
		>/dev/null 2>&1 || true
	check_eq "60 runs charted" "$(grep -o '<circle class="run \|<path class="run ' "$T/r60.html" | wc -l)" 60
	check_eq "labels thinned to one per 17 px" "$(grep -o 'rotate(-60)' "$T/r60.html" | wc -l)" 30
	CHECKS=$((CHECKS + 1))
	browser_passes "$FG_SOURCE_DIR/tests/tools/check_chart.py" "$T/r60.html" 60 || fail "the chart of 60 runs in Chromium"
else
	echo "SKIP (part): chromium is not installed: the report's chart was NOT checked in a browser" >&2
fi
finish
