#!/usr/bin/env python3
"""Writes collapsed stacks as a pprof profile (profile.proto, gzip'd unless
the name ends in .pb): test data for fgbisect's pprof reader, made by the
project's own code.

    write_pprof.py IN.collapsed[.gz] OUT.pb[.gz]

Two sample types, samples/count (the line's count) and cpu/nanoseconds (the
count times 10 ms).  Frames marked _[i] (inlined) go into their caller's
location as extra lines, innermost first, as compilers' profiles have them;
a frame named 0xADDR becomes a location without lines (not symbolised).
Sample values are packed, location ids not, and every message carries a
label that readers must ignore."""
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
    src, dst = sys.argv[1:3]
    strings, sidx = [""], {"": 0}
    def s(x):
        if x not in sidx:
            sidx[x] = len(strings)
            strings.append(x)
        return sidx[x]
    functions, locations = {}, {}
    samples = []
    for frames, n in read_collapsed(src):
        # Group callers with the inlined frames below them: one location each.
        groups = []
        for fr in frames:
            if fr.endswith("_[i]") and groups and not groups[-1][0].startswith("0x"):
                groups[-1].append(fr[:-4])
            else:
                groups.append([fr])
        locs = []
        for g in groups:
            key = tuple(g)
            if key not in locations:
                locations[key] = len(locations) + 1
            locs.append(locations[key])
        samples.append((list(reversed(locs)), int(n)))
    out = field(1, field(1, s("samples")) + field(2, s("count")))
    out += field(1, field(1, s("cpu")) + field(2, s("nanoseconds")))
    loc_field = {}  # location id -> its encoded sample field (large inputs repeat them)
    for locs, n in samples:
        body = b"".join(loc_field.get(l) or loc_field.setdefault(l, field(1, l)) for l in locs)
        body += field(2, varint(n) + varint(n * 10_000_000))
        body += field(3, field(1, s("thread")) + field(2, s("main")))
        out += field(2, body)
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
        out += field(5, field(1, fid) + field(2, s(name)) + field(3, s(name)) + field(4, s("X.java")))
    for x in strings:
        out += field(6, x.encode("utf-8", "surrogateescape"))
    out += field(14, s("cpu"))
    data = gzip.compress(out) if not dst.endswith(".pb") else out
    open(dst, "wb").write(data)

if __name__ == "__main__":
    main()
