#!/bin/sh
# Regenerates the OPTIONS section of docs/fgbisect.1 from the option tables
# of the commands (src/cmd/options.h): `fgbisect --man-options` writes it.
# tests/sh/options_docs.sh fails when the page and the tables differ.
# usage: contrib/update-man.sh [FGBISECT]   (default: build/fgbisect)
set -eu
cd "$(dirname "$0")/.."
fgbisect=${1:-build/fgbisect}
page=docs/fgbisect.1
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	sed '/^\.\\" BEGIN GENERATED OPTIONS/q' "$page"
	"$fgbisect" --man-options
	sed -n '/^\.\\" END GENERATED OPTIONS/,$p' "$page"
} >"$tmp"
cat "$tmp" >"$page"
