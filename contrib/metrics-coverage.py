#!/usr/bin/env python3
"""How often the efficiency lens's 95% interval of a ratio holds the true
ratio (docs/metrics.md, "Noise"): the lens's arithmetic (src/base/stats.c) on
simulated rate() points, 30 s scrapes and a 120 s range, 91 points a side
(a 45-minute steady window), for pairs of runs with the same true rate.
Prints figures; judges nothing.  Seeded: the same figures on every run.

usage: contrib/metrics-coverage.py [PAIRS]   (default 1000; about a minute)
"""
import functools
import math
import random
import sys

STEP, SCRAPES, WINDOW_FROM = 30, 120, 30
Z = 1.959963984540054


@functools.lru_cache(None)
def t975_at(df):
    """Student's 0.975 quantile: bisection on Simpson's integral of the density."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    pdf = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)
    lo, hi = 1.9, 14.0
    for _ in range(40):
        t = (lo + hi) / 2
        k, h = 2000, t / 2000
        area = (pdf(0) + pdf(t) + sum((4 if i % 2 else 2) * pdf(i * h) for i in range(1, k))) * h / 3
        lo, hi = (t, hi) if 0.5 - area > 0.025 else (lo, t)
    return (lo + hi) / 2


def t975(df):
    df = max(df, 1.0)
    return Z if df > 1e7 else t975_at(round(df, 2))


def welch(v1, d1, v2, d2):
    if (v1 > 0 and d1 == 0) or (v2 > 0 and d2 == 0):
        return 0.0
    den = (v1 * v1 / d1 if v1 > 0 else 0) + (v2 * v2 / d2 if v2 > 0 else 0)
    return (v1 + v2) ** 2 / den if den > 0 else math.inf


def rate_points(counter):
    """rate(...[120s]) at each step of the window: the increase over the
    three scrape intervals inside the range."""
    return [(counter[i] - counter[i - 3]) / 90 for i in range(WINDOW_FROM, SCRAPES + 1)]


def iid_run(seed, noise=0.9, pods=3):
    rng, total = random.Random(seed), [0.0] * (SCRAPES + 1)
    for _ in range(pods):
        c = [0.0]
        for _ in range(SCRAPES):
            c.append(c[-1] + 100 * STEP * (1 + noise * rng.uniform(-1, 1)))
        total = [a + b for a, b in zip(total, c)]
    return rate_points(total)


def drifting_run(seed, phi, amplitude=0.2):
    rng, c, e = random.Random(seed), [0.0], 0.0
    for _ in range(SCRAPES):
        e = phi * e + math.sqrt(1 - phi * phi) * rng.gauss(0, 1)
        c.append(c[-1] + 300 * STEP * max(0.05, 1 + amplitude * e))
    return rate_points(c)


def mean_se(x, lag1=True):
    n = len(x)
    m = sum(x) / n
    d = [v - m for v in x]
    sq = sum(v * v for v in d)
    sd = math.sqrt(sq / (n - 1))
    r = sum(d[i] * d[i + 1] for i in range(n - 1)) / sq if lag1 else 0.0
    neff = min(n, max(1.0, n * (1 - r) / (1 + r)))
    return m, sd / math.sqrt(neff), neff


def covered(b, c, t):
    (mb, sb, _), (mc, sc, _) = b, c
    w = t * math.hypot(sb / mb, sc / mc)
    return mc / mb * math.exp(-w) <= 1 <= mc / mb * math.exp(w)


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    cases = (("independent increments x(1 + 0.9 u), 3 pods", iid_run),
             ("load drifting, AR(1) phi 0.8 per scrape", lambda s: drifting_run(s, 0.8)),
             ("load drifting slowly, AR(1) phi 0.95", lambda s: drifting_run(s, 0.95)))
    print("coverage of the true ratio over %d seeded pairs of runs (91 points a side)" % pairs)
    print("%-46s %7s %12s %13s %16s" % ("noise", "n_eff", "sd/sqrt(n)", "n_eff, 1.96", "n_eff, t (lens)"))
    for name, run in cases:
        naive = z = t = neff = 0
        for k in range(pairs):
            xb, xc = run("b%d" % k), run("c%d" % k)
            b, c = mean_se(xb), mean_se(xc)
            naive += covered(mean_se(xb, False), mean_se(xc, False), Z)
            z += covered(b, c, Z)
            df = welch((b[1] / b[0]) ** 2, b[2] - 1, (c[1] / c[0]) ** 2, c[2] - 1)
            t += covered(b, c, t975(df))
            neff += b[2]
        print("%-46s %7.1f %11.1f%% %12.1f%% %15.1f%%" % (name, neff / pairs, 100 * naive / pairs, 100 * z / pairs,
                                                         100 * t / pairs))


main()
