#!/bin/bash
# Runs every libFuzzer target (tests/fuzz/fuzz_*.c) for SECONDS each (default
# $FG_FUZZ_SECONDS, else 60), two at a time, and fails when one finds a crash,
# a leak or undefined behaviour.  Builds build-fuzz (clang, ASan+UBSan) first.
# The whole run stays within $FG_FUZZ_BUDGET seconds (default 240, CI's share
# of its 30 minutes): with more targets, each gets less.
#
# The seed corpus is made afresh in a temporary directory: the handwritten
# seeds of tests/fuzz/seeds/, the project's samples (fixtures/, decompressed;
# fixtures/methods/ sources for the method scanner, the seeds' .cc, .rs and
# .go sources for the native one)
# and, when present, the real profiles of ../shared/fixtures; nothing of
# ../shared is ever written into the checkout; its real JFR recording and
# pprof profile keep a few hundred samples and the pool entries and table
# rows those name (see cut_jfr, cut_pprof).  Crashing and slow inputs are kept in $FG_FUZZ_ARTIFACTS (default
# build-fuzz/artifacts) to become regression tests (tests/fuzz/regressions/,
# replayed first, each under a time bound).
#
# `run.sh --build-only` configures and builds build-fuzz and stops there
# (contrib/run-tests.sh builds it while the plain tests run).
set -euo pipefail
cd "$(dirname "$0")/../.."
build_only=false
if [[ ${1:-} == --build-only ]]; then
	build_only=true
	shift
fi
seconds=${1:-${FG_FUZZ_SECONDS:-60}}
build=${FG_FUZZ_BUILD:-build-fuzz}
shared=${FG_SHARED_FIXTURES:-$PWD/../shared/fixtures}
artifacts=${FG_FUZZ_ARTIFACTS:-$build/artifacts}
parallel=${FG_FUZZ_JOBS:-2}
# Inputs of at most 8 KB for the text readers: every branch is reachable in
# a few lines, and small inputs keep the rate at thousands of runs a second.
# The binary readers' structures sit deeper: a JFR chunk's constant pools
# come after its events (the shared real recording is 226 KB), a pprof's
# tables after its samples (77 KB); SVG and perf seeds are kept to 64 KB.
max_len=${FG_FUZZ_MAX_LEN:-8192}
target_max_len() {
	case $1 in
	fuzz_jfr) echo "${FG_FUZZ_MAX_LEN:-262144}" ;;
	fuzz_pprof) echo "${FG_FUZZ_MAX_LEN:-131072}" ;;
	fuzz_svg | fuzz_perf) echo "${FG_FUZZ_MAX_LEN:-65536}" ;;
	*) echo "$max_len" ;;
	esac
}

cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DFG_FUZZ=ON -DFG_WERROR=ON -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
if $build_only; then
	exit 0
fi
mkdir -p "$artifacts"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Seeds: small HTML pages (real ones reduced to their skeleton), the head of
# each collapsed file cut at a line end (the fuzzer mutates a short file
# faster), and for the gzip target the same bytes behind its two framing
# bytes.
python3 - "$tmp" "$max_len" tests/fuzz/seeds fixtures contrib "$shared" <<'PY'
import gzip, os, struct, sys, zlib
out, MAX_LEN, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def archives(stem, data):
    """A zip holding the profile and a copy in a folder, or a tar.gz of it,
    by the length of the name."""
    import io, tarfile, zipfile
    buf = io.BytesIO()
    if len(stem) % 2:
        with tarfile.open(fileobj=buf, mode="w:gz") as t:
            info = tarfile.TarInfo(stem)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    else:
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(stem, data)
            z.writestr("copy/" + stem, data)
    return buf.getvalue()

