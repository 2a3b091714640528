"""--threshold auto computed apart from fgbisect (docs/bisect.md): the
pooled share of each end, its 95% interval on the side facing the other
end (Wilson of the counts divided by the nodes' moderated phi, and the default noise
of 6% of the threshold sought, in quadrature), the point of equal
standardised distance by bisection, rounded to 0.01.

usage: auto_threshold.py 'K/N,K/N' 'K/N,K/N'   (good end's nodes, bad end's)
prints: threshold good bad good_sd bad_sd distance (4 decimals)"""
import math
import sys

Z = 1.959963984540054


def wilson(k, n):
    p, z2 = k / n, Z * Z
    d = 1 + z2 / n
    c = (p + z2 / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / d
    return 100 * max(0.0, c - h), 100 * min(1.0, c + h)


def end(arg):
    nodes = [tuple(int(x) for x in s.split("/")) for s in arg.split(",")]
    K, N = sum(k for k, _ in nodes), sum(n for _, n in nodes)
    p = K / N
    chi2 = sum((k - n * p) ** 2 / (n * p * (1 - p)) for k, n in nodes)
    # chi2 on nodes - 1 degrees of freedom, moderated toward 1 as if the
    # binomial were 4 nodes' worth of evidence (FG_VERDICT_PHI_PRIOR_DF)
    phi = max(1.0, (chi2 + 4) / (len(nodes) - 1 + 4)) if len(nodes) > 1 else 1.0
    lo, hi = wilson(K / phi, N / phi)
    return 100 * p, lo, hi


def sd(w, t):
    return math.sqrt(w * w + (Z * 0.06 * t) ** 2) / Z


def main():
    g, _, ghi = end(sys.argv[1])
    b, blo, _ = end(sys.argv[2])
    lo, hi = g, b
    for _ in range(100):
        t = (lo + hi) / 2
        if (t - g) / sd(ghi - g, t) - (b - t) / sd(b - blo, t) < 0:
            lo = t
        else:
            hi = t
    t = round(t * 100) / 100
    sg, sb = sd(ghi - g, t), sd(b - blo, t)
    print("%.4f %.4f %.4f %.4f %.4f %.4f" % (t, g, b, sg, sb, min((t - g) / sg, (b - t) / sb)))


if __name__ == "__main__":
    main()
