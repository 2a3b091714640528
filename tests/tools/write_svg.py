#!/usr/bin/env python3
"""Writes collapsed stacks as an SVG flame graph in the shape one of three
writers gives it: test data for fgbisect's SVG reader, made by the project's
own code (the layout rules of flamegraph.pl, inferno and async-profiler 1.x,
not their code).

    write_svg.py [--style pl|inferno|ap1] [--width PX] [--icicle] [--countname N]
                 [--title T] IN.collapsed[.gz] OUT.svg

pl: frames in no particular order, x and width in pixels with one decimal,
frames narrower than 0.1 px left out (flamegraph.pl's --minwidth); inferno:
the same with x/width in percent and exact fg:x / fg:w sample attributes;
ap1: async-profiler 1.x, frames in DFS order, thousands separators in the
titles."""
import html, random, sys

from collapsed_io import read_collapsed

def main():
    args = sys.argv[1:]
    style, width, icicle, countname, title = "pl", 1200, False, "samples", "Flame Graph"
    while args and args[0].startswith("--"):
        o = args.pop(0)
        if o == "--style":
            style = args.pop(0)
        elif o == "--width":
            width = int(args.pop(0))
        elif o == "--icicle":
            icicle = True
        elif o == "--countname":
            countname = args.pop(0)
        elif o == "--title":
            title = args.pop(0)
    src, dst = args
    root = {"name": "all", "total": 0, "kids": {}}
    for frames, n in read_collapsed(src):
        node = root
        node["total"] += n
        for fr in frames:
            # Titles lose the type suffixes.
            if fr[-4:-2] == "_[" and fr[-1] == "]":
                fr = fr[:-4]
            node = node["kids"].setdefault(fr, {"name": fr, "total": 0, "kids": {}})
            node["total"] += n
    total = root["total"]
    xpad, fh = 10, 16
    wpt = (width - 2 * xpad) / total
    frames = []
    def depth_of(n, d=0):
        return max([d] + [depth_of(k, d + 1) for k in n["kids"].values()])
    maxdepth = depth_of(root)
    height = (maxdepth + 1) * fh + 100
    def walk(n, start, depth):
        w = n["total"] * wpt
        if style == "pl" and w < 0.1:
            return
        frames.append((n, start, depth))
        child = start + n["total"] - sum(k["total"] for k in n["kids"].values())
        for k in sorted(n["kids"]):
            walk(n["kids"][k], child, depth + 1)
            child += n["kids"][k]["total"]
    walk(root, 0, 0)
    if style == "pl":
        random.Random(7).shuffle(frames)
    out = ['<?xml version="1.0" standalone="no"?>',
           '<svg version="1.1" width="%d" height="%d" xmlns="http://www.w3.org/2000/svg">' % (width, height),
           '<text id="title" x="%d" y="24" >%s</text>' % (width // 2, html.escape(title, quote=False)),
           '<g id="frames">']
    for n, start, depth in frames:
        y = 84 + depth * fh if icicle else height - 30 - (depth + 1) * fh
        pct = 100.0 * n["total"] / total
        count = "{:,}".format(n["total"]) if style != "inferno" else str(n["total"])
        name = html.escape(n["name"], quote=True)
        t = "<title>%s (%s %s, %.2f%%)</title>" % (name, count, countname, pct)
        if style == "inferno":
            rect = '<rect x="%.4f%%" y="%d" width="%.4f%%" height="15" fill="rgb(1,2,3)" fg:x="%d" fg:w="%d"/>' % (
                100.0 * start / total, y, pct, start, n["total"])
            out.append("<g>%s%s<text x=\"0\" y=\"0\"></text></g>" % (t, rect))
        elif style == "ap1":
            out.append("<g>\n%s<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"15\" fill=\"#e15a5a\" rx=\"2\" ry=\"2\"/>\n<text x=\"0\" y=\"0\">s</text>\n</g>" % (
                t, xpad + start * wpt, y, n["total"] * wpt))
        else:
            out.append("<g >\n%s<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"15.0\" fill=\"rgb(1,2,3)\" rx=\"2\" ry=\"2\" />\n<text  x=\"0\" y=\"0\" ></text>\n</g>" % (
                t, xpad + start * wpt, y, n["total"] * wpt))
    out += ["</g>", "</svg>"]
    open(dst, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(out) + "\n")

if __name__ == "__main__":
    main()
