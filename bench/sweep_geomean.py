#!/usr/bin/env python3
"""Tuned geo-means of sweep summaries (bench/h200-sweep.sh's sweep-summary.txt), over the sweep
shapes (the val-* rows left out, as the summary's own geo-means do) and again without 512^3 and
1024^3, whose cuBLAS times moved 10-60% between runs: the geo-mean, the count below 0.95 and the
worst shape, per dtype.

    python3 bench/sweep_geomean.py SUMMARY...
"""
import math
import re
import sys

ROW = re.compile(r'^(\d+x\d+x\d+)\s+(\S+)\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)')
SWINGING = ('512x512x512', '1024x1024x1024')


def tuned_ratios(path):
    """{shape: (tuned f16, tuned bf16)} of the sweep rows (None where no result)."""
    rows = {}
    for line in open(path):
        m = ROW.match(line)
        if m and not m.group(2).startswith('val-'):
            f16, bf16 = m.group(4), m.group(6)
            rows[m.group(1)] = tuple(None if x == '-' else float(x) for x in (f16, bf16))
    return rows


def summary(values):
    g = math.exp(sum(math.log(v) for _, v in values) / len(values))
    worst = min(values, key=lambda t: t[1])
    below = sum(1 for _, v in values if v < 0.95)
    return f"{g:.3f} over {len(values)}, {below} below 0.95, worst {worst[0]} {worst[1]:.3f}"


def main(paths):
    for path in paths:
        rows = tuned_ratios(path)
        print(path)
        for i, dtype in enumerate(('f16', 'bf16')):
            for leave_out in ((), SWINGING):
                values = [(s, r[i]) for s, r in rows.items() if r[i] and s not in leave_out]
                what = 'all' if not leave_out else 'without 512^3, 1024^3'
                print(f"  tuned {dtype:4} {what:22} {summary(values)}")


if __name__ == '__main__':
    main(sys.argv[1:])