def skeleton(page):
    """A real page without its template code: the lines the reader looks at
    (title, drawing flags, the data block, the footer), the data cut to a
    few KB.  Mutating 4 KB runs thousands of times a second; mutating a
    200 KB page, tens of times."""
    keep, data, budget = [], False, MAX_LEN // 2
    for line in page.split(b"\n"):
        if line.startswith(b"const cpool") or line.startswith(b"f("):
            data = True
        if data:
            if line.startswith(b"search(") or line.startswith(b"render("):
                keep += [line, b"</script></body></html>", b""]
                break
            if budget > 0 or not line:
                keep.append(line)
                budget -= len(line) + 1
        elif (b"<h1" in line or b"inverted" in line or b"maxdiff" in line or b"reverse" in line
              or line.startswith(b"<!DOCTYPE") or line.startswith(b"<html") or line.strip() == b"<script>"):
            keep.append(line)
    return b"\n".join(keep)
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i

# The real recordings and profiles keep few samples: a replay of the real
# JFR seed (5,728 samples, 226 KB) cost 0.33 s of CPU, of the real pprof
# (1,180 samples, 77 KB) 0.37 s; cut to 200 / 100 samples, 0.12 / 0.1 s,
# with the same edges reached (libFuzzer's INITED cov within its run-to-run
# noise of a few edges; pprof at 300 samples ran 100 inputs a second alone,
# 92 beside another target, at 100 samples 139 alone: its tables, 44 KB,
# are the rest, kept whole).  The JFR cut to 200 samples kept its constant
# pools whole too, 127 of its 144 KB (1,180 stack traces, 970 symbols, for
# the 122 traces its samples name), and fuzz_jfr ran 129, 55 and 69 inputs
# a second in three CI runs: under the sanitizers an input of the seed's
# size cost 90-100 ms, and the inputs a run adds from it are as large.
# Its pools now keep the entries the kept events name (stack traces, their
# methods, classes, packages and symbols, threads...) and each pool's first
# entry, so every kind of pool stays: 36 KB, the same collapsed stacks.
# With fuzz_jfr's share checks on one set of options an input (the
# flipped copies below), an input of it costs 40-48 ms (22-24 M
# instructions plain, 54 M before), and INITED coverage is 1,231-1,234
# edges (1,225-1,234 before).  Beside fuzz_pprof, 26 s each as here, five
# interleaved runs on a machine at load 5-9 (of 2 cores, so rates are per
# CPU second): fuzz_jfr 45-65 -> 115-156 inputs a CPU second (median 48
# -> 134), 1,304-1,340 -> 1,369-1,426 edges at the end; fuzz_pprof's
# replay beside the old and the new fuzz_jfr within noise (74-96 and 79-99
# ms an input).  Then fuzz_pprof ran 85 inputs a second in CI at load 2.8:
# its profile is cut the same way (cut_pprof: the locations, functions
# and strings the 100 kept samples and the other fields name, the strings
# renumbered; 44 -> 20 KB, the same collapse, annotated collapse, top and
# protocol answers), its harness reads an input once without a record for
# both record checks and runs share's checks on one set of options (its
# seeds flipped as fuzz_jfr's): 85 -> 30 ms an input of the seed, 25 s
# alone 101 -> 193 inputs a second, 1,399 -> 1,428 edges at the end,
# INITED 1,158 -> 1,157.
def jvarint(b, i):
    """JFR's compressed integer: 7 bits a byte, low first, the 9th byte whole."""
    v = 0
    for s in range(0, 56, 7):
        c = b[i]; i += 1; v |= (c & 0x7f) << s
        if c < 0x80:
            return v, i
    return v | b[i] << 56, i + 1

def enc_varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80); v >>= 7
    out.append(v)
    return bytes(out)

PRIM = {"boolean": "b", "byte": "b", "char": "v", "short": "v", "int": "v", "long": "v",
        "float": 4, "double": 8, "java.lang.String": "s"}

