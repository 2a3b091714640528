# The pages tests/tools/make_pages.sh writes (FG_PAGES) read back as their
# collapsed twins, in every encoding (2.0 2.10 3.0 4.0 4.5, inverted,
# differential, escapes, the large page): the generator is right, so the
# tests that read its pages in place of ../shared's check the reader.
source "$(dirname "$0")/../lib.sh"
P=${FG_PAGES:?FG_PAGES must name the generated pages}
twin_of() {
	case $(basename "$1") in
	zeebe-healthy-* | diff-4.5.html) echo "$P/zeebe-regressed.collapsed" ;;
	escape-*) echo "$P/escape.collapsed" ;;
	large.html.gz) echo "$P/large.collapsed.gz" ;;
	*) echo "${1%.html}.collapsed" ;;
	esac
}
n=0
for page in "$P"/*.html "$P"/large.html.gz; do
	twin=$(twin_of "$page")
	[[ $page != */zeebe-healthy-* ]] || twin=$P/zeebe-healthy.collapsed
	check_eq "$(basename "$page") reads as $(basename "$twin")" \
		"$("$FGBISECT" collapse "$page" | canonical | sha256sum)" "$(memo canonical_file "$twin" | sha256sum)"
	n=$((n + 1))
done
check_eq "pages read" "$((n >= 18))" 1
check_eq "escape-4.5.html total" "$("$FGBISECT" top --json "$P/escape-4.5.html" | json_get 'j["total"]')" 24
check_eq "a quote and a backslash in a name" \
	"$("$FGBISECT" top --json "$P/escape-3.0.html" | json_get '[f["frame"] + " " + str(f["samples"]) for f in j["frames"] if f["frame"].startswith("weird")][0]')" \
	"weird\\'name\\ 4"
finish
