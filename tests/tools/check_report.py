"""Checks an fgbisect HTML report in headless Chromium, as a reader sees it.

    check_report.py REPORT SHORT_K [SHOTS_DIR]

The report is tests/sh/report_browser.sh's days search (8 runs, the 5th the
first slow one, its commit SHORT_K, one run broken).  Exits 0 when every
check passed, 1 otherwise.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, png_pixels  # noqa: E402
import check_diff_svg as svgcheck  # noqa: E402

check = svgcheck.check
failures = svgcheck.failures


def main():
    path, short_k = sys.argv[1], sys.argv[2]
    shots = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="fg-shots-")
    os.makedirs(shots, exist_ok=True)
    html = open(path, encoding="utf-8").read()
    # Self-contained: nothing refers to another resource (the profiles' URLs
    # are only named as text), and the browser fetches nothing.
    refs = re.findall(r"""\b(?:src|href|xlink:href|action|data)\s*=\s*["']?[^"'\s>]+""", html)
    check("no reference to another resource", not refs, repr(refs[:5]))
    check("no external script or style", not re.search(r"<script[^>]+src=|<link\b|<iframe\b|<img\b|@import|url\((?!#)", html))
    with Browser() as b:
        page = b.open(path, 1280, 900)
        check("nothing fetched", page.eval("performance.getEntriesByType('resource').length") == 0)
        decision = page.eval("document.querySelector('.decision').textContent")
        check("decision in words", "the first slow run 2026-11-05 %s" % short_k in decision and
              "\n\ndecision: a hot file changed in the window" in decision and "?" not in decision, decision)
        marks = page.eval("['fast', 'slow', 'skip'].map(function (k) {"
                          " return document.querySelectorAll('.chart .run.' + k).length; })")
        check("chart marks fast, slow and skipped runs", marks[0] >= 1 and marks[1] >= 1 and marks[2] == 1, repr(marks))
        rows = page.eval("Array.from(document.querySelectorAll('table.runs tr')).slice(1).map(function (r) {"
                         " return Array.from(r.cells).map(function (c) { return c.textContent; }); })")
        check("runs table", any(r[2] == "slow (first slow)" and r[0] == "2026-11-05" for r in rows) and
              any(r[2] == "skip" and "not a collapsed stack" in r[5] for r in rows), repr(rows))
        check("each run's interval", all(r[4] == "-" or re.fullmatch(r"\d+\.\d\d-\d+\.\d\d%", r[4]) for r in rows))
        commits = page.eval("Array.from(document.querySelectorAll('table.commits td')).map(function (c) {"
                            " return c.textContent; })")
        check("window commits with subjects", "commit 5" in commits, repr(commits))
        files = page.eval("Array.from(document.querySelectorAll('table.files tr.changed')).map(function (r) {"
                          " return r.textContent; })")
        check("hot file changed", any("TransactionalColumnFamily.java" in f for f in files), repr(files))
        # The chart's pixels: a slow run's marker is red, a fast one green,
        # the threshold line lies between them.
        geo = page.eval("""(function () {
          function c(sel) { var r = document.querySelector(sel).getBoundingClientRect();
                            return [r.x + r.width / 2, r.y + r.height / 2 + window.scrollY]; }
          return { fast: c('.chart .run.fast'), slow: c('.chart .run.slow') };
        })()""")
        page.screenshot(os.path.join(shots, "report-top.png"))
        page.screenshot(os.path.join(shots, "report.png"), full_page=True)
        w, h, px = png_pixels(os.path.join(shots, "report.png"))
        fast = px[int(geo["fast"][1])][int(geo["fast"][0])]
        slow = px[int(geo["slow"][1])][int(geo["slow"][0])]
        check("fast marker green", fast[1] > fast[0] + 60, repr(fast))
        check("slow marker red", slow[0] > slow[1] + 80, repr(slow))
        # The flame graph opens searching for the --frame pattern: its
        # matches add up to the pattern's pooled shares (the headline's, and
        # the verdicts'), less the frames too narrow to draw.
        matched = page.eval("document.getElementById('fg-matched').textContent")
        m = re.match(r"Matched \d+ frames: base (\d+\.\d\d)%, candidate (\d+\.\d\d)%", matched)
        check("search preset to the pattern", m and 2.45 <= float(m.group(1)) <= 2.53 and
              6.70 <= float(m.group(2)) <= 6.81, matched)
        headline = page.eval("document.querySelector('.summary').textContent")
        check("the pattern's headline", headline.startswith(
            "TransactionalColumnFamily: base 2.53% \u2192 candidate 6.81% (+4.28 points \u00b1"), headline)
        # The embedded flame graph works inside the page as on its own.
        fs = svgcheck.frames(page)
        check("flame graph embedded", len(fs) > 100, str(len(fs)))
        tcf = svgcheck.widest(fs, svgcheck.TCF)
        check("regressed frame in the flame graph", tcf is not None)
        if tcf:
            page.resize(1280, 900)
            top = page.eval("document.querySelector('svg.fg-diff').getBoundingClientRect().top + window.scrollY")
            page.eval("window.scrollTo(0, %d)" % (top + tcf["y"] - 400))
            sy = page.eval("window.scrollY")
            left = page.eval("document.querySelector('svg.fg-diff').getBoundingClientRect().left")
            scale = page.eval("document.querySelector('svg.fg-diff').getBoundingClientRect().width") / 1200.0
            x, y = left + (tcf["x"] + tcf["w"] / 2) * scale, top - sy + (tcf["y"] + 7) * scale
            page.hover(x, y)
            details = page.eval("document.getElementById('fg-details').textContent")
            check("hover in the report", details.startswith(svgcheck.TCF) and "listed by the diff" in details,
                  details)
            page.click(x, y)
            z = svgcheck.widest(svgcheck.frames(page), svgcheck.TCF)
            check("zoom in the report", z["label"] == svgcheck.TCF and z["w"] > 1000, repr((z["label"], z["w"])))
        # Printable: Chromium's own print to PDF, several pages.
        page.pdf(os.path.join(shots, "report.pdf"))
        pdf = open(os.path.join(shots, "report.pdf"), "rb").read()
        pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
        check("prints", pdf.startswith(b"%PDF") and pages >= 2, "%d pages" % pages)
    for f in failures:
        print("FAIL: report: %s" % f)
    print("report: %d checks, %d failed" % (svgcheck.checks, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
