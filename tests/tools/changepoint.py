"""days --scan computed apart from fgbisect (docs/bisect.md, "days --scan"):
each run read is a point, its pooled share with the sampling standard
deviation of its 95% interval (Wilson of the counts divided by the nodes'
phi, over 2 x 1.96); binary segmentation with weights 1 / (sd^2 + noise^2),
a split kept when (m - 1) erfc(|z| / sqrt 2) <= 0.01; the noise floored at
--noise (default 6% of the median share) and raised to the spread about the
segments (at most 5 rounds); each change described between its neighbours.
When no change point rises, the rise between the ends (days.h:
fg_days_rise_between), printed last as "rise run lo hi before after z
confidence noise".

usage: changepoint.py [--noise PP] RUN...   RUN: 'K/N,K/N' (a run's nodes) or '-' (not read)
prints: one line per change point, "run lo hi before after z confidence"
(run, lo, hi: indexes of the runs given; lo..hi the runs the first slow one
may be; 4 decimals, confidence 6), then "noise floor estimate df"."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from auto_threshold import Z, end  # noqa: E402 (the same interval as --threshold auto's)

LOCATION = 6.634896601021214


def point(arg):
    share, lo, hi = end(arg)
    return share, (hi - lo) / (2 * Z)


def z_at(x, w, a, b, j):
    wl, wr = sum(w[a:j]), sum(w[j:b])
    ml = sum(w[t] * x[t] for t in range(a, j)) / wl
    mr = sum(w[t] * x[t] for t in range(j, b)) / wr
    return (mr - ml) / math.sqrt(1 / wl + 1 / wr), ml, mr, wl, wr


def changepoints(x, s, noise):
    n = len(x)
    for r in range(5):
        w = [1 / (si * si + noise * noise) for si in s]
        found = []

        def segment(a, b):
            if b - a < 2:
                return
            zs = {k: z_at(x, w, a, b, k)[0] for k in range(a + 1, b)}
            k = max(range(a + 1, b), key=lambda j: (abs(zs[j]), -j))
            if (b - a - 1) * math.erfc(abs(zs[k]) / math.sqrt(2)) > 0.01:
                return
            found.append(k)
            segment(a, k)
            segment(k, b)

        segment(0, n)
        found.sort()
        bounds = [0] + found + [n]
        ss = 0
        for a, b in zip(bounds, bounds[1:]):
            m = sum(x[a:b]) / (b - a)
            ss += sum((xi - m) ** 2 for xi in x[a:b])
        df = n - len(found) - 1
        between = ss / df - sum(si * si for si in s) / n if df else 0
        estimate = math.sqrt(between) if between > 0 else 0
        if estimate <= noise * (1 + 1e-9) or r == 4:
            break
        noise = estimate
    changes = []
    for i, k in enumerate(found):
        a, b = bounds[i], bounds[i + 2]
        z, before, after, wl, wr = z_at(x, w, a, b, k)
        loc = [j for j in range(a + 1, b) if z_at(x, w, a, b, j)[0] * z > 0 and z * z - z_at(x, w, a, b, j)[0] ** 2 <= LOCATION]
        p = (b - a - 1) * math.erfc(abs(z) / math.sqrt(2))
        changes.append((k, min(loc), max(loc), before, after, z, 0 if p >= 1 else 1 - p))
    return changes, noise, estimate, df


def rise_between(x, s, noise):
    """No change point rises: the one-sided test of a rise between the ends
    (the largest z over all splits, (n - 1) erfc(z / sqrt 2) / 2 <= 0.01), the
    noise floored and raised to the spread about the two sides of the best
    split (at most 5 rounds)."""
    n = len(x)
    if n < 3:
        return None
    for r in range(5):
        w = [1 / (si * si + noise * noise) for si in s]
        zs = {j: z_at(x, w, 0, n, j)[0] for j in range(1, n)}
        rising = [j for j in zs if zs[j] > 0]
        if not rising:
            return None
        k = max(rising, key=lambda j: (zs[j], -j))
        ss = sum((xi - sum(x[a:b]) / (b - a)) ** 2 for a, b in ((0, k), (k, n)) for xi in x[a:b])
        between = ss / (n - 2) - sum(si * si for si in s) / n
        estimate = math.sqrt(between) if between > 0 else 0
        if estimate <= noise * (1 + 1e-9) or r == 4:
            break
        noise = estimate
    z, before, after = zs[k], z_at(x, w, 0, n, k)[1], z_at(x, w, 0, n, k)[2]
    p = (n - 1) * math.erfc(z / math.sqrt(2)) / 2
    if p > 0.01:
        return None
    loc = [j for j in rising if z * z - zs[j] ** 2 <= LOCATION]
    return k, min(loc), max(loc), before, after, z, 1 - p, noise


args = sys.argv[1:]
floor = None
if args[0] == "--noise":
    floor, args = float(args[1]), args[2:]
runs = [i for i, a in enumerate(args) if a != "-"]
pts = [point(args[i]) for i in runs]
x, s = [p[0] for p in pts], [p[1] for p in pts]
if floor is None:
    xs = sorted(x)
    m = len(xs)
    floor = 0.06 * (xs[m // 2] if m % 2 else (xs[m // 2 - 1] + xs[m // 2]) / 2)
changes, noise, estimate, df = changepoints(x, s, floor)
for k, lo, hi, before, after, z, conf in changes:
    # lo..hi are points; the runs the first slow one may be: after the run of
    # point lo - 1, up to the run of point hi
    print("%d %d %d %.4f %.4f %.4f %.6f" % (runs[k], runs[lo - 1] + 1, runs[hi], before, after, z, conf))
print("%.4f %.4f %.4f %d" % (noise, floor, estimate, df))
rise = None if any(c[5] > 0 for c in changes) else rise_between(x, s, floor)
if rise:
    k, lo, hi, before, after, z, conf, used = rise
    print("rise %d %d %d %.4f %.4f %.4f %.6f %.4f" % (runs[k], runs[lo - 1] + 1, runs[hi], before, after, z, conf, used))
