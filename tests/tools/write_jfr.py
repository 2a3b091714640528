#!/usr/bin/env python3
"""Writes collapsed stacks as a JFR recording of jdk.ExecutionSample events,
the way async-profiler lays one out (metadata, constant pools of threads,
stack traces, methods, classes, symbols and frame types, LEB128 integers):
test data for fgbisect's JFR reader, made by the project's own code.

    write_jfr.py [--chunks N] [--seconds S] IN.collapsed[.gz] OUT.jfr

Each line's count becomes that many events, spread evenly over S seconds
(default 10) in line order; N chunks (default 1) split the events, each chunk
with its own metadata and pools.  Frame types come from the _[j] _[i] _[k]
_[0] _[1] suffixes, else native for names without '/' or '.'."""
import struct, sys

from collapsed_io import read_collapsed

def varint(v):
    out = bytearray()
    for _ in range(8):
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v & 0xFF)
    return bytes(out)

def jstr(s):
    b = s.encode()
    return b"\x03" + varint(len(b)) + b

SUFFIX = {"_[0]": 0, "_[j]": 1, "_[i]": 2, "_[k]": 5, "_[1]": 6}

def frame(name):
    t = SUFFIX.get(name[-4:])
    if t is not None:
        name = name[:-4]
    elif "::" in name:
        t = 4
    elif ("/" in name[1:] and not name.startswith("[")) or (name[:1].isupper() and "." in name):
        t = 1
    else:
        t = 3
    if t in (3, 4, 5):
        return "", name, t
    dot = name.rfind(".")
    return (name[:dot], name[dot + 1:], t) if dot > 0 else ("", name, t)

def event(type_id, payload):
    body = varint(type_id) + payload
    # The size counts itself: find the width that fits.
    for w in range(1, 10):
        n = len(body) + w
        if len(varint(n)) == w:
            return varint(n) + body
    raise ValueError

def metadata(extra=(), nest=0):
    strings, index = [], {}
    def s(x):
        if x not in index:
            index[x] = len(strings)
            strings.append(x)
        return index[x]
    classes = [  # id, name, fields (name, class id, cpool, array)
        (4, "boolean", []), (5, "int", []), (6, "long", []), (7, "java.lang.String", []),
        (20, "java.lang.Thread", [("osName", 7, 0, 0), ("osThreadId", 6, 0, 0), ("javaName", 7, 0, 0), ("javaThreadId", 6, 0, 0)]),
        (21, "java.lang.Class", [("classLoader", 6, 0, 0), ("name", 24, 1, 0), ("package", 6, 0, 0), ("modifiers", 5, 0, 0)]),
        (22, "jdk.types.Method", [("type", 21, 1, 0), ("name", 24, 1, 0), ("descriptor", 24, 1, 0), ("modifiers", 5, 0, 0), ("hidden", 4, 0, 0)]),
        (23, "jdk.types.StackTrace", [("truncated", 4, 0, 0), ("frames", 25, 0, 1)]),
        (24, "jdk.types.Symbol", [("string", 7, 0, 0)]),
        (25, "jdk.types.StackFrame", [("method", 22, 1, 0), ("lineNumber", 5, 0, 0), ("bytecodeIndex", 5, 0, 0), ("type", 26, 1, 0)]),
        (26, "jdk.types.FrameType", [("description", 7, 0, 0)]),
        (101, "jdk.ExecutionSample", [("startTime", 6, 0, 0), ("sampledThread", 20, 1, 0), ("stackTrace", 23, 1, 0)]),
    ] + list(extra)
    def element(name, attrs, children):
        b = varint(s(name)) + varint(len(attrs))
        for k, v in attrs:
            b += varint(s(k)) + varint(s(v))
        b += varint(len(children)) + b"".join(children)
        return b
    cls = []
    for cid, name, fields in classes:
        fs = []
        for fname, fcls, cp, arr in fields:
            attrs = [("name", fname), ("class", str(fcls))]
            if cp:
                attrs.append(("constantPool", "true"))
            if arr:
                attrs.append(("dimension", "1"))
            fs.append(element("field", attrs, []))
        cls.append(element("class", [("name", name), ("id", str(cid))], fs))
    region = element("region", [], [])
    for _ in range(nest):
        region = element("region", [], [region])
    root = element("root", [], [element("metadata", [], cls), region])
    body = varint(0) + varint(0) + varint(1) + varint(len(strings)) + b"".join(jstr(x) for x in strings) + root
    return event(0, body)

