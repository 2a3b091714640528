#!/usr/bin/env python3
"""Writes collapsed stacks as an async-profiler HTML flame graph page, in the
data encoding of a chosen version: test data for fgbisect's HTML reader made
by the project's own code from the rules of ../shared/docs/asprof-html-format.md
(never from async-profiler's page, whose drawing code this page leaves out:
only the lines a reader looks at are written).

    write_asprof_html.py [--version V] [--title T] [--inverted] [--diff BASE]
                         IN.collapsed[.gz] OUT.html
    write_asprof_html.py --large SEED COPIES OUT.collapsed IN.collapsed[.gz]...

--version: 2.0 (G1, absolute f(level,left,width,type,'title'), the 2.0-2.6
type numbering), 2.10 (G2: the 0-6 numbering, merged compilation types and
their inln,c1,int counters), 3.0 (G3: cpool and f/u/n, `reverse`), 4.0 (G4:
`inverted`) or 4.5 (G5, the default: `maxdiff`; with --diff BASE a
differential graph, sticky d=<self delta> / d=U lines).  Types come from the
_[j] _[i] _[0] _[1] _[k] suffixes, else from the name as the converter
guesses them (§9).  Children in name order, each parent's self samples on
the left, widths inherited when equal (§1, §5).

--large: a large stack set for the split-reader tests: COPIES copies of the
input stacks, each under its own thread frame, a seeded part of each copy's
frames renamed (a deeper, wider tree than any input) and its counts drawn
again, written as collapsed stacks."""
import gzip
import random
import sys

from collapsed_io import read_collapsed

SUFFIX = {"_[j]": 1, "_[i]": 2, "_[0]": 0, "_[1]": 6, "_[k]": 5}
JAVA = (0, 1, 2, 6)
# G1 (2.0-2.6) numbering: Java 0, inlined 1, kernel 2, C++ 3, native 4.
OLD_TYPE = {0: 0, 1: 0, 6: 0, 2: 1, 5: 2, 4: 3, 3: 4}


def frame_type(name):
    """(name without its suffix, type id of the 0-6 numbering)."""
    if len(name) > 4 and name[-4:] in SUFFIX:
        return name[:-4], SUFFIX[name[-4:]]
    if "::" in name or name.startswith("-[") or name.startswith("+["):
        return name, 4
    if ("/" in name[1:] and not name.startswith("[")) or ("." in name and name[:1].isupper()):
        return name, 1
    return name, 3


class Node:
    __slots__ = ("name", "type", "total", "self", "kids", "inln", "c1", "int")

    def __init__(self, name, ftype):
        self.name, self.type = name, ftype
        self.total = self.self = self.inln = self.c1 = self.int = 0
        self.kids = {}


def build(path, merge):
    """The call tree of a collapsed file.  merge (2.8+): the compilation
    types of one Java method are one node (type 1) with counters."""
    root = Node("all", 3)
    for frames, n in read_collapsed(path):
        node = root
        node.total += n
        for fr in frames:
            name, t = frame_type(fr)
            key_t = 1 if merge and t in JAVA else t
            kid = node.kids.get((name, key_t))
            if kid is None:
                kid = node.kids[(name, key_t)] = Node(name, key_t)
            kid.total += n
            if merge and t in JAVA:
                kid.inln += n if t == 2 else 0
                kid.c1 += n if t == 6 else 0
                kid.int += n if t == 0 else 0
            node = kid
        node.self += n
    return root


def shown_type(node):
    """The type a merged node is drawn with (Trie::type)."""
    if node.type != 1 or not (node.inln or node.c1 or node.int):
        return node.type
    if node.inln * 3 >= node.total:
        return 2
    if node.c1 * 2 >= node.total:
        return 6
    if node.int * 2 >= node.total:
        return 0
    return 1


def counters(node, any_nonzero=False):
    """The ',inln,c1,int' tail, or ''.  any_nonzero: as native 2.8-2.10
    write them, whenever one is not 0."""
    if (node.inln or node.c1 or node.int) and (any_nonzero or (node.inln < node.total and node.int < node.total)):
        return ",%d,%d,%d" % (node.inln, node.c1, node.int)
    return ""


def ordered(node):
    return sorted(node.kids.values(), key=lambda k: (k.name.encode("utf-8", "surrogateescape"), k.type))


def walk(root, paths=False):
    """(node, level, x, path) in DFS pre-order, self samples on the left;
    path (the (name, type) keys from the root) only when asked."""
    stack = [(root, 0, 0, ())]
    while stack:
        node, level, x, path = stack.pop()
        yield node, level, x, path
        x += node.self
        later = []
        for kid in ordered(node):
            later.append((kid, level + 1, x, path + ((kid.name, kid.type),) if paths else path))
            x += kid.total
        stack.extend(reversed(later))


def quote(name):
    return name.replace("\\", "\\\\").replace("'", "\\'")