class Chunk:
    """A chunk's metadata (classes and their fields) and a reader of values
    as it lays them out, noting the constant-pool keys they name."""
    def __init__(self, chunk, md):
        self.b = chunk
        size, i = jvarint(chunk, md)
        t, i = jvarint(chunk, i)
        for _ in range(3):                     # start, duration, metadata id
            _, i = jvarint(chunk, i)
        n, i = jvarint(chunk, i)
        self.strings = []
        for _ in range(n):
            s, i, _ = self.string(i)
            self.strings.append(s.decode("utf-8", "replace") if s is not None else "")
        self.classes = {}
        self.element(i, None)
        self.string_id = next((k for k, c in self.classes.items() if c[0] == "java.lang.String"), None)

    def string(self, i):
        enc = self.b[i]; i += 1
        if enc in (0, 1):
            return (None if enc == 0 else b""), i, None
        if enc == 2:
            key, i = jvarint(self.b, i)
            return None, i, key
        n, i = jvarint(self.b, i)
        if enc == 4:
            for _ in range(n):
                _, i = jvarint(self.b, i)
            return None, i, None
        if enc not in (3, 5):
            raise ValueError("string encoding %d" % enc)
        return self.b[i:i + n], i + n, None

    def element(self, i, cls):
        name, i = jvarint(self.b, i)
        na, i = jvarint(self.b, i)
        attrs = {}
        for _ in range(na):
            k, i = jvarint(self.b, i)
            v, i = jvarint(self.b, i)
            attrs[self.strings[k]] = self.strings[v]
        name = self.strings[name]
        child_cls = None
        if name == "class" and cls is None:
            child_cls = int(attrs["id"])
            self.classes[child_cls] = (attrs["name"], [])
        elif name == "field" and cls is not None:
            self.classes[cls][1].append((int(attrs["class"]), attrs.get("constantPool") == "true",
                                         attrs.get("dimension", "0") != "0"))
        nc, i = jvarint(self.b, i)
        for _ in range(nc):
            i = self.element(i, child_cls)
        return i

    def value(self, cls, i, refs):
        """The end of a value of class cls at i; the (class, key) pairs it
        names appended to refs."""
        name, fields = self.classes[cls]
        kind = PRIM.get(name)
        if kind == "b":
            return i + 1
        if kind == "v":
            return jvarint(self.b, i)[1]
        if kind == "s":
            _, i, key = self.string(i)
            if key is not None:
                refs.append((cls, key))
            return i
        if kind:
            return i + kind
        for ftype, cpool, array in fields:
            n = 1
            if array:
                n, i = jvarint(self.b, i)
            for _ in range(n):
                if cpool:
                    key, i = jvarint(self.b, i)
                    refs.append((ftype, key))
                else:
                    i = self.value(ftype, i, refs)
        return i

def prune_pools(chunk, cp, md, events):
    """The checkpoint event at cp with only the pool entries the events
    name (through other entries too), and each pool's first entry so that
    every kind of pool stays; None when it does not parse."""
    try:
        c = Chunk(chunk, md)
        n, i = jvarint(chunk, cp)
        head = i
        for _ in range(4):                     # type, start, duration, delta
            _, i = jvarint(chunk, i)
        i += 1                                 # checkpoint type
        head = chunk[head:i]
        npools, i = jvarint(chunk, i)
        pools, where = [], {}
        for _ in range(npools):
            t, i = jvarint(chunk, i)
            count, i = jvarint(chunk, i)
            entries = []
            for _ in range(count):
                st = i
                key, i = jvarint(chunk, i)
                where.setdefault((t, key), i)
                i = c.value(t, i, [])
                entries.append((key, st, i))
            pools.append((t, entries))
        if i != cp + n:
            return None
        refs = []
        for at, _, t in events:
            if t > 1:
                _, j = jvarint(chunk, at)
                _, j = jvarint(chunk, j)
                c.value(t, j, refs)
        refs += [(t, e[0][0]) for t, e in pools if e]
        marked = set()
        while refs:
            r = refs.pop()
            if r in marked or r not in where:
                continue
            marked.add(r)
            c.value(r[0], where[r], refs)
        body = [head, enc_varint(npools)]
        for t, entries in pools:
            kept = [e for k, e in enumerate(entries) if k == 0 or (t, e[0]) in marked]
            body += [enc_varint(t), enc_varint(len(kept))] + [chunk[st:end] for _, st, end in kept]
        body = b"".join(body)
        size = len(body) + 1
        while len(enc_varint(size)) + len(body) != size:
            size += 1
        return enc_varint(size) + body
    except (IndexError, KeyError, ValueError):
        return None

