#!/usr/bin/env python3
"""Whole-process benchmarks of fgbisect: every row of docs/performance.md in
one interleaved run, as medians and ratios, with the load average printed.
Prints figures; judges nothing.

usage: contrib/bench.py [--runs N] [--fgbisect PATH] [--baseline PATH] [--shared DIR] [--scale-mb MB]
                        [--instructions] [--only SECTION,...]

With no arguments it works from a fresh clone: it builds build/fgbisect when
it is missing, takes the large fixture from ../shared/fixtures beside the
checkout, and skips (loudly) the rows that need ../shared when it is absent;
the collapsed-scaling rows then use the project's own fixtures/.
--baseline OLD adds OLD's rows to the large-fixture (share, top and
collapse), start-up and many-profile sections (an earlier build, kept aside),
each with its ratio to the new binary's, in the same interleaved rounds.

Method: every round runs each command once, in turn (back-to-back repeats of
one command read faster than interleaved ones on a shared machine, so rounds
interleave them); a warm-up round first (page cache).  For each command the
median wall and CPU time (user + sys of the process, from wait4) over the
rounds, the peak RSS (ru_maxrss, the figure `/usr/bin/time -f %M` prints),
and the ratio to its reference command computed round by round (the median
of the per-round ratios), in wall and in CPU time.  On a loaded machine the
CPU ratios are the steadier figure; --instructions adds callgrind's exact
instruction counts (needs valgrind).
"""
import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--runs", type=int, default=9, help="interleaved rounds (default 9)")
ap.add_argument("--fgbisect", default=os.path.join(root, "build", "fgbisect"))
ap.add_argument("--baseline", help="an earlier fgbisect binary to compare the large fixture's share, top and "
                "collapse, start-up and many profiles with")
ap.add_argument("--shared", default=os.path.join(os.path.dirname(root), "shared", "fixtures"),
                help="the shared fixtures (default ../shared/fixtures beside the checkout)")
ap.add_argument("--scale-mb", type=int, default=48, help="size of the 1x collapsed input in MB (default 48)")
ap.add_argument("--instructions", action="store_true", help="also count instructions with callgrind")
SECTIONS = ("large", "gzip", "startup", "many", "parallel", "collapsed")
ap.add_argument("--only", default=",".join(SECTIONS),
                help=f"the sections to run, comma-separated (default all: {','.join(SECTIONS)})")
args = ap.parse_args()
only = set(args.only.split(","))
if only - set(SECTIONS):
    ap.error(f"--only: unknown section {', '.join(sorted(only - set(SECTIONS)))}")