def head(out, title, version, depth, maxdiff):
    out.write("<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
              "<title>%s</title>\n</head>\n<body>\n<h1>%s</h1>\n<canvas id='canvas'></canvas>\n"
              "<script>\n'use strict';\n" % (title, title))
    major = int(version.split(".")[0])
    out.write("let %s = %s;\n" % ("inverted" if major >= 4 else "reverse", "false" if maxdiff is None else maxdiff[0]))
    out.write("const levels = Array(%d);\n" % depth)
    if version == "4.5":
        out.write("const maxdiff = %d;\n" % maxdiff[1])


def write_v2(out, root, version):
    old = version == "2.0"
    for node, level, x, _ in walk(root):
        t = node.type if not old else (4 if level == 0 else OLD_TYPE[node.type])
        if not old:
            t = shown_type(node)
        out.write("f(%d,%d,%d,%d,'%s'%s)\n" % (level, x, node.total, t, quote(node.name),
                                              "" if old else counters(node, True)))


def self_by_path(base):
    selfs = {}
    for node, _, _, path in walk(base, True):
        selfs[path] = node.self
    return selfs


def write_v3(out, root, base):
    names = sorted({n.name for n, _, _, _ in walk(root) if n is not root},
                   key=lambda s: s.encode("utf-8", "surrogateescape"))
    index = {name: i + 1 for i, name in enumerate(names)}
    out.write("const cpool = [\n'all',\n")
    prev = b""
    for i, name in enumerate(names):
        b = name.encode("utf-8", "surrogateescape")
        p = 0
        # The converter's common prefix: ASCII only (a byte and a UTF-16
        # reader then agree), at most 95.
        while p < min(len(b), len(prev), 95) and b[p] == prev[p] and b[p] < 128:
            p += 1
        packed = quote(chr(32 + p) + b[p:].decode("utf-8", "surrogateescape"))
        out.write("'%s'%s\n" % (packed, "," if i + 1 < len(names) else ""))
        prev = b
    out.write("];\nunpack(cpool);\n\n")
    last_level = last_x = last_total = 0
    delta = 0
    for node, level, x, path in walk(root, base is not None):
        key = (0 if node is root else index[node.name]) << 3 | (3 if node is root else shown_type(node))
        if base is not None:
            d = base.get(path)
            d = "U" if d is None else node.self - d
            if d != delta:
                out.write("d=%s\n" % d)
                delta = d
        tail = counters(node)
        width = "" if node.total == last_total and not tail else ",%d%s" % (node.total, tail)
        if level == last_level + 1 and x == last_x:
            out.write("u(%d%s)\n" % (key, width))
        elif level == last_level and x == last_x + last_total:
            out.write("n(%d%s)\n" % (key, width))
        else:
            out.write("f(%d,%d,%d%s)\n" % (key, level, x - last_x, width))
        last_level, last_x, last_total = level, x, node.total
    out.write("\n")


def write_page(src, dst, version, title, inverted, diff):
    root = build(src, version != "2.0")
    depth = max(level for _, level, _, _ in walk(root)) + 1
    base = None
    maxdiff = -1
    if diff:
        if version != "4.5":
            sys.exit("write_asprof_html.py: --diff needs --version 4.5")
        base = self_by_path(build(diff, True))
        deltas = [node.self - base[path] for node, _, _, path in walk(root, True) if path in base]
        maxdiff = max([abs(d) for d in deltas] + [0])
    opener = gzip.open if dst.endswith(".gz") else open
    with opener(dst, "wt", encoding="utf-8", errors="surrogateescape", newline="\n") as out:
        head(out, title, version, depth, ("true" if inverted else "false", maxdiff))
        if version in ("2.0", "2.10"):
            write_v2(out, root, version)
        else:
            write_v3(out, root, base)
        out.write("search();\n</script></body></html>\n")


def write_large(seed, copies, dst, srcs):
    rng = random.Random(seed)
    stacks = [(frames, n) for src in srcs for frames, n in read_collapsed(src)]
    opener = gzip.open if dst.endswith(".gz") else open
    with opener(dst, "wt", encoding="utf-8", errors="surrogateescape", newline="\n") as out:
        for c in range(copies):
            thread = "[worker-%d tid=%d]" % (c, 1000 + c)
            for frames, n in stacks:
                # One frame in eight renamed within this copy: new branches.
                kept = [f if rng.random() >= 0.125 else "%s$%d" % (f, c) for f in frames]
                out.write("%s;%s %d\n" % (thread, ";".join(kept), 1 + rng.randrange(2 * n)))


def main():
    args = sys.argv[1:]
    if args[:1] == ["--large"]:
        write_large(int(args[1]), int(args[2]), args[3], args[4:])
        return
    version, title, inverted, diff = "4.5", "Flame Graph", False, None
    while args and args[0].startswith("--"):
        o = args.pop(0)
        if o == "--version":
            version = args.pop(0)
        elif o == "--title":
            title = args.pop(0)
        elif o == "--inverted":
            inverted = True
        elif o == "--diff":
            diff = args.pop(0)
        else:
            sys.exit("write_asprof_html.py: unknown option " + o)
    if version not in ("2.0", "2.10", "3.0", "4.0", "4.5") or len(args) != 2:
        sys.exit(__doc__)
    write_page(args[0], args[1], version, title, inverted, diff)


if __name__ == "__main__":
    main()
