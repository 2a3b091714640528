#!/bin/bash
# The option tables are the one source of every command's options: the man
# page's OPTIONS section must be what `fgbisect --man-options` generates
# from them (contrib/update-man.sh), every command's --help lists each
# option of its table, and bash completion (contrib/fgbisect.bash, which asks
# fgbisect itself) offers them.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
page=$FG_SOURCE_DIR/docs/fgbisect.1

# 1. The man page holds exactly the generated options.
sed -n '/^\.\\" BEGIN GENERATED OPTIONS/,/^\.\\" END GENERATED OPTIONS/p' "$page" | sed '1d;$d' >"$TMP/page"
"$FGBISECT" --man-options >"$TMP/generated"
CHECKS=$((CHECKS + 1))
if ! diff -u "$TMP/page" "$TMP/generated" >"$TMP/diff"; then
	fail "docs/fgbisect.1 OPTIONS differ from the option tables: run contrib/update-man.sh (diff below)"
	head -40 "$TMP/diff" >&2
fi
# The issue's list of options the page used to miss.
for o in aggregate capture-timeout event hot ignore node protocol output verbose; do
	grep -q -- "\\\\-\\\\-${o//-/\\\\-}\\b" "$TMP/generated" || fail "--$o missing from the generated options"
	CHECKS=$((CHECKS + 1))
done

# 2. --help and --list-options agree, command by command.
mapfile -t commands < <("$FGBISECT" --list-commands)
check_eq "commands" "${commands[*]}" "share top collapse protocol subsystems diff runs hotfiles run bisect days metrics"
for c in "${commands[@]}"; do
	[[ $c == runs ]] && c="runs scan"
	# shellcheck disable=SC2086
	"$FGBISECT" $c --help >"$TMP/help"
	# shellcheck disable=SC2086
	"$FGBISECT" $c --list-options >"$TMP/list"
	while read -r opt _; do
		CHECKS=$((CHECKS + 1))
		grep -q -- "$opt\\b" "$TMP/help" || fail "$c --help does not show $opt"
		[[ $opt == --* && $opt != --help ]] || continue
		CHECKS=$((CHECKS + 1))
		grep -q -- "${opt//-/\\\\-}" "$TMP/generated" || fail "$c: $opt not in the man page"
	done <"$TMP/list"
done
# collapse --help shows the fetch options it accepts.
"$FGBISECT" collapse --help | grep -q -- '--header' || fail "collapse --help omits --header"
CHECKS=$((CHECKS + 1))

# 3. Bash completion offers commands and each command's options.
if command -v bash >/dev/null; then
	complete_words() { # CWORD WORDS...
		bash -c 'source "$1"; shift; COMP_CWORD=$1; shift; COMP_WORDS=("$@"); _fgbisect; printf "%s\n" "${COMPREPLY[@]}"' \
			_ "$FG_SOURCE_DIR/contrib/fgbisect.bash" "$@"
	}
	check_eq "complete a command" "$(complete_words 1 "$FGBISECT" su)" "subsystems"
	check_eq "days has no --capture" "$(complete_words 2 "$FGBISECT" days --capt | grep -c . || true)" "0"
	check_eq "complete a run option" "$(complete_words 2 "$FGBISECT" run --capture-t)" "--capture-timeout"
	check_eq "complete diff --svg-" "$(complete_words 2 "$FGBISECT" diff --svg-)" "--svg-base"
	check_eq "complete runs scan" "$(complete_words 3 "$FGBISECT" runs scan --out)" "--output"
	check_eq "run mode without a command" "$(complete_words 1 "$FGBISECT" --thr)" "--threshold"
fi

# 4. Under --json a usage error is also a JSON error on stdout.
out=$("$FGBISECT" top --json -n x "$FG_SOURCE_DIR/fixtures/tiny-3x.html" 2>/dev/null || true)
check_eq "json usage error" "$out" '{"error":{"code":"usage","message":"--count wants a number, not '"'x'"'","source":""}}'
out=$("$FGBISECT" diff --json --bogus a b 2>/dev/null || true)
check_eq "json unknown option" "$(jq -r .error.code <<<"$out")" "usage"
finish
