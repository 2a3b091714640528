#!/bin/bash
# The differential SVG in a real browser: headless Chromium renders it, and
# the screenshot must show red (grew) and blue (shrank) frames; a copy whose
# script zooms into a frame and searches (prompt stubbed) must show the
# search highlight and the zoomed frame across the whole width.
source "$FG_SOURCE_DIR/tests/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$CHROMIUM" ]]; then
	echo "SKIP: ****** chromium is not installed: the differential SVG was NOT tested in a browser" \
		"(apt-get install -y chromium) ******" >&2
	exit 77
fi
F="$FG_SOURCE_DIR/fixtures"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

shot() { # SVG PNG
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/profile" --screenshot="$2" --window-size=1200,800 "file://$1" >/dev/null 2>&1
}

# Counts pixels by kind in a PNG (8-bit RGB or RGBA, as Chromium writes).
pixels() {
	python3 - "$1" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
count = {"red": 0, "blue": 0, "highlight": 0, "other": 0}
colours = set()
for line in rows:
    for x in range(0, stride, bpp):
        r, g, b = line[x:x + 3]
        colours.add((r, g, b))
        if r > 200 and g < 170 and b < 170: count["red"] += 1
        elif b > 200 and r < 170 and g < 200: count["blue"] += 1
        elif r > 170 and b > 200 and g < 110: count["highlight"] += 1
        elif (r, g, b) not in ((255, 255, 255), (250, 250, 250)): count["other"] += 1
print("%dx%d colours=%d red=%d blue=%d highlight=%d other=%d" % (w, h, len(colours), count["red"], count["blue"],
      count["highlight"], count["other"]))
EOF
}

"$FGBISECT" diff --svg "$T/d.svg" "$F/day01-broker-0-grpc.collapsed.gz" "$F/day10-broker-0-grpc.collapsed.gz" >/dev/null
shot "$T/d.svg" "$T/d.png"
check_eq "screenshot taken" "$([[ -s "$T/d.png" ]] && echo yes)" yes
p=$(pixels "$T/d.png")
echo "plain: $p"
read -r size colours red blue highlight other <<<"$p"
check_eq "size" "$size" 1200x800
check_eq "not blank: many colours" "$(( ${colours#colours=} > 50 ))" 1
check_eq "red frames drawn" "$(( ${red#red=} > 5000 ))" 1
check_eq "blue frames drawn" "$(( ${blue#blue=} > 5000 ))" 1
check_eq "no highlight before a search" "${highlight#highlight=}" 0

# The same SVG with a script that runs after init: search (prompt answered)
# then zoom into the first thread frame.
python3 - "$T/d.svg" "$T/z.svg" <<'EOF'
import sys
s = open(sys.argv[1]).read()
probe = """<script><![CDATA[
window.addEventListener('load', function () {
  window.prompt = function () { return 'ProcessingStateMachine'; };
  search();
  zoom(frames.filter(function (f) { return f.name === '[zb-actors-0]'; })[0]);
  document.getElementById('title').textContent = 'probe: ' + document.getElementById('matched').textContent;
});
]]></script>
</svg>"""
open(sys.argv[2], "w").write(s.replace("</svg>", probe))
EOF
shot "$T/z.svg" "$T/z.png"
p=$(pixels "$T/z.png")
echo "zoomed + searched: $p"
read -r size colours red blue highlight other <<<"$p"
check_eq "search highlights frames" "$(( ${highlight#highlight=} > 2000 ))" 1
# Zoomed into one thread: its subtree fills the width, other threads are hidden.
check_eq "zoomed view differs" "$(cmp -s "$T/d.png" "$T/z.png" && echo same || echo differs)" differs
if [[ -n "${FG_KEEP_SCREENSHOTS:-}" ]]; then
	cp "$T/d.png" "$T/z.png" "$FG_KEEP_SCREENSHOTS"/
fi
finish
