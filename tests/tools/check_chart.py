"""Checks the share chart of an HTML report in headless Chromium: geometry, not pixels.

    check_chart.py REPORT COLUMNS [SHOTS_DIR]

Every text of the chart (axis ticks, the threshold's label, the points' words,
the rotated date-and-commit labels) lies inside the picture and overlaps no
other text: each text's box is taken in its own coordinates (getBBox) and
carried by its transform (getScreenCTM) to a quadrilateral, and two texts
clash when their quadrilaterals intersect (separating axis test).  COLUMNS is
the number of runs the chart must hold.  Exits 0 when every check passed, 1 otherwise.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402

TEXTS_JS = """(function () {
  var svg = document.querySelector('.chart svg'), out = [];
  svg.querySelectorAll('text').forEach(function (t) {
    var b = t.getBBox(), m = t.getScreenCTM(), s = svg.getScreenCTM().inverse().multiply(m);
    var pts = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]];
    out.push({ text: t.textContent, cls: t.getAttribute('class') || '', group: t.parentNode.tagName,
               quad: pts.map(function (p) { return [s.a * p[0] + s.c * p[1] + s.e, s.b * p[0] + s.d * p[1] + s.f]; }) });
  });
  var vb = svg.viewBox.baseVal;
  return { texts: out, w: vb.width, h: vb.height, columns: svg.querySelectorAll('circle.run, path.run').length };
})()"""


def shrink(quad, by=0.75):
    """The quadrilateral pulled in by `by` px towards its centre: glyph boxes
    include the line's leading, so touching boxes are not a clash."""
    cx = sum(p[0] for p in quad) / 4
    cy = sum(p[1] for p in quad) / 4
    out = []
    for x, y in quad:
        dx, dy = x - cx, y - cy
        d = (dx * dx + dy * dy) ** 0.5 or 1
        out.append((x - dx / d * by, y - dy / d * by))
    return out


def overlap(a, b):
    for quad in (a, b):
        for i in range(4):
            x1, y1 = quad[i]
            x2, y2 = quad[(i + 1) % 4]
            nx, ny = y2 - y1, x1 - x2
            pa = [nx * x + ny * y for x, y in a]
            pb = [nx * x + ny * y for x, y in b]
            if max(pa) <= min(pb) or max(pb) <= min(pa):
                return False
    return True


def main():
    report, columns = sys.argv[1], int(sys.argv[2])
    shots = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="fg-shots-")
    failures = []
    with Browser() as b:
        page = b.open(report, 1240, 900)
        got = page.eval(TEXTS_JS)
        page.screenshot(os.path.join(shots, "chart-%d.png" % columns), full_page=True)
    texts = [t for t in got["texts"] if t["text"].strip()]
    if got["columns"] != columns:
        failures.append("columns: %d, expected %d" % (got["columns"], columns))
    out = [t["text"] for t in texts if any(x < -0.5 or y < -0.5 or x > got["w"] + 0.5 or y > got["h"] + 0.5
                                           for x, y in t["quad"])]
    if out:
        failures.append("texts leave the picture: %r" % out[:3])
    quads = [shrink(t["quad"]) for t in texts]
    clash = [(texts[i]["text"], texts[j]["text"]) for i in range(len(texts)) for j in range(i + 1, len(texts))
             if overlap(quads[i], quads[j])]
    if clash:
        failures.append("%d pairs of texts overlap, e.g. %r" % (len(clash), clash[:3]))
    if not any(t["cls"] == "threshold" for t in texts):
        failures.append("no threshold label")
    for f in failures:
        print("FAIL: chart of %d runs: %s" % (columns, f))
    print("chart of %d runs: %d texts, %d failures" % (columns, len(texts), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
