#!/bin/sh
# fgbisect capture script: profile a command with Linux perf and write
# collapsed stacks to $FGBISECT_OUT.
#
#   fgbisect --frame PAT --threshold PCT --capture 'contrib/capture/perf.sh ./build/bench'
#
# The command runs under `perf record -g` (call graphs) at PERF_FREQ samples
# a second (default 4999: a run of 0.1 s gives about 500 samples, where 99
# Hz gave 10 and no verdict near the threshold could be decided); `perf
# script` output is folded here into `frame;frame;...;leaf count` lines,
# root first.  Fewer than PERF_MIN_SAMPLES (default 1000) samples is warned
# about: the interval of so few is wide, and what narrows it is a longer
# run (repeat the benchmark inside the command) or a higher PERF_FREQ
# (perf caps it at kernel.perf_event_max_sample_rate).
# perf must be allowed to sample (kernel.perf_event_paranoid <= 2, or root).
set -eu
: "${FGBISECT_OUT:?run this from fgbisect --capture}"
[ $# -gt 0 ] || { echo "usage: perf.sh COMMAND [ARGS...]" >&2; exit 2; }
data=$(mktemp "${TMPDIR:-/tmp}/fgbisect-perf.XXXXXX")
trap 'rm -f "$data"' EXIT
freq=${PERF_FREQ:-4999}
perf record -q -F "$freq" -g -o "$data" -- "$@" >&2
# perf script prints one block per sample: a header line, then one frame per
# line (leaf first, "addr symbol+off (dso)"), then a blank line.
perf script -i "$data" 2>/dev/null | awk '
	function flush() {
		if (n > 0) {
			s = f[n]
			for (i = n - 1; i >= 1; i--) s = s ";" f[i]
			count[s]++
		}
		n = 0
	}
	/^[^ \t]/ { flush(); next }
	/^$/ { flush(); next }
	{
		sym = $2
		for (i = 3; i < NF; i++) sym = sym " " $i
		sub(/\+0x[0-9a-f]+$/, "", sym)
		if (sym == "" || sym == "[unknown]") sym = "[unknown]"
		gsub(/;/, ":", sym)
		f[++n] = sym
	}
	END { flush(); for (s in count) print s, count[s] }
' >"$FGBISECT_OUT"
[ -s "$FGBISECT_OUT" ] || { echo "perf.sh: perf recorded no samples" >&2; exit 1; }
samples=$(awk '{ n += $NF } END { print n + 0 }' "$FGBISECT_OUT")
if [ "$samples" -lt "${PERF_MIN_SAMPLES:-1000}" ]; then
	echo "perf.sh: warning: only $samples samples at $freq Hz: too few to decide near the threshold;" \
		"run the benchmark longer (repeat it inside the command) or raise PERF_FREQ" >&2
fi
