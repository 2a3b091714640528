#!/bin/bash
# Regenerates the pictures in docs/images from the screenshots the browser
# tests take (tests/sh/*_browser.sh), so the docs show what the tests check.
#   contrib/make-doc-images.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FG_KEEP_SCREENSHOTS=$T ctest --test-dir "$BUILD" -R '_browser$' --output-on-failure
mkdir -p docs/images
for name in diff-inclusive diff-self diff-zoom diff-search report-top; do
	[[ -s "$T/$name.png" ]] || { echo "make-doc-images: $name.png was not taken" >&2; exit 1; }
	cp "$T/$name.png" docs/images/
done
ls -l docs/images
