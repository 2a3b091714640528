#!/usr/bin/env python3
"""Writes collapsed stacks as a pprof profile (profile.proto, gzip'd unless
the name ends in .pb): test data for fgbisect's pprof reader, made by the
project's own code.

    write_pprof.py [--labels] [--packed] [--files MAP] IN.collapsed[.gz] OUT.pb[.gz]

Two sample types, samples/count (the line's count) and cpu/nanoseconds (the
count times 10 ms).  Frames marked _[i] (inlined) go into their caller's
location as extra lines, innermost first, as compilers' profiles have them;
a frame named 0xADDR becomes a location without lines (not symbolised).
Sample values are packed, location ids not (as async-profiler writes them;
with --packed, location ids too, as Go writes them), and every message
carries a label thread=main that readers must ignore unless asked.

With --labels, the frames [KEY=VALUE] that start a stack become labels of
its sample instead of frames: a string label, or with VALUE #N or #N UNIT a
numeric one (num N, num_unit UNIT); a key given twice gives two labels.

Every function's filename is X.java unless MAP (lines FUNCTION<TAB>FILE)
names its file, as Go's runtime/pprof writes the source path of each
function.

Fast enough for the large fixture's 560,195 stacks (1.17 M samples): the
output grows in one bytearray, and each location's sample field is encoded
once (stacks repeat their callers' locations)."""
import gzip, sys

from collapsed_io import read_collapsed

def varint(v):
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append(v & 0x7F | 0x80)
        v >>= 7

def field(num, payload):
    if isinstance(payload, int):
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload

def main():
    args = sys.argv[1:]
    labels = "--labels" in args
    packed = "--packed" in args
    files = {}
    if "--files" in args:
        i = args.index("--files")
        with open(args[i + 1], encoding="utf-8") as f:
            files = dict(line.rstrip("\n").split("\t", 1) for line in f if "\t" in line)
        del args[i:i + 2]
    src, dst = [a for a in args if a not in ("--labels", "--packed")]
    strings, sidx = [""], {"": 0}
    def s(x):
        i = sidx.get(x)
        if i is None:
            i = sidx[x] = len(strings)
            strings.append(x)
        return i
    functions, locations = {}, {}
    loc_field = {}  # location id -> its encoded sample field
    def location(group):
        key = tuple(group)
        lid = locations.get(key)
        if lid is None:
            lid = locations[key] = len(locations) + 1
            loc_field[lid] = field(1, lid)
        return lid
    def label(frame):
        k, _, v = frame[1:-1].partition("=")
        if v.startswith("#"):
            num, _, unit = v[1:].partition(" ")
            return field(3, field(1, s(k)) + field(3, int(num)) + (field(4, s(unit)) if unit else b""))
        return field(3, field(1, s(k)) + field(2, s(v)))
    out = bytearray(field(1, field(1, s("samples")) + field(2, s("count"))))
    out += field(1, field(1, s("cpu")) + field(2, s("nanoseconds")))
    thread = field(3, field(1, s("thread")) + field(2, s("main")))
    for frames, n in read_collapsed(src):
        extra = b""
        if labels:
            while frames and frames[0].startswith("[") and frames[0].endswith("]") and "=" in frames[0]:
                extra += label(frames.pop(0))
        # Callers with the inlined frames below them: one location each.
        locs, group = [], None
        for fr in frames:
            if group and fr.endswith("_[i]") and not group[0].startswith("0x"):
                group.append(fr[:-4])
                continue
            if group:
                locs.append(location(group))
            group = [fr]
        if group:
            locs.append(location(group))
        locs.reverse()
        if packed:
            body = bytearray(field(1, b"".join(map(varint, locs))) if locs else b"")
        else:
            body = bytearray(b"".join(map(loc_field.__getitem__, locs)))
        body += field(2, varint(n) + varint(n * 10_000_000))
        body += thread + extra
        out += field(2, bytes(body))
    out += field(3, field(1, 1) + field(5, s("/usr/lib/libfake.so")))
    for key, lid in locations.items():
        body = field(1, lid) + field(2, 1)
        if key[0].startswith("0x"):
            body += field(3, int(key[0], 16))
        else:
            # line[0] is the innermost function.
            for name in reversed(key):
                if name not in functions:
                    functions[name] = len(functions) + 1
                body += field(4, field(1, functions[name]) + field(2, 1))
        out += field(4, body)
    for name, fid in functions.items():
        out += field(5, field(1, fid) + field(2, s(name)) + field(3, s(name)) + field(4, s(files.get(name, "X.java"))))
    for x in strings:
        out += field(6, x.encode("utf-8", "surrogateescape"))
    out += field(14, s("cpu"))
    data = gzip.compress(out, 6) if not dst.endswith(".pb") else out
    open(dst, "wb").write(data)

if __name__ == "__main__":
    main()
