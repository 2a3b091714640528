#!/usr/bin/env python3
"""Folds what the JDK's own `jfr print --json` says about a recording into
collapsed stacks, as the ground truth for fgbisect's JFR reader (an
independent parser: the JDK's).

    jfr_print_collapse.py EVENT < print.json
EVENT: cpu (jdk.ExecutionSample, 1 a sample), alloc (jdk.ObjectAllocationSample,
its weight in bytes, the allocated class as leaf frame), lock
(jdk.JavaMonitorEnter, its duration in ns, the monitor class as leaf)."""
import json, re, sys
from collections import Counter

event = sys.argv[1]
types = {"cpu": "jdk.ExecutionSample", "alloc": "jdk.ObjectAllocationSample", "lock": "jdk.JavaMonitorEnter"}
native = {"Native", "C++", "Kernel"}

def iso_ns(d):
    m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", d)
    h, mi, s = m.groups()
    whole, _, frac = (s or "0").partition(".")
    return ((int(h or 0) * 60 + int(mi or 0)) * 60 + int(whole)) * 10**9 + int((frac + "000000000")[:9])

def class_name(c):
    n = c["name"]
    dims = len(n) - len(n.lstrip("["))
    if dims:
        e = n[dims:]
        prim = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long", "S": "short", "Z": "boolean"}
        n = e[1:-1] if e.startswith("L") else prim.get(e, e)
        n += "[]" * dims
    return n

out = Counter()
for ev in json.load(sys.stdin)["recording"]["events"]:
    if ev["type"] != types[event]:
        continue
    v = ev["values"]
    st = v.get("stackTrace")
    if not st:
        continue
    frames = []
    for f in reversed(st["frames"]):
        m = f["method"]
        if f.get("type") in native or not m["type"]:
            frames.append(m["name"])
        else:
            frames.append(class_name(m["type"]) + "." + m["name"])
    if event == "alloc":
        frames.append(class_name(v["objectClass"]))
        w = v["weight"]
    elif event == "lock":
        frames.append(class_name(v["monitorClass"]))
        w = iso_ns(v["duration"])
    else:
        w = 1
    out[";".join(frames)] += w
for k in sorted(out):
    print(k, out[k])
