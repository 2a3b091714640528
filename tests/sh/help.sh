# Help that helps: the top-level --help and the man page name every input
# format; a command's --help lists its own options first and the shared
# reading/fetching options once under their heading; bash completion offers
# the values of an option with a fixed set (from --list-values, the option
# table) and runs' actions; a --frame that matches nothing names the nearest
# frames; a --threshold that looks like a fraction is questioned.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FX=$FG_SOURCE_DIR/fixtures

# 1. Every format, in the top-level help and the man page's DESCRIPTION.
"$FGBISECT" --help >"$TMP/help"
sed -n '/^\.SH DESCRIPTION/,/^\.SH COMMANDS/p' "$FG_SOURCE_DIR/docs/fgbisect.1" | tr '\n' ' ' >"$TMP/man"
tr '\n' ' ' <"$TMP/help" >"$TMP/help1"
for fmt in "HTML" "2.0" "collapsed stacks" "JFR" "pprof" "perf script" "SVG" "flamegraph.pl" "inferno" "gzip"; do
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$fmt" "$TMP/help1" || fail "fgbisect --help does not name '$fmt'"
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$fmt" "$TMP/man" || fail "the man page's DESCRIPTION does not name '$fmt'"
done

# 2. Own options first, then the shared ones once under their heading.
heading="reading profiles and fetching URLs (the same in every command):"
for c in share top collapse protocol subsystems diff hotfiles run bisect days metrics; do
	"$FGBISECT" $c --help >"$TMP/h" || fail "$c --help exits $?"
	check_eq "$c: the heading at most once" "$(($(grep -cxF "$heading" "$TMP/h" || true) <= 1))" 1
	# No option both above and below the heading; the shared ones the
	# command takes below it.
	above=$(awk -v h="$heading" '$0 == h { exit } 1' "$TMP/h" | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+$' || true)
	below=$(awk -v h="$heading" 'on; $0 == h { on = 1 }' "$TMP/h" | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+$' || true)
	for o in $above; do
		CHECKS=$((CHECKS + 1))
		! grep -qx -- "$o" <<<"$below" || fail "$c --help lists $o twice"
	done
	# (metrics has its own --header and --json, for Prometheus: no heading.)
	[[ $c == metrics ]] && continue
	for o in --json --header --max-size --netrc; do
		if grep -q -- "^$o" <("$FGBISECT" $c --list-options); then
			CHECKS=$((CHECKS + 1))
			grep -qx -- "$o" <<<"$below" || fail "$c --help: $o is not under the heading"
		fi
	done
done
check_eq "top's own option first" "$("$FGBISECT" top --help | grep -m1 -oE '^  (-[a-z], )?--[a-z-]+')" "  -n, --count"

# 3. Option values and actions, from the tables.
check_eq "diff --color values" "$("$FGBISECT" diff --list-values --color | tr '\n' ' ')" "self inclusive "
check_eq "run --protocol values" "$("$FGBISECT" run --list-values protocol | tr '\n' ' ')" "grpc rest "
check_eq "top --event values" "$("$FGBISECT" top --list-values event | tr '\n' ' ')" "cpu wall alloc lock "
check_eq "a free argument has none" "$("$FGBISECT" top --list-values count)" ""
check_eq "no such option" "$(status "$FGBISECT" top --list-values nope)" 2
check_eq "a value the table lists is taken" "$(status "$FGBISECT" top --event alloc "$FX/zeebe-healthy.collapsed.gz")" 0
check_eq "one it does not, refused" "$("$FGBISECT" diff --color both a b 2>&1 | head -1)" \
	"fgbisect diff: --color wants self or inclusive, not 'both'"
complete_words() { # CWORD WORDS...
	bash -c 'source "$1"; shift; COMP_CWORD=$1; shift; COMP_WORDS=("$@"); _fgbisect; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$FG_SOURCE_DIR/contrib/fgbisect.bash" "$@"
}
check_eq "complete --color" "$(complete_words 3 "$FGBISECT" diff --color "" | tr '\n' ' ')" "self inclusive "
check_eq "complete --protocol g" "$(complete_words 3 "$FGBISECT" bisect --protocol g)" "grpc"
check_eq "complete --event" "$(complete_words 3 "$FGBISECT" share --event a)" "alloc"
check_eq "complete runs' action" "$(complete_words 2 "$FGBISECT" runs s)" "scan"
check_eq "runs' actions" "$(complete_words 2 "$FGBISECT" runs "" | tr '\n' ' ')" "scan github "
check_eq "complete runs scan's options" "$(complete_words 3 "$FGBISECT" runs scan --out)" "--output"
check_eq "a file after --frame's argument" "$(cd "$FX/.." && complete_words 3 "$FGBISECT" share --max-size fixtures/zeebe-h)" \
	"fixtures/zeebe-healthy.collapsed.gz"

# 4. A mistyped --frame: the nearest frame names of the first profile read.
"$FGBISECT" share -f TransactionalColumFamily -f ActorThred "$FX/zeebe-healthy.collapsed.gz" >/dev/null 2>"$TMP/err"
check_eq "the mistyped pattern" "$(grep -c "pattern 'TransactionalColumFamily' matches no frame" "$TMP/err")" 1
check_eq "its nearest frames" "$(grep "near 'TransactionalColumFamily'" "$TMP/err" | grep -o "'[^']*TransactionalColumnFamily[^']*'" | wc -l)" 3
check_eq "ActorThred's" "$(grep "near 'ActorThred'" "$TMP/err" | grep -o "'[^']*'" | sed -n 2p)" \
	"'io/camunda/zeebe/scheduler/ActorThread.run'"
"$FGBISECT" share -f qqqqqqqqqq "$FX/zeebe-healthy.collapsed.gz" >/dev/null 2>"$TMP/err"
check_eq "nothing near: no list" "$(grep -c near "$TMP/err" || true)" 0

# 5. A threshold that looks like a fraction.
run() { "$FGBISECT" run --frame TransactionalColumnFamily --profile "$FX/zeebe-healthy.collapsed.gz" "$@"; }
check_eq "run --threshold 0.04: a configuration mistake" "$(status run --threshold 0.04)" 255
check_eq "the question" "$(run --threshold 0.04 2>&1 | head -1)" \
	"fgbisect run: --threshold 0.04 is 0.04 percent: did you mean 4? (write 0.04% to mean 0.04 percent)"
check_eq "0.04% is meant" "$(status run --threshold 0.04%)" 1
check_eq "4 is not questioned" "$(status run --threshold 4)" 0
check_eq "0.1 is not questioned" "$(status run --threshold 0.1)" 1
check_eq "bisect questions it too" "$(status "$FGBISECT" bisect --frame X --threshold 0.05 --runs r --good a --bad b)" 2
finish