def cut_jfr(raw, keep):
    """Each chunk with its metadata, constant pools and other events whole,
    and its first `keep` events of its most frequent type (the samples):
    the real pools and tables, a fraction of the bytes."""
    out, pos = [], 0
    while pos + 68 <= len(raw) and raw[pos:pos + 4] == b"FLR\0":
        hdr = list(struct.unpack(">4sHHqqqqqqqI", raw[pos:pos + 68]))
        size, cp, md = hdr[3], hdr[4], hdr[5]
        if size < 68 or pos + size > len(raw):
            return raw
        chunk = raw[pos:pos + size]
        events, i = [], 68
        while i < size:
            n, j = varint(chunk, i)
            t, _ = varint(chunk, j)
            if n == 0 or i + n > size:
                return raw
            events.append((i, n, t))
            i += n
        counts = {}
        for _, _, t in events:
            counts[t] = counts.get(t, 0) + 1
        common = max((t for t in counts if t > 1), key=lambda t: counts[t], default=None)
        kept, seen = [], 0
        for e in events:
            seen += e[2] == common
            if e[2] != common or seen <= keep:
                kept.append(e)
        # (A checkpoint's delta to the one before: only the first is kept
        # where its events were, so a chunk with several is left whole.)
        # A chunk with no sample left out keeps its pools whole too (the
        # handwritten seeds' unreferenced entries are there for the parser).
        if sum(1 for _, _, t in events if t == 1) > 1 or seen <= keep:
            kept, pools = events, None
        else:
            pools = prune_pools(chunk, cp, md, kept)
        body, moved, at = [], {}, 68
        for i, n, t in kept:
            moved[i] = at
            body.append(pools if i == cp and pools else chunk[i:i + n])
            at += len(body[-1])
        if cp not in moved or md not in moved:
            return raw
        hdr[3], hdr[4], hdr[5] = at, moved[cp], moved[md]
        out.append(struct.pack(">4sHHqqqqqqqI", *hdr) + b"".join(body))
        pos += size
    return b"".join(out) + raw[pos:] if out else raw

def pb_fields(b):
    """A protobuf message's fields: (number, wire type, value), a value an
    int (varint, fixed) or bytes (length-delimited)."""
    out, i = [], 0
    while i < len(b):
        k, i = varint(b, i)
        w = k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
            if i > len(b):
                raise IndexError
        elif w in (1, 5):
            n = 8 if w == 1 else 4
            v, i = int.from_bytes(b[i:i + n], "little"), i + n
        else:
            raise IndexError
        out.append((k >> 3, w, v))
    return out

def pb_varint(v):
    out = bytearray()
    while True:
        out.append((v & 0x7f) | (0x80 if v > 0x7f else 0))
        v >>= 7
        if not v:
            return bytes(out)

def pb_encode(fields):
    out = []
    for f, w, v in fields:
        out.append(pb_varint(f << 3 | w))
        out.append(pb_varint(v) if w == 0 else pb_varint(len(v)) + v if w == 2 else v.to_bytes(8 if w == 1 else 4, "little"))
    return b"".join(out)

def pb_ints(w, v):
    """A repeated integer field's values, packed or not."""
    if w != 2:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out

def cut_pprof(raw, keep):
    """The profile with its first `keep` samples (field 2) and the tables
    they name (prune_pprof: the real profile's tables are most of its bytes
    once cut to a few samples); the profile itself when it has no more
    samples or does not parse."""
    try:
        fields = pb_fields(raw)
    except IndexError:
        return raw
    if sum(f == 2 for f, _, _ in fields) <= keep:
        return raw
    seen = 0
    top = []
    for f, w, v in fields:
        seen += f == 2
        if f != 2 or seen <= keep:
            top.append((f, w, v))
    try:
        return pb_encode(prune_pprof(top))
    except (IndexError, ValueError):  # a table that does not parse: kept whole
        return pb_encode(top)

