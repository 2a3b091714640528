"""Checks a differential flame graph in headless Chromium, as a user sees it.

    check_diff_svg.py MODE SVG [SHOTS_DIR]

MODE says which graph of tests/sh/diff_svg_browser.sh this is and so what to
expect of it ("inclusive", "self", "base", "narrow", "deep").  Exits 0 when every
check passed, 1 otherwise; prints one line per failure.  Screenshots go to
SHOTS_DIR when given (the docs' pictures are made this way).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, png_pixels  # noqa: E402

TCF = "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.ensureInOpenTransaction"
ACTOR = "io/camunda/zeebe/scheduler/ActorThread.run"
PREFIX = "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.prefixHash"
GREY = (221, 221, 221)

failures = []
checks = 0


def check(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        failures.append("%s%s" % (what, (": " + detail) if detail else ""))


def is_red(p):
    return p[0] > 150 and p[0] - p[1] > 60 and p[0] - p[2] > 60


def is_blue(p):
    return p[2] > 120 and p[2] - p[0] > 50


# JavaScript: the frames as the page holds them (geometry from the DOM).
FRAMES_JS = """(function () {
  var out = [];
  document.querySelectorAll('#fg-frames > g').forEach(function (g) {
    var r = g.querySelector('rect'), t = g.querySelector('text');
    if (g.style.display === 'none') return;
    out.push({ name: g.querySelector('title').textContent.split('\\n')[0],
               title: g.querySelector('title').textContent,
               x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'),
               fill: r.getAttribute('fill'), hatched: !!g.querySelector('rect.h'),
               label: t.textContent, labelWidth: t.textContent ? t.getComputedTextLength() : 0 });
  });
  return out;
})()"""


def frames(page):
    return page.eval(FRAMES_JS)


def widest(fs, name):
    cands = [f for f in fs if f["name"] == name]
    return max(cands, key=lambda f: f["w"]) if cands else None


def centre(f):
    return f["x"] + f["w"] / 2, f["y"] + 7


def fill_point(f):
    """A point of the frame's fill that no label covers (above the glyphs)."""
    return f["x"] + f["w"] / 2, f["y"] + 1.5


def pixel(rows, x, y):
    return rows[int(y)][int(x)]


def text_of(page, id_):
    return page.eval("document.getElementById('%s').textContent" % id_)


def shot(page, shots, name, height):
    path = os.path.join(shots, name)
    page.resize(int(page.eval("+document.documentElement.getAttribute('width')")), height)
    page.screenshot(path)
    return png_pixels(path)


