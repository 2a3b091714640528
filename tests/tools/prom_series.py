#!/usr/bin/env python3
"""Writes OpenMetrics text of Zeebe-like series for the efficiency-lens tests
(tests/sh/metrics_prometheus.sh), for `promtool tsdb create-blocks-from
openmetrics`.

Every scenario is one namespace of three broker pods, scraped every 30 s for
one hour from START (Unix seconds) at exactly constant rates, so that every
mean the lens computes is known in closed form (printed by --expect):

  base        healthy: 1.2 cores of 2 per pod, 100 records/s per pod
  healthy     the same
  efficiency  same CPU, 80% of the records (more CPU per record)
  saturated   1.94 cores of 2 per pod (97%), 80% of the records
  datagrowth  RocksDB live data, keys and SST twice the base, 90% of the records
  queueing    1.94 cores of 2, 97% of the records, processing tail 9x (p50 same)
  missing     healthy, but no zeebe_rocksdb_* series at all
  noisy       same CPU, 92% of the records, each scrape's records increment
              times 1 + 0.9 u (u uniform in [-1, 1], seeded by namespace and
              pod): the mean crosses the efficiency rule's bound, its 95%
              interval does not
  quiet       the same shift with noise 0.02: the interval is beyond the bound
  together    as noisy, and each pod's CPU increment carries the same factor as
              its records': CPU per record is steady although both are noisy

Noisy counters are the one exception to closed-form means: their values
are checked against the points Prometheus returns.

usage: prom_series.py OUT.om NAMESPACE=START[:SCENARIO]...
(the scenario is the namespace's last dash-separated word unless given)
"""
import random
import sys

STEP = 30
DURATION = 3600
PODS = ("camunda-0", "camunda-1", "camunda-2")
# (valueType, intent, share of the records)
TYPES = (("PROCESS_INSTANCE", "ACTIVATE_ELEMENT", 0.5), ("JOB", "COMPLETE", 0.3), ("JOB", "CREATE", 0.2))
# The noise generator's seed, part of each noisy series' seed: with 3 the
# noisy run's realised records mean is 92.1% of the base's, near the nominal
# 92% (the test checks that the mean crosses the bound and the interval does
# not, so a seed that did not would fail it, not pass silently).
SEED = 3
LE = ("0.0005", "0.001", "0.005", "0.01", "0.05", "0.1", "+Inf")
# Fraction of observations per bucket (not cumulative).
HEALTHY_DIST = (0.30, 0.50, 0.15, 0.04, 0.01, 0.0, 0.0)
TAIL_DIST = (0.30, 0.50, 0.10, 0.02, 0.03, 0.05, 0.0)


def scenario(name):
    s = dict(cpu=1.2, limit=2.0, records=100.0, live=200e6, keys=1e6, sst=300e6, rocks=True,
             dist=HEALTHY_DIST, flush=10.0, flush_mean=0.002, append_kib=50.0, appends=40.0,
             dropped=0.5, inflight=20.0, bp_limit=100.0, gc=0.01, alloc=200e6, noise=0.0, cpu_noise=False)
    if name == "efficiency":
        s["records"] = 80.0
    elif name == "saturated":
        s.update(cpu=1.94, records=80.0)
    elif name == "datagrowth":
        s.update(live=400e6, keys=2e6, sst=600e6, records=90.0)
    elif name == "queueing":
        s.update(cpu=1.94, records=97.0, dist=TAIL_DIST)
    elif name == "missing":
        s["rocks"] = False
    elif name == "noisy":
        s.update(records=92.0, noise=0.9)
    elif name == "quiet":
        s.update(records=92.0, noise=0.02)
    elif name == "together":
        s.update(records=92.0, noise=0.9, cpu_noise=True)
    elif name not in ("base", "healthy"):
        raise SystemExit("unknown scenario " + name)
    return s