def prune_pprof(top):
    """A profile's fields without the locations, functions and strings that
    its samples and other fields do not name, the strings renumbered."""
    locs = set()
    for f, w, v in top:
        if f == 2:
            for g, gw, gv in pb_fields(v):
                if g == 1:
                    locs.update(pb_ints(gw, gv))
    funcs = set()
    for f, w, v in top:
        if f == 4:
            fields = pb_fields(v)
            if any(g == 1 and gv in locs for g, _, gv in fields):
                for g, gw, gv in fields:
                    if g == 4:
                        funcs.update(gv2 for h, _, gv2 in pb_fields(gv) if h == 1)
    kept = [(f, w, v) for f, w, v in top
            if not (f == 4 and not any(g == 1 and gv in locs for g, _, gv in pb_fields(v)))
            and not (f == 5 and not any(g == 1 and gv in funcs for g, _, gv in pb_fields(v)))]
    # The string fields of each message kind, by field number.
    strings = {1: {1, 2}, 11: {1, 2}, 3: {5, 6}, 5: {2, 3, 4}}
    used = {0}
    def refs(f, v, fn):
        if f in strings:
            return [(g, gw, fn(gv) if g in strings[f] else gv) for g, gw, gv in pb_fields(v)]
        if f == 2:  # a sample's labels: key, str, num_unit
            return [(g, gw, pb_encode([(h, hw, fn(hv) if h in (1, 2, 4) else hv) for h, hw, hv in pb_fields(gv)])
                     if g == 3 else gv) for g, gw, gv in pb_fields(v)]
        return None
    for f, w, v in kept:
        refs(f, v, lambda x: used.add(x) or x)
        if f in (7, 8, 14):
            used.add(v)
        if f == 13:
            used.update(pb_ints(w, v))
    table = [v for f, w, v in kept if f == 6]
    order = sorted(x for x in used if x < len(table))
    renum = {old: new for new, old in enumerate(order)}
    out, sid = [], 0
    for f, w, v in kept:
        if f == 6:
            if sid in renum:
                out.append((f, w, v))
            sid += 1
            continue
        r = refs(f, v, lambda x: renum.get(x, 0))
        if r is not None:
            out.append((f, w, pb_encode(r)))
        elif f in (7, 8, 14):
            out.append((f, w, renum.get(v, 0)))
        elif f == 13:
            out.append((f, 2, b"".join(pb_varint(renum.get(x, 0)) for x in pb_ints(w, v))))
        else:
            out.append((f, w, v))
    return out

for t in ("archive", "html", "collapsed", "profile", "gzip", "runs", "method", "native", "metrics", "commitgraph", "rawtree", "pack", "jfr", "pprof", "svg", "perf"):
    os.makedirs(os.path.join(out, t), exist_ok=True)
n = 0
def put(target, data):
    global n
    n += 1
    with open(os.path.join(out, target, "seed%05d" % n), "wb") as f:
        f.write(data)