PATTERN = "com/sun/tools/javac/comp/Attr."  # the large fixture's ground-truth pattern
fg = os.path.abspath(args.fgbisect)
baseline = os.path.abspath(args.baseline) if args.baseline else None
if not os.path.exists(fg):
    print(f"building {fg} (cmake, Release with debug info)", file=sys.stderr)
    build = os.path.dirname(fg)
    subprocess.check_call(["cmake", "-S", root, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                          stdout=subprocess.DEVNULL)
    subprocess.check_call(["cmake", "--build", build, "-j", str(os.cpu_count() or 2), "--target", "fgbisect"],
                          stdout=subprocess.DEVNULL)

large_gz = os.path.join(args.shared, "large", "javac-large.html.gz")
daily = os.path.join(args.shared, "daily")
have_shared = os.path.exists(large_gz)
if not have_shared:
    print(f"SKIP: no shared fixtures at {args.shared}: the large-fixture, gzip and many-profile "
          "rows are skipped; the collapsed-scaling rows use fixtures/", file=sys.stderr)


# GNU time's %M is the peak RSS the design's targets use.  (A child forked
# from this Python process would report Python's own RSS as its peak: the
# kernel keeps the high-water mark of the image exec replaced.)
TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
if not TIME:
    print("SKIP: peak RSS: GNU time (/usr/bin/time, Debian package 'time') is not installed", file=sys.stderr)


def run(cmd, rss=True):
    """Wall seconds, CPU seconds (user + sys, from wait4) and peak RSS (KiB,
    0 when not measured) of one run, its output discarded."""
    with tempfile.NamedTemporaryFile("r") as peak:
        wrapped = [TIME, "-f", "%M", "-o", peak.name] + cmd if rss and TIME else cmd
        start = time.perf_counter()
        proc = subprocess.Popen(wrapped, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(cmd)}")
        text = peak.read().strip()
    return wall, usage.ru_utime + usage.ru_stime, int(text.split()[-1]) if text else 0


class Row:
    """A command; ref names the row it is compared with; rss=False runs it
    without the GNU time wrapper (start-up figures, where its millisecond
    counts)."""
    def __init__(self, name, cmd, ref=None, rss=True):
        self.name, self.cmd, self.ref, self.rss = name, cmd, ref, rss
        self.runs = []


def bench(rows):
    """Interleaved rounds over rows; fills row.runs."""
    for row in rows:
        run(row.cmd, row.rss)  # warm-up
    for _ in range(args.runs):
        for row in rows:
            row.runs.append(run(row.cmd, row.rss))


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def ratio(a, b, i):
    """Median over rounds of a / b in figure i (0 wall, 1 cpu)."""
    return median([x[i] / y[i] for x, y in zip(a.runs, b.runs) if y[i] > 0])


def report(title, rows, size=None, unit="s"):
    """unit "ms" prints milliseconds (start-up and small files)."""
    by = {r.name: r for r in rows}
    scale = 1000 if unit == "ms" else 1
    print(f"\n## {title}")
    print(f"{'command':34} {'wall ' + unit:>8} {'cpu ' + unit:>7} {'peak MiB':>9} {'ratio wall':>10} {'ratio cpu':>9}"
          "  reference")
    for r in rows:
        wall = median([x[0] for x in r.runs]) * scale
        cpu = median([x[1] for x in r.runs]) * scale
        rss = max(x[2] for x in r.runs) / 1024
        shown = f"{rss:9.1f}" if rss else f"{'-':>9}"
        rw = f"{ratio(r, by[r.ref], 0):10.2f}" if r.ref else " " * 10
        rc = f"{ratio(r, by[r.ref], 1):9.2f}" if r.ref else " " * 9
        extra = f"  {r.ref}" if r.ref else ""
        if size and rss and r.name.startswith(("share", "top", "subsystems", "diff", "collapse")):
            extra += f"  (RSS {rss * 1024 * 1024 / size:.2f} x input)"
        print(f"{r.name:34} {wall:8.3f} {cpu:7.3f} {shown} {rw} {rc}{extra}")


def instructions(cmd):
    with tempfile.NamedTemporaryFile() as out:
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}"] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in p.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip().replace(",", ""))
    return None


