#!/usr/bin/env python3
"""A --capture command for tests and benchmarks: writes to $FGBISECT_OUT a
collapsed profile resampled from the stacks of real profiles, with a chosen
true share of the stacks holding a frame that contains PATTERN.

Each capture is a run of its own: its share is the commit's true share plus
N(0, --run-noise) points, then --samples samples are drawn (each from the
matching stacks with that probability, else from the others, weighted by
their counts).  Seeded by --seed, the commit's line in --shares and the capture's
number (kept per commit in --state), so that the same test sees the same captures.

usage: resample_capture.py --pattern P --shares FILE --state DIR [--samples N]
       [--run-noise PP] [--seed S] PROFILE.collapsed[.gz]...
--shares FILE: lines "COMMIT SHARE" (a commit prefix), or "* SHARE" for any."""
import argparse
import collections
import gzip
import os
import random
import sys


def read_stacks(paths, pattern):
    pools = ([], []), ([], [])  # (stacks, weights) of the others, of the matching
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            for line in f:
                stack, _, count = line.rstrip("\n").rpartition(" ")
                if not stack or not count.isdigit():
                    continue
                pool = pools[pattern in stack]
                pool[0].append(stack)
                pool[1].append(int(count))
    return pools


def share_of(shares_path, commit):
    """The commit's share, and its line's number (what seeds it: commit ids
    change with the committer's name)."""
    with open(shares_path) as f:
        for number, line in enumerate(f):
            key, share = line.split()[:2]
            if key == "*" or commit.startswith(key):
                return float(share), number
    sys.exit(f"resample_capture: no share for commit {commit} in {shares_path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pattern", required=True)
    ap.add_argument("--shares", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--samples", type=int, default=5000)
    ap.add_argument("--run-noise", type=float, default=0.0)
    ap.add_argument("--seed", default="0")
    ap.add_argument("profiles", nargs="+")
    a = ap.parse_args()
    commit = os.environ.get("FGBISECT_COMMIT", "")
    counter = os.path.join(a.state, commit or "none")
    k = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
    with open(counter, "w") as f:
        f.write(str(k))
    share, number = share_of(a.shares, commit)
    rng = random.Random(f"{a.seed}:{number}:{k}")
    share += rng.gauss(0, a.run_noise)
    p = min(max(share, 0.0), 100.0) / 100
    matched = sum(rng.random() < p for _ in range(a.samples))
    pools = read_stacks(a.profiles, a.pattern)
    counts = collections.Counter()
    for pool, n in ((pools[1], matched), (pools[0], a.samples - matched)):
        if n:
            counts.update(rng.choices(pool[0], weights=pool[1], k=n))
    with open(os.environ["FGBISECT_OUT"], "w") as out:
        for stack in sorted(counts):
            out.write(f"{stack} {counts[stack]}\n")


if __name__ == "__main__":
    main()
