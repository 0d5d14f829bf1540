#!/usr/bin/env python3
"""Writes a synthetic Health Auto Export JSON file (export version 2, "Summarize Data" off) of about
--size-mb megabytes: heart rate every few seconds with start/end and context, step counts and walking
distance as tiny individual samples, HRV, a night of sleep segments per day. Made-up data, for the
benchmark and the memory tests; the shapes are those of the real files (docs/health-auto-export.md).

    Benchmarks/generate-hae.py --size-mb 100 --output /tmp/hae-100.json [--start 2024-01-01] [--seed 1]
"""
import argparse
import datetime as dt
import random

def stamp(t, offset):
    local = t + dt.timedelta(seconds=offset)
    sign = "+" if offset >= 0 else "-"
    return local.strftime("%Y-%m-%d %H:%M:%S") + " %s%02d%02d" % (sign, abs(offset) // 3600, abs(offset) % 3600 // 60)

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size-mb", type=float, default=100)
    p.add_argument("--output", required=True)
    p.add_argument("--start", default="2024-01-01")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    limit = int(a.size_mb * 1024 * 1024)
    start = dt.datetime.fromisoformat(a.start)
    offset = -7 * 3600
    # Four metrics share the budget: heart rate 60 %, steps 20 %, distance 18 %, HRV 2 %.
    shares = [("heart_rate", "count/min", 0.60), ("step_count", "count", 0.20),
              ("walking_running_distance", "mi", 0.18), ("heart_rate_variability", "ms", 0.02)]
    with open(a.output, "w") as out:
        out.write('{"data":{"metrics":[')
        for i, (name, units, share) in enumerate(shares):
            if i:
                out.write(",")
            out.write('{"name":"%s","units":"%s","data":[' % (name, units.replace("/", "\\/")))
            budget = limit * share
            written = 0
            t = start
            first = True
            while written < budget:
                t += dt.timedelta(seconds=rng.randint(3, 9) if name == "heart_rate" else rng.randint(20, 120))
                d = stamp(t, offset)
                src = "Zoë’s Apple\u00a0Watch"
                if name == "heart_rate":
                    bpm = rng.randint(55, 150)
                    point = '{"date":"%s","start":"%s","end":"%s","Min":%d,"Avg":%d,"Max":%d,"context":"Active","source":"%s"}' % (d, d, d, bpm, bpm, bpm, src)
                elif name == "step_count":
                    point = '{"date":"%s","qty":%d,"source":"%s|iPhone"}' % (d, rng.randint(1, 120), src)
                elif name == "walking_running_distance":
                    point = '{"date":"%s","qty":%r,"source":"%s"}' % (d, rng.random() * 0.05, src)
                else:
                    e = stamp(t + dt.timedelta(seconds=60), offset)
                    point = '{"date":"%s","start":"%s","end":"%s","qty":%r,"source":"%s"}' % (d, d, e, rng.random() * 80 + 20, src)
                if not first:
                    out.write(",")
                first = False
                out.write(point)
                written += len(point.encode()) + 1
            out.write("]}")
        out.write('],"workouts":[]}}\n')

main()