for d in dirs:
    if not os.path.isdir(d):
        continue
    for root, _, files in os.walk(d):
        for name in sorted(files):
            path = os.path.join(root, name)
            raw = open(path, "rb").read()
            if name.endswith(".runs"):
                put("runs", raw)
                continue
            if name.endswith(".commit-graph"):
                put("commitgraph", raw)
                continue
            if name.endswith(".tree"):
                put("rawtree", raw)
                continue
            if name.endswith(".packobjects") or name.endswith(".packindex"):
                put("pack", raw)
                continue
            # Sources for the method scanner: a language byte, a frame line.
            lang = {".java": 0, ".kt": 1, ".scala": 2}.get(os.path.splitext(name)[1])
            if lang is not None:
                put("method", bytes([lang]) + b"p/A.a\n" + raw)
                continue
            # Native sources: a language byte (C/C++, Rust, Go) and the frame
            # their first line names.
            lang = {".cc": 0, ".rs": 1, ".go": 2}.get(os.path.splitext(name)[1])
            if lang is not None and raw.startswith(b"// frame: "):
                frame, _, _ = raw[len(b"// frame: "):].partition(b"\n")
                put("native", bytes([lang]) + frame + b"\n" + raw)
                continue
            # fuzz_metrics: byte 0 even = a metric rules file, odd = an API answer.
            if name.endswith(".metrics"):
                put("metrics", b"\x00" + raw)
                continue
            if name.endswith(".json"):
                put("metrics", b"\x01" + raw)
                put("metrics", b"\x03" + raw)
                continue
            if name.endswith(".jfr"):
                data = cut_jfr(raw, 200)
                if len(data) <= 256 << 10:
                    # Also with the last byte's two low bits flipped: fuzz_jfr
                    # picks share's pattern set and options from them, so
                    # each seed meets both pattern sets and both options.
                    put("jfr", data)
                    put("jfr", data[:-1] + bytes([data[-1] ^ 3]))
                continue
            data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
            stem = name[:-3] if name.endswith(".gz") else name
            if stem.endswith(".perf"):
                put("perf", data[:64 << 10])
                continue
            if stem.endswith(".svg"):
                # Whole: a cut SVG loses parents its frames need (flamegraph.pl
                # writes children first) and is refused at once.
                if len(data) <= 64 << 10:
                    put("svg", data)
                continue
            if stem.endswith(".pb"):
                data = cut_pprof(data, 100)
                if len(data) <= 256 << 10:
                    # Both pattern sets and options, as fuzz_jfr's seeds.
                    put("pprof", data)
                    put("pprof", data[:-1] + bytes([data[-1] ^ 3]))
                continue
            if stem.endswith(".html"):
                if len(data) > MAX_LEN:
                    data = skeleton(data)
                if len(data) > MAX_LEN:
                    continue
                put("html", data)
            elif stem.endswith(".collapsed"):
                cut = data.rfind(b"\n", 0, MAX_LEN // 2)
                data = data if len(data) <= MAX_LEN // 2 else data[:cut + 1]
                put("collapsed", data)
            else:
                continue
            put("profile", data)
            put("gzip", b"\x00\x00" + data[:MAX_LEN // 2])
            put("gzip", b"\x01\x40" + data[:MAX_LEN // 2])
            # A raw deflate stream behind the target's own gzip header.
            z = zlib.compressobj(6, zlib.DEFLATED, -15)
            put("gzip", b"\x02\x00" + z.compress(data[:MAX_LEN // 2]) + z.flush())
            # fuzz_archive: the profile wrapped by the target, stored and
            # deflated; and real archives of it: a zip of it and of a second
            # member, a tar.gz.
            put("archive", b"\x01" + data[:MAX_LEN // 2])
            put("archive", b"\x02" + data[:MAX_LEN // 2])
            put("archive", b"\x00" + archives(stem, data[:MAX_LEN // 4]))
PY

# Runs one target; its log goes to $tmp/NAME.log.
fuzz() {
	local name=$1 corpus
	case $name in
	fuzz_html) corpus=html ;;
	fuzz_collapsed | fuzz_normalize) corpus=collapsed ;;
	fuzz_gzip) corpus=gzip ;;
	fuzz_archive) corpus=archive ;;
	fuzz_runs) corpus=runs ;;
	fuzz_method) corpus=method ;;
	fuzz_native) corpus=native ;;
	fuzz_metrics) corpus=metrics ;;
	fuzz_commitgraph) corpus=commitgraph ;;
	fuzz_rawtree) corpus=rawtree ;;
	fuzz_pack) corpus=pack ;;
	fuzz_jfr) corpus=jfr ;;
	fuzz_pprof) corpus=pprof ;;
	fuzz_svg) corpus=svg ;;
	fuzz_perf) corpus=perf ;;
	*) corpus=profile ;;
	esac
	mkdir -p "$tmp/work/$name"
	# The seeds directory is read-only to the run: new inputs go to work/.
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$build/$name" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len="$(target_max_len "$name")" \
		-print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
		"$tmp/work/$name" "$tmp/$corpus" >"$tmp/$name.log" 2>&1
}

