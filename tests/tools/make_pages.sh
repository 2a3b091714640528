#!/bin/bash
# ctest's setup of the "asprof_pages" fixture: async-profiler HTML pages
# written by tests/tools/write_asprof_html.py from the project's own
# collapsed samples, so that the HTML tests (the split reader above all) run
# on a fresh clone without ../shared.  Into $FG_PAGES, once per content of
# the generator and the samples (the plain and the sanitizer run share it):
#   NAME.html            every fixtures/*.collapsed.gz as a 4.5 page, NAME.collapsed its twin
#   zeebe-healthy-V.html the healthy sample in every encoding (2.0 2.10 3.0 4.0), -inverted
#   diff-4.5.html        a differential page (healthy -> regressed, d= lines)
#   escape-V.html        names with quotes, backslashes and UTF-8 (2.10 3.0 4.5), escape.collapsed
#   large.html.gz        777 k frames (a 7.3 MB frame block: the split reader cuts it), large.collapsed.gz
set -euo pipefail
: "${FG_PAGES:?FG_PAGES must name the folder of the generated pages}"
src=${FG_SOURCE_DIR:?}
tools=$src/tests/tools
key=$(cat "$tools/write_asprof_html.py" "$tools/collapsed_io.py" "$0" "$src"/fixtures/*.collapsed.gz | sha256sum | cut -c1-16)
if [[ -f $FG_PAGES/.key && $(cat "$FG_PAGES/.key") == "$key" ]]; then
	echo "make_pages: $FG_PAGES is up to date"
	exit 0
fi
started=$SECONDS
tmp=$FG_PAGES.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
page() { python3 "$tools/write_asprof_html.py" "$@"; }
for f in "$src"/fixtures/*.collapsed.gz; do
	name=$(basename "$f" .collapsed.gz)
	zcat "$f" >"$tmp/$name.collapsed"
	page "$tmp/$name.collapsed" "$tmp/$name.html"
done
healthy=$tmp/zeebe-healthy.collapsed
for v in 2.0 2.10 3.0 4.0; do
	page --version "$v" --title "zeebe healthy $v" "$healthy" "$tmp/zeebe-healthy-$v.html"
done
page --inverted "$healthy" "$tmp/zeebe-healthy-inverted.html"
page --diff "$healthy" "$tmp/zeebe-regressed.collapsed" "$tmp/diff-4.5.html"
printf '%s\n' "java/lang/Thread.run;a/B.m'x;C:\\path\\lib.so 7" \
	"java/lang/Thread.run;a/B.m'x;io/x/Grüße.run 5" \
	"java/lang/Thread.run;a/B.m'x;io/x/Grüße.walk 5" \
	"java/lang/Thread.run;a/B.m'x 3" \
	"java/lang/Thread.run;io/x/Gröbner.solve;weird\\'name\\ 4" >"$tmp/escape.collapsed"
for v in 2.10 3.0 4.5; do
	page --version "$v" "$tmp/escape.collapsed" "$tmp/escape-$v.html"
done
page --large 1 8 "$tmp/large.collapsed" "$src"/fixtures/*.collapsed.gz
page --title "large generated" "$tmp/large.collapsed" "$tmp/large.html"
# Kept gzipped (72 MB and 7.7 MB plain; the tests unpack what they cut).
gzip -1 "$tmp/large.html" "$tmp/large.collapsed"
echo "$key" >"$tmp/.key"
rm -rf "$FG_PAGES"
mv "$tmp" "$FG_PAGES"
trap - EXIT
echo "make_pages: $(ls "$FG_PAGES" | wc -l) files in $FG_PAGES in $((SECONDS - started)) s"