def chunk(stacks, events, start_ns, dur_ns, tps=1_000_000_000, extra_classes=(), extra_pools=(), nest=0,
          drop_trace=None, line=0):
    """One chunk; the keyword arguments damage it on purpose for tests (line:
    every frame's line number, e.g. one of nine bytes)."""
    symbols, classes, methods, traces = {}, {}, {}, {}
    def sym(x):
        return symbols.setdefault(x, len(symbols) + 1)
    def cls(x):
        return classes.setdefault(x, len(classes) + 1)
    def method(c, m):
        return methods.setdefault((c, m), len(methods) + 1)
    evs = bytearray()
    for trace_id, t in events:
        body = b"\x65" + varint(t) + b"\x01" + varint(trace_id)  # type 101, thread 1
        evs += varint(len(body) + 1) + body if len(body) + 1 < 0x80 else event(101, body[1:])
    pools = []
    def pool(type_id, entries):
        pools.append(varint(type_id) + varint(len(entries)) + b"".join(varint(k) + v for k, v in entries))
    tr = []
    encoded = {}  # frame name -> its StackFrame bytes (large inputs repeat frames)
    def frame_bytes(name):
        b = encoded.get(name)
        if b is None:
            c, m, t = frame(name)
            b = encoded[name] = varint(method(c, m)) + varint(line) + b"\x00" + varint(t)
        return b
    for tid in sorted({e[0] for e in events} - {drop_trace}):
        names = stacks[tid]
        tr.append((tid, b"\x00" + varint(len(names)) + b"".join(frame_bytes(f) for f in reversed(names))))
    pool(20, [(1, jstr("main") + varint(1) + jstr("main") + varint(1))])
    pool(23, tr)
    pool(22, [(k, varint(cls(c)) + varint(sym(m)) + varint(sym("()V")) + varint(1) + b"\x00") for (c, m), k in methods.items()])
    pool(21, [(k, varint(0) + varint(sym(c)) + varint(0) + varint(1)) for c, k in classes.items()])
    pool(24, [(k, jstr(x)) for x, k in symbols.items()])
    for type_id, entries in extra_pools:
        pool(type_id, entries)
    pool(26, [(i, jstr(d)) for i, d in enumerate(["Interpreted", "JIT compiled", "Inlined", "Native", "C++", "Kernel", "C1 compiled"])])
    cp = event(1, varint(0) + varint(0) + varint(0) + b"\x00" + varint(len(pools)) + b"".join(pools))
    meta = metadata(extra_classes, nest)
    header_len = 68
    meta_off = header_len
    cp_off = meta_off + len(meta) + len(evs)
    size = cp_off + len(cp)
    start_ticks = 1000
    header = b"FLR\0" + struct.pack(">HHqqqqqqqI", 2, 0, size, cp_off, meta_off, start_ns, dur_ns, start_ticks, tps, 1)
    assert len(header) == 68
    return header + meta + bytes(evs) + cp

def main():
    args = sys.argv[1:]
    nchunks, seconds = 1, 10.0
    while args and args[0].startswith("--"):
        if args[0] == "--chunks":
            nchunks = int(args[1])
        elif args[0] == "--seconds":
            seconds = float(args[1])
        args = args[2:]
    src, dst = args
    stacks, counts = {}, []
    for frames, n in read_collapsed(src):
        tid = len(stacks) + 1
        stacks[tid] = frames
        counts.append((tid, n))
    total = sum(n for _, n in counts)
    dur = int(seconds * 1e9)
    start_ns = 1_700_000_000_000_000_000
    # Event i at time i * dur / total, ticks from the chunk's start.
    out = open(dst, "wb")
    per = -(-total // nchunks)
    i = 0
    cur = []
    def flush():
        if not cur:
            return
        t0 = cur[0][1]
        t1 = cur[-1][1] + 1
        evs = [(tid, 1000 + t - t0) for tid, t in cur]
        out.write(chunk(stacks, evs, start_ns + t0, t1 - t0))
        cur.clear()
    for tid, n in counts:
        for _ in range(n):
            cur.append((tid, i * dur // total))
            i += 1
            if len(cur) == per:
                flush()
    flush()
    out.close()

if __name__ == "__main__":
    main()