targets=()
for src in tests/fuzz/fuzz_*.c; do
	targets+=("$(basename "$src" .c)")
done
declare -A pids
status=0
# The budget is the replay's and the fuzzing's together: the targets share
# what the replay left.
started=$SECONDS
# The regression inputs (tests/fuzz/regressions/: crashes, wrong answers and
# slow inputs the targets found) replayed through their targets first, each
# within $FG_FUZZ_REPLAY_TIMEOUT seconds of wall time (default 30: an input
# here replays in well under a second plain, a few under the sanitizers on
# a loaded machine); a slow one that came back fails the run as a crash
# would (libFuzzer's -timeout).  test_regressions bounds the same replays'
# CPU time, and alone replays a gzip'd input (the HTML harness reads a page
# one byte at a time too: seconds for deep-stack.html.gz's 5 MB).
for f in tests/fuzz/regressions/*; do
	case $f in
	*.html) t=fuzz_html ;;
	*.jfr) t=fuzz_jfr ;;
	*.pb) t=fuzz_pprof ;;
	*.collapsed) t=fuzz_collapsed ;;
	*.perf) t=fuzz_perf ;;
	*.svg) t=fuzz_svg ;;
	*) continue ;;
	esac
	if ! ASAN_OPTIONS=detect_leaks=1 "$build/$t" -runs=1 -timeout="${FG_FUZZ_REPLAY_TIMEOUT:-30}" "$f" >"$tmp/replay.log" 2>&1; then
		echo "fuzz: regression input $f failed in $t (a crash, or over ${FG_FUZZ_REPLAY_TIMEOUT:-30} s):" >&2
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|ALARM)' "$tmp/replay.log" | head -5 >&2
		status=1
	fi
done
budget=$((${FG_FUZZ_BUDGET:-240} - (SECONDS - started)))
rounds=$(((${#targets[@]} + parallel - 1) / parallel))
if [[ $((rounds * seconds)) -gt $budget ]]; then
	seconds=$((budget / rounds))
fi
report() {
	local name=$1 rc=$2 execs
	local rate cov
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$name.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/$name.log")
	# Without the final stats (a crash), the last DONE or progress line.
	if [[ -z $rate ]]; then
		rate=$(grep -o 'exec/s: [0-9]*' "$tmp/$name.log" | tail -1 | cut -d' ' -f2 || true)
	fi
	# (|| true: a target that crashed on a seed printed no cov line, and
	# pipefail would end the script before it reports the crash.)
	cov=$(grep -o 'cov: [0-9]*' "$tmp/$name.log" | tail -1 || true)
	if [[ $rc -eq 0 ]]; then
		echo "fuzz: $name: ${seconds}s, ${execs:-?} runs (${rate:-?}/s, ${cov:-cov: ?} edges), no crash"
		rates+=("$(printf '%-18s %8s exec/s%s' "$name" "${rate:-?}" "$([[ ${rate:-0} -lt 100 ]] && echo '  (below 100/s: profile the harness or cut its seeds)')")")
	else
		echo "fuzz: $name FAILED (exit $rc); crashing input in $artifacts:" >&2
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|Test unit written)' "$tmp/$name.log" | head -20 >&2
		status=1
	fi
}
for name in "${targets[@]}"; do
	while [[ $(jobs -rp | wc -l) -ge $parallel ]]; do
		wait -n || true
	done
	fuzz "$name" &
	pids[$name]=$!
done
rates=()
for name in "${targets[@]}"; do
	rc=0
	wait "${pids[$name]}" || rc=$?
	report "$name" "$rc"
done
# Executions a second per target, on its seeds and what it found; the
# machine's load beside them (a loaded machine slows every target).
echo "fuzz: executions per second (load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)):"
printf '  %s\n' "${rates[@]}"
exit $status
