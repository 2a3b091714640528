#!/usr/bin/env bash
# Method histories on real code: a repository of Guava's releases as Debian
# ships them (the upstream tarballs on deb.debian.org: 31.1 in bookworm,
# 32.0.1 in trixie), one commit per release, and every method of the
# largest classes of guava/src asked of one `fgbisect hotfiles` call with
# the first release as --good.  Each method fgbisect finds is checked
# against `git log -L FIRST,LAST:PATH` over the lines it found (the window's
# commits, and `-n1` for the last change); what it cannot resolve is
# counted.  Real files test the scanner (generics, annotations, nested and
# anonymous classes, comments and strings that look like code) and the line
# tracking through a real diff of thousands of lines; two releases are not a
# commit history, so this complements the planted histories of
# tests/sh/hotfiles_methods.sh and does not replace a real repository.
#
# usage: contrib/check-methods-real.sh [FGBISECT] [CLASSES]
#   FGBISECT  the binary (default: build/fgbisect); CLASSES how many of the
#   largest classes (default 40).  Needs network access to deb.debian.org
#   (or CHECK_TARBALLS=DIR holding guava-libraries_VERSION.orig.tar.xz).
#   CHECK_DIR keeps the repository there between runs.
set -euo pipefail
source "$(dirname "$0")/../tests/method_log.sh"

fgbisect=${1:-build/fgbisect}
nclasses=${2:-40}
[ -x "$fgbisect" ] || { echo "check-methods-real: no binary at $fgbisect" >&2; exit 2; }
fgbisect=$(cd "$(dirname "$fgbisect")" && pwd)/$(basename "$fgbisect")
for tool in git jq python3 curl xz; do
	command -v "$tool" >/dev/null || { echo "check-methods-real: $tool is needed" >&2; exit 2; }
done
versions=(31.1 32.0.1)
tmpd=$(mktemp -d)
repo=${CHECK_DIR:-$tmpd/guava}
trap 'rm -rf "$tmpd"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

if [ ! -d "$repo/.git" ]; then
	git init -q -b main "$repo"
	echo '*.java diff=java' >"$repo/.git/info/attributes"
	for v in "${versions[@]}"; do
		tarball=guava-libraries_$v.orig.tar.xz
		if [ -n "${CHECK_TARBALLS:-}" ]; then
			cp "$CHECK_TARBALLS/$tarball" "$tmpd/$tarball"
		else
			echo "downloading $tarball ..." >&2
			curl -sSf --max-time 300 -o "$tmpd/$tarball" \
				"http://deb.debian.org/debian/pool/main/g/guava-libraries/$tarball" ||
				{ echo "check-methods-real: cannot download $tarball" >&2; exit 2; }
		fi
		find "$repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
		tar -xJf "$tmpd/$tarball" -C "$repo" --strip-components=1
		git -C "$repo" add -A
		git -C "$repo" -c user.name=guava -c user.email=g@example.org commit -q -m "Guava $v"
		git -C "$repo" tag "v$v"
	done
fi
good=v${versions[0]} bad=v${versions[-1]}

# The frames: every method name declared in the largest classes of
# guava/src, as Class.name and, when a nested class's declaration comes
# before it, as Class$Nested.name too (javac's names; a rough guess of where
# a method lives, so some frames name no method: fgbisect must say so
# rather than find another one).
python3 - "$repo" "$nclasses" >"$tmpd/frames" <<'PY'
import os, re, sys
root, n = sys.argv[1], int(sys.argv[2])
src = os.path.join(root, "guava", "src")
files = []
for d, _, names in os.walk(src):
    for name in names:
        if name.endswith(".java") and name != "package-info.java":
            p = os.path.join(d, name)
            files.append((os.path.getsize(p), p))
files.sort(reverse=True)
decl = re.compile(r"^\s+(?:(?:public|protected|private|static|final|abstract|synchronized|native|default)\s+)*"
                  r"(?:<[^>]*>\s+)?[\w.<>\[\], ?]+\s+(\w+)\s*\(", re.M)
nested = re.compile(r"^\s+(?:(?:public|protected|private|static|final|abstract)\s+)*(?:class|interface|enum)\s+(\w+)", re.M)
keywords = {"if", "for", "while", "switch", "catch", "return", "new", "throw", "synchronized", "else"}
frames = set()
for _, p in files[:n]:
    text = open(p, encoding="utf-8", errors="replace").read()
    cls = os.path.relpath(p, src)[:-5]
    inner = [(m.start(), m.group(1)) for m in nested.finditer(text)]
    for m in decl.finditer(text):
        name = m.group(1)
        if name in keywords:
            continue
        frames.add(f"{cls}.{name}")
        before = [c for at, c in inner if at < m.start()]
        if before:
            frames.add(f"{cls}${before[-1]}.{name}")
print("\n".join(sorted(frames)))
PY
echo "$(wc -l <"$tmpd/frames") frames from the $nclasses largest classes of guava/src, $good..$bad" >&2

# hotfiles takes at most 256 frames a call.
out=$tmpd/out.json
split -l 256 "$tmpd/frames" "$tmpd/chunk."
start=$(date +%s.%N)
for chunk in "$tmpd"/chunk.*; do
	args=()
	while read -r f; do args+=(--frame "$f"); done <"$chunk"
	"$fgbisect" hotfiles --repo "$repo" --good "$good" --bad "$bad" --json "${args[@]}" >"$chunk.json"
done
took=$(echo "$(date +%s.%N) - $start" | bc)
jq -s '{files: map(.files) | add}' "$tmpd"/chunk.*.json >"$out"

method_check "$out" "$repo" "$good" "$bad" >"$tmpd/mismatches"
sed 's/^/MISMATCH /' "$tmpd/mismatches" >&2
checked=$method_checked changed=$method_changed bad_answers=$(wc -l <"$tmpd/mismatches")
echo "hotfiles: $(jq '.files | length' "$out") frames in $took s; methods found: $checked ($changed changed in $bad)," \
	"by status: $(jq -r '[.files[] | select(.method != null) | .method.status] | group_by(.) |
		map("\(.[0]) \(length)") | join(", ")' "$out")"
echo "checked against git log -L: $checked methods, $bad_answers mismatches"
[ "$checked" -gt 0 ] && [ "$bad_answers" -eq 0 ]