def common(page, fs, width, height):
    """Checks every graph must pass; returns the key's text."""
    check("frames drawn", len(fs) > 100, "%d frames" % len(fs))
    over = [f for f in fs if f["label"] and f["labelWidth"] > f["w"] - 2]
    check("every label fits its frame", not over,
          ", ".join("%s (%.0f px text in %.0f px)" % (f["label"], f["labelWidth"], f["w"]) for f in over[:3]))
    lines = page.eval("Array.from(document.querySelectorAll('text.side')).map(function (t) {"
                      " return [+t.getAttribute('x') + t.getComputedTextLength(), t.textContent]; })")
    check("base and candidate lines", len(lines) >= 2 and lines[0][1].startswith("Base:") and
          any(l[1].startswith("Candidate:") for l in lines), repr(lines[:3]))
    wide = [l for l in lines if l[0] > width]
    check("header lines stay on the canvas", not wide, repr(wide[:2]))
    root = widest(fs, "all")
    check("root at the bottom", root is not None and root["y"] == max(f["y"] for f in fs))
    # Java names shortened as the package goes first: a shortened label keeps
    # no package path, and keeps the method whenever "X….method" fits.
    shortened = [f for f in fs if f["label"] and f["label"] != f["name"] and "/" in f["name"].split("(")[0]]
    pkg = [f for f in shortened if "/" in f["label"]]
    check("shortened labels drop the package", not pkg, repr([f["label"] for f in pkg[:3]]))
    lost = [f for f in shortened if "." in f["name"].rsplit("/", 1)[-1] and
            f["labelWidth"] + 7 * (len(f["name"].rsplit(".", 1)[-1]) + 3) < f["w"] - 6 and
            not f["label"].endswith("." + f["name"].rsplit(".", 1)[-1])]
    check("a label keeps the method where it fits", not lost, repr([(f["label"], f["w"]) for f in lost[:3]]))
    # No two texts of the header and key overlap (the floor's labels sit close).
    boxes = page.eval("Array.from(document.querySelectorAll('.key text, text.side')).map(function (t) {"
                      " var b = t.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height, t.textContent]; })")
    clash = [(a[4], b[4]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
             if a[4].strip() and b[4].strip() and a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5
             and b[1] < a[3] - 0.5]
    check("key texts do not overlap", not clash, repr(clash[:2]))
    # The key reads as one text: no stray "( " left by a missing word.
    key = " ".join(l[1] for l in lines)
    check("key text has no empty parenthesis", "( " not in key and "()" not in key, key[:200])
    # Hover the widest frame of the deepest row and the longest name: the
    # details stay on the canvas, under the graph.
    bottom = max(f["y"] for f in fs) + 16
    for f in (max(fs, key=lambda f: (len(f["title"]), f["w"])), max(fs, key=lambda f: (-f["y"], f["w"]))):
        page.hover(*centre(f))
        rows = page.eval("Array.from(document.querySelectorAll('#fg-details tspan')).map(function (t) {"
                         " return [+t.getAttribute('x') + t.getComputedTextLength(), +t.getAttribute('y'),"
                         " t.textContent]; })")
        check("hover line inside the canvas", rows and all(r[0] <= width - 9.5 and bottom < r[1] <= height - 4
                                                         for r in rows), repr(rows))
        check("hover line names the frame", rows and rows[0][2].startswith(f["name"][:20]), repr(rows[:1]))
    page.hover(1, 1)
    return key


def main():
    mode, svg = sys.argv[1], sys.argv[2]
    shots = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="fg-shots-")
    os.makedirs(shots, exist_ok=True)
    with Browser() as b:
        page = b.open(svg, 1200, 800)
        width = int(page.eval("+document.documentElement.getAttribute('width')"))
        height = int(page.eval("+document.documentElement.getAttribute('height')"))
        fs = frames(page)
        key = common(page, fs, width, height)
        _, _, rows = shot(page, shots, "diff-%s.png" % mode, height)

        if mode == "inclusive":
            check("candidate line names the side", "1 profile, 6,775 samples, gRPC" in text_of(page, "fg-frames") or
                  any("1 profile, 6,775 samples, gRPC" in t for t in
                      page.eval("Array.from(document.querySelectorAll('text.side')).map(function (t) "
                                "{ return t.textContent; })")))
            actor = widest(fs, ACTOR)
            check("ActorThread.run drawn", actor is not None)
            if actor:
                # Within the noise of the healthy nodes: grey, on screen too.
                check("noise frame is grey", actor["fill"] == "rgb(221,221,221)", actor["fill"])
                check("noise frame's pixels are grey", pixel(rows, *fill_point(actor)) == GREY,
                      repr(pixel(rows, *fill_point(actor))))
            tcf = widest(fs, TCF)
            check("regressed frame drawn", tcf is not None)
            if not tcf:
                return
            check("regressed frame's pixels are red", is_red(pixel(rows, *fill_point(tcf))),
                  repr(pixel(rows, *fill_point(tcf))))
            # Hover: the details line shows both sides and the change.
            page.hover(*centre(tcf))
            details = text_of(page, "fg-details")
            check("hover names the frame", details.startswith(TCF), details)
            check("hover gives both sides", "base: " in details and "candidate: " in details, details)
            check("hover says the diff lists it", "the frame in all: +3.53 points inclusive, listed by the diff"
                  in details, details)
            # Search through the real button and prompt.
            b.dialog_answer = "TransactionalColumnFamily.ensureInOpenTransaction"
            search = page.eval("(function () { var r = document.getElementById('fg-search').getBBox();"
                               " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
            page.click(*search)
            matched = text_of(page, "fg-matched")
            # The diff's own figures (diff --json): base 2.1801%, candidate 5.7122%.
            check("search shows both sides' shares", "base 2.18%, candidate 5.71% (+3.53 points)" in matched,
                  matched)
            _, _, rows = shot(page, shots, "diff-search.png", height)
            check("search highlights the match", pixel(rows, *fill_point(tcf)) == (200, 60, 230),
                  repr(pixel(rows, *fill_point(tcf))))
            page.click(*search)  # reset the search
            check("search reset", text_of(page, "fg-matched").strip() == "")
            # Zoom: click the regressed frame; it fills the width, labelled in full.
            page.click(*centre(tcf))
            z = widest(frames(page), TCF)
            check("zoomed frame fills the width", abs(z["x"] - 10) < 0.1 and abs(z["w"] - (width - 20)) < 0.1,
                  repr((z["x"], z["w"])))
            check("zoomed frame is labelled", z["label"] == TCF, z["label"])
            _, _, rows = shot(page, shots, "diff-zoom.png", height)
            check("zoomed frame is red across the width",
                  all(is_red(pixel(rows, x, z["y"] + 3)) for x in (20, width / 2, width - 20)),
                  repr([pixel(rows, x, z["y"] + 3) for x in (20, width / 2, width - 20)]))
            check("unzoom shown", page.eval("document.getElementById('fg-unzoom').style.display") == "")
            unzoom = page.eval("(function () { var r = document.getElementById('fg-unzoom').getBBox();"
                               " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
            page.click(*unzoom)
            check("unzoomed", widest(frames(page), TCF)["w"] == tcf["w"])
            # Invert: the root goes to the top row.
            inv = page.eval("(function () { var r = document.getElementById('fg-invert').getBBox();"
                            " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
            page.click(*inv)
            top = page.eval("+document.documentElement.getAttribute('data-top')")
            root = widest(frames(page), "all")
            check("inverted: root at the top", root["y"] == top, repr((root["y"], top)))
            check("inverted: regressed frame below its callers",
                  widest(frames(page), TCF)["y"] > root["y"])
            _, _, rows = shot(page, shots, "diff-inverted.png", height)
            check("inverted: root row grey", pixel(rows, width / 2, top + 1.5) == GREY,
                  repr(pixel(rows, width / 2, top + 1.5)))
        elif mode == "self":
            tcf = widest(fs, TCF)
            check("self colours: the caller is grey", tcf and tcf["fill"] == "rgb(221,221,221)",
                  tcf and tcf["fill"])
            prefix = widest(fs, PREFIX)
            check("self colours: the leaf is red", prefix and is_red(pixel(rows, *fill_point(prefix))),
                  prefix and repr(pixel(rows, *fill_point(prefix))))
            new = [f for f in fs if f["hatched"]]
            check("new frames hatched", len(new) > 0 and all("new in the candidate" in f["title"] for f in new))
            big = max(new, key=lambda f: f["w"]) if new else None
            if big and big["w"] > 12:
                row = [pixel(rows, x, big["y"] + 7) for x in range(int(big["x"]) + 1, int(big["x"] + big["w"]) - 1)]
                check("hatching visible", len(set(row)) >= 2, repr(set(row)))
        elif mode == "base":
            gone = [f for f in fs if f["hatched"]]
            check("gone frames hatched", len(gone) > 0 and all("gone from the candidate" in f["title"]
                                                               for f in gone))
        elif mode == "deep":
            # Three 128-deep stacks among thousands of samples: cut, marked,
            # and the first screen (800 px) shows the graph, not the towers.
            top = page.eval("+document.documentElement.getAttribute('data-top')")
            check("height bound", height < 1100, str(height))
            marked = page.eval("Array.from(document.querySelectorAll('#fg-frames rect.c')).map(function (r) {"
                               " var f = r.parentNode.querySelector('rect'); return [+r.getAttribute('y'),"
                               " +f.getAttribute('y'), r.parentNode.querySelector('title').textContent]; })")
            check("the cut is marked on its caller", len(marked) >= 1 and
                  all(m[0] == m[1] and "callees are cut" in m[2] for m in marked), repr(marked))
            check("the key says what was cut", "cut (3 samples" in key, key[-300:])
            _, _, rows800 = shot(page, shots, "diff-deep-first-screen.png", 800)
            filled = [sum(1 for x in range(10, width - 10, 2) if rows800[y][x] != (250, 250, 250)) > 5
                      for y in range(int(top) + 2, 800, 16)]
            blank = filled.index(True) if True in filled else len(filled)
            check("the first screen shows the graph: at most 10 blank rows above it, most rows drawn",
                  blank <= 10 and sum(filled) >= len(filled) // 2, "%d blank rows at the top, %d of %d rows drawn"
                  % (blank, sum(filled), len(filled)))
        elif mode == "narrow":
            check("width as asked", width == 700, str(width))
            n = page.eval("document.querySelectorAll('text.side').length")
            check("base line wraps onto more lines", n >= 4, str(n))
    for f in failures:
        print("FAIL: %s: %s" % (mode, f))
    print("%s: %d checks, %d failed" % (mode, checks, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