def series(out, name, labels, start, value_at):
    """One series: value_at(i) for the i-th scrape."""
    text = ",".join('%s="%s"' % kv for kv in labels)
    for i in range(DURATION // STEP + 1):
        out.append("%s{%s} %.6f %d" % (name, text, value_at(i), start + i * STEP))


def noisy_counter(rate, noise, seed):
    """value_at(i) of a counter whose increments are rate * STEP * (1 + noise * u),
    u uniform in [-1, 1] from a generator seeded by seed (never decreasing)."""
    rng = random.Random(seed)
    values = [0.0]
    for _ in range(DURATION // STEP):
        values.append(values[-1] + rate * STEP * (1 + noise * rng.uniform(-1, 1)))
    return lambda i: values[i]


def families(runs):
    """{metric name: [lines]} over all runs, so that each family is one block."""
    fam = {}

    def add(name, labels, start, value_at):
        series(fam.setdefault(name, []), name, labels, start, value_at)

    for ns, start, name in runs:
        s = scenario(name)
        for pod in PODS:
            base = (("namespace", ns), ("pod", pod))
            t = lambda i: i * STEP
            # The same seed as the records': the same factor on each increment.
            cpu = (noisy_counter(s["cpu"], s["noise"], "%s/%s/%d" % (ns, pod, SEED)) if s["cpu_noise"]
                   else lambda i, c=s["cpu"]: c * t(i))
            add("container_cpu_usage_seconds_total", base + (("container", "camunda"),), start, cpu)
            # The pod-level cgroup (container="") repeats the sum: the lens must not count it twice.
            add("container_cpu_usage_seconds_total", base + (("container", ""),), start, cpu)
            add("kube_pod_container_resource_limits", base + (("container", "camunda"), ("resource", "cpu"),
                ("unit", "core")), start, lambda i, v=s["limit"]: v)
            add("zeebe_stream_processor_records_total", base + (("action", "processed"), ("partition", "1")),
                start, noisy_counter(s["records"], s["noise"], "%s/%s/%d" % (ns, pod, SEED)))
            add("zeebe_stream_processor_records_total", base + (("action", "written"), ("partition", "1")),
                start, lambda i, v=s["records"]: 3 * v * t(i))
            add("atomix_journal_append_data_rate_total", base, start, lambda i, v=s["append_kib"]: v * t(i))
            add("atomix_journal_append_rate_total", base, start, lambda i, v=s["appends"]: v * t(i))
            for k, le in enumerate(LE):
                add("atomix_journal_flush_time_seconds_bucket", base + (("le", le),), start,
                    lambda i, v=s["flush"], k=k: v * t(i) * (1.0 if k >= 2 else 0.0))
            add("atomix_journal_flush_time_seconds_count", base, start, lambda i, v=s["flush"]: v * t(i))
            add("atomix_journal_flush_time_seconds_sum", base, start,
                lambda i, v=s["flush"], m=s["flush_mean"]: v * m * t(i))
            add("zeebe_dropped_request_count_total", base, start, lambda i, v=s["dropped"]: v * t(i))
            add("zeebe_backpressure_inflight_requests_count", base, start, lambda i, v=s["inflight"]: v)
            add("zeebe_backpressure_requests_limit", base, start, lambda i, v=s["bp_limit"]: v)
            for vt, intent, share in TYPES:
                rate = s["records"] * share
                cum = 0.0
                for le, frac in zip(LE, s["dist"]):
                    cum += frac
                    c = 1.0 if le == "+Inf" else cum
                    add("zeebe_stream_processor_processing_duration_seconds_bucket",
                        base + (("valueType", vt), ("intent", intent), ("le", le)), start,
                        lambda i, r=rate, c=c: r * c * t(i))
            if s["rocks"]:
                add("zeebe_rocksdb_live_estimate_live_data_size", base + (("partition", "1"),), start,
                    lambda i, v=s["live"]: v)
                add("zeebe_rocksdb_live_estimate_num_keys", base + (("partition", "1"),), start,
                    lambda i, v=s["keys"]: v)
                add("zeebe_rocksdb_sst_total_sst_files_size", base + (("partition", "1"),), start,
                    lambda i, v=s["sst"]: v)
            add("jvm_gc_pause_seconds_sum", base, start, lambda i, v=s["gc"]: v * t(i))
            add("jvm_gc_memory_allocated_bytes_total", base, start, lambda i, v=s["alloc"]: v * t(i))
    return fam


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    runs = []
    for arg in sys.argv[2:]:
        ns, rest = arg.split("=")
        start, _, name = rest.partition(":")
        runs.append((ns, int(start), name or ns.split("-")[-1]))
    with open(sys.argv[1], "w") as f:
        for name, lines in sorted(families(runs).items()):
            # "unknown": any sample name, no suffix or bucket-order rules.
            f.write("# TYPE %s unknown\n" % name)
            f.write("\n".join(lines))
            f.write("\n")
        f.write("# EOF\n")


main()