def count_bytes(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = 0
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        n += len(b)
    p.wait()
    return n


load = os.getloadavg()
print(f"fgbisect {fg}; {args.runs} interleaved rounds after a warm-up; {os.cpu_count()} cores; "
      f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")

with tempfile.TemporaryDirectory() as tmp:
    if have_shared:
        plain = os.path.join(tmp, "large.html")
        with gzip.open(large_gz, "rb") as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst)
        size = os.path.getsize(plain)
        share = [fg, "share", "--frame", PATTERN]
    if have_shared and "large" in only:
        rows = [
            Row("wc -l", ["wc", "-l", plain]),
            Row("share (html)", share + [plain], "wc -l"),
            Row("top (html)", [fg, "top", plain], "share (html)"),
            Row("subsystems (html)", [fg, "subsystems", plain], "share (html)"),
            Row("diff (html vs itself)", [fg, "diff", plain, plain], "share (html)"),
            Row("collapse (html)", [fg, "collapse", plain], "share (html)"),
            Row("collapse --annotate (html)", [fg, "collapse", "--annotate", plain], "share (html)"),
            Row("collapse --unsorted (html)", [fg, "collapse", "--unsorted", plain], "share (html)"),
            # One thread (-j 1) against the default, which reads the page on
            # two; diff reads its two profiles at once by default, one at a
            # time each on two threads with -j 4.
            Row("share -j 1 (html)", [fg, "share", "-j", "1", "--frame", PATTERN, plain], "wc -l"),
            Row("top -j 1 (html)", [fg, "top", "-j", "1", plain], "top (html)"),
            Row("subsystems -j 1 (html)", [fg, "subsystems", "-j", "1", plain], "subsystems (html)"),
            Row("collapse -j 1 (html)", [fg, "collapse", "-j", "1", plain], "collapse (html)"),
            Row("diff -j 4 (html vs itself)", [fg, "diff", "-j", "4", plain, plain], "diff (html vs itself)"),
        ]
        if baseline:
            rows += [Row("baseline: share (html)", [baseline] + share[1:] + [plain], "share (html)"),
                     Row("baseline: top (html)", [baseline, "top", plain], "top (html)"),
                     Row("baseline: collapse (html)", [baseline, "collapse", plain], "collapse (html)")]
        bench(rows)
        print(f"\nlarge fixture: {size:,} bytes uncompressed, {sum(1 for _ in open(plain, 'rb')):,} lines")
        report("the large fixture (ratios: share and share -j 1 to wc -l, the other -j rows to their command's "
               "default row, the others to share; baseline to the new binary)",
               rows, size)
        print(f"collapse writes {count_bytes([fg, 'collapse', plain]):,} bytes, "
              f"--annotate {count_bytes([fg, 'collapse', '--annotate', plain]):,} bytes")

    if have_shared and "gzip" in only:
        rows = [
            Row("gzip -dc >/dev/null", ["gzip", "-dc", large_gz]),
            Row("zcat | wc -l", ["sh", "-c", f"zcat '{large_gz}' | wc -l"], "gzip -dc >/dev/null"),
            Row("share (html.gz)", share + [large_gz], "gzip -dc >/dev/null"),
        ]
        bench(rows)
        report("gzip: share on the .gz against inflating alone", rows)
        print(f"share (html.gz) / (zcat | wc -l): wall {ratio(rows[2], rows[1], 0):.2f}, "
              f"cpu {ratio(rows[2], rows[1], 1):.2f}")

    if "startup" in only:
        tiny = os.path.join(root, "fixtures", "tiny-3x.html")
        rows = [
            Row("/bin/true", ["/bin/true"], rss=False),
            Row("share (tiny profile)", [fg, "share", "--frame", "a", tiny], "/bin/true", rss=False),
            Row("--version", [fg, "--version"], "/bin/true", rss=False),
            Row("top (tiny profile)", [fg, "top", tiny], "/bin/true", rss=False),
        ]
        if baseline:
            rows.append(Row("baseline: share (tiny profile)", [baseline, "share", "--frame", "a", tiny],
                            "share (tiny profile)", rss=False))
        bench(rows)
        report("start-up: a tiny profile against /bin/true (baseline: against the new binary)", rows, unit="ms")

    if "many" in only:
        # 30 daily files: the real HTML pages of ../shared, and the
        # project's own daily samples (fixtures/day*.collapsed.gz, the same
        # captures as collapsed stacks), each of the six five times.
        own = sorted(os.path.join(root, "fixtures", f) for f in os.listdir(os.path.join(root, "fixtures"))
                     if f.startswith("day") and f.endswith(".collapsed.gz"))
        sets = [("30 own daily samples", [own[i % len(own)] for i in range(30)])]
        if have_shared:
            htmls = sorted(os.path.join(daily, f) for f in os.listdir(daily) if f.endswith(".html"))
            sets.insert(0, ("30 daily HTML files", [htmls[i % len(htmls)] for i in range(30)]))
            links = []
            for i in range(8):
                links.append(os.path.join(tmp, f"copy{i}.html"))
                os.link(plain, links[-1])
            sets.append(("8 x large", links))
        rows = []
        for name, files in sets:
            cmd = [fg, "share", "--frame", "TransactionalColumnFamily"]
            rows.append(Row(f"share -j 1, {name}", cmd + ["-j", "1"] + files))
            rows.append(Row(f"share, {name}", cmd + files, f"share -j 1, {name}"))
            if baseline:
                rows.append(Row(f"baseline: share, {name}", [baseline] + cmd[1:] + files, f"share, {name}"))
        bench(rows)
        report(f"many profiles: one thread against one per core ({os.cpu_count()}); baseline against the new binary",
               rows, unit="ms")

    if have_shared and "parallel" in only:
        # diff and run mode over several profiles, one thread against one
        # per core: 3 daily HTML pages against 3, the large fixture against
        # itself (with and without the trees of --svg), and run mode on a
        # build of 28 daily pages and of 4 x large (a runs file of one
        # commit, in a repository of one commit).
        grpc = [os.path.join(daily, f"day01-broker-{i}-grpc.html") for i in range(3)]
        grpc.append(os.path.join(daily, "day10-broker-0-grpc.html"))
        versions = os.path.join(args.shared, "versions")
        cand = [grpc[3], os.path.join(versions, "v3.0-regressed.html"), os.path.join(versions, "v4.5-regressed.html")]
        copy = os.path.join(tmp, "large-copy.html")
        os.link(plain, copy)
        repo = os.path.join(tmp, "repo")
        git = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-C", repo]
        subprocess.check_call(["git", "init", "-q", repo])
        subprocess.check_call(git + ["commit", "-q", "--allow-empty", "-m", "one"])
        head = subprocess.check_output(git + ["rev-parse", "HEAD"], text=True).strip()
        builds = {"28 daily HTML": [grpc[i % 4] for i in range(28)], "4 x large": [plain, copy, plain, copy]}
        sets = [("diff, 3 daily HTML against 3", ["diff"] + grpc[:3] + ["--"] + cand),
                ("diff, large against itself", ["diff", plain, copy]),
                ("diff --svg, large against itself", ["diff", "--svg", os.path.join(tmp, "d.svg"), plain, copy])]
        for name, files in builds.items():
            runs = os.path.join(tmp, name.replace(" ", "-") + ".runs")
            with open(runs, "w") as f:
                f.writelines(f"2026-11-01 {head[:8]} node-{i} grpc cpu {p}\n" for i, p in enumerate(files))
            sets.append((f"run, a build of {name}", ["run", "--frame", "TransactionalColumnFamily",
                                                     "--threshold", "90", "--runs", runs]))
        rows = []
        for name, cmd in sets:
            # run mode opens the repository it is started in.
            at = ["sh", "-c", f'cd "{repo}" && exec "$@"', "sh", fg] if cmd[0] == "run" else [fg]
            rows.append(Row(f"{name}, -j 1", at + cmd[:1] + ["-j", "1"] + cmd[1:]))
            rows.append(Row(name, at + cmd, f"{name}, -j 1"))
        bench(rows)
        report(f"diff and run mode: one thread against one per core ({os.cpu_count()})", rows, unit="ms")

    # Collapsed input at 1x, 2x, 4x, 8x: the first lines of the large
    # fixture's collapsed stacks (or the project's own samples, repeated),
    # then that file repeated.
    if "collapsed" in only:
        base = os.path.join(tmp, "x1.collapsed")
        want = args.scale_mb << 20
        with open(base, "wb") as out:
            if have_shared:
                p = subprocess.Popen([fg, "collapse", plain], stdout=subprocess.PIPE)
                while out.tell() < want:
                    line = p.stdout.readline()
                    if not line:
                        break
                    out.write(line)
                p.kill()
                p.wait()
            else:
                samples = []
                for f in sorted(os.listdir(os.path.join(root, "fixtures"))):
                    if f.endswith(".collapsed.gz"):
                        with gzip.open(os.path.join(root, "fixtures", f), "rb") as src:
                            samples.append(src.read())
                while out.tell() < want:
                    for s in samples:
                        out.write(s)
        inputs = {1: base}
        for k in (2, 4, 8):
            inputs[k] = os.path.join(tmp, f"x{k}.collapsed")
            with open(inputs[k], "wb") as out:
                for _ in range(k):
                    with open(base, "rb") as src:
                        shutil.copyfileobj(src, out)
        rows = []
        first = None
        for k in (1, 2, 4, 8):
            mb = os.path.getsize(inputs[k]) / (1 << 20)
            name = f"share, collapsed {k}x ({mb:.0f} MB)"
            rows.append(Row(name, [fg, "share", "--frame", "Attr.", inputs[k]], first))
            rows.append(Row(f"top, collapsed {k}x", [fg, "top", inputs[k]], name))
            first = first or name
        bench(rows)
        report("collapsed input at 1x, 2x, 4x, 8x (memory must not grow with the input)", rows)

    if args.instructions and shutil.which("valgrind") and have_shared:
        print("\n## instructions (callgrind, exact)")
        counts = {}
        for name, cmd, ref in [("wc -l", ["wc", "-l", plain], None), ("share (html)", share + [plain], "wc -l"),
                               ("top (html)", [fg, "top", plain], "share (html)"),
                               ("subsystems (html)", [fg, "subsystems", plain], "share (html)"),
                               ("diff (html vs itself)", [fg, "diff", plain, plain], "share (html)"),
                               ("share (html.gz)", share + [large_gz], None),
                               ("/bin/true", ["/bin/true"], None),
                               ("share (tiny profile)", [fg, "share", "--frame", "a",
                                                         os.path.join(root, "fixtures", "tiny-3x.html")], "/bin/true")]:
            n = counts[name] = instructions(cmd)
            rel = f"  {n / counts[ref]:6.2f} x {ref}" if n and ref and counts.get(ref) else ""
            print(f"{name:34} {n:>15,}{rel}" if n else f"{name:34} (not measured)")

load = os.getloadavg()
print(f"\nload average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
