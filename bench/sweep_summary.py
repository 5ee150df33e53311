#!/usr/bin/env python3
"""Summarises a bench/h200-sweep.sh run: one row per shape (ratio = cuBLAS
time / gemmgen time from the same process, for the fixed spec and the
`tuned` choice, f16 and bf16), then the geo-mean ratio and the worst shape
of each column. Shapes that bench refused or that did not run are listed
apart and left out of the geo-means. Shapes labelled val-* are the
validation set (in no data the cost model was fitted to, in no tune DB):
they are left out of the geo-means and summarised on their own as the
time of the fixed spec over the time of the `tuned` choice.
Usage: sweep_summary.py DIR   (DIR holds shapes.txt, fixed-DT.json, tuned-DT-SHAPE.json/.log)"""
import json, math, os, re, sys

DTYPES = ("f16", "bf16")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def rows_by_shape(doc):
    out = {}
    for r in (doc or {}).get("results", []):
        out["%dx%dx%d" % (r["M"], r["N"], r["K"])] = r
    return out


def choice(d, dt, shape):
    """What `tuned` ran: the tuned DB's spec, or the cost model's family and split."""
    try:
        log = open(os.path.join(d, "tuned-%s-%s.log" % (dt, shape))).read()
    except OSError:
        return "-"
    m = re.search(r"chosen by the cost model: .*-> \S*gemm_sm90_auto_(\w+?)_(sk?\d+)_", log)
    if m:
        return "%s-%s" % (m.group(1), m.group(2))
    return "db" if "tuned defaults:" in log else "-"


def main(d):
    shapes = [l.split() for l in open(os.path.join(d, "shapes.txt")) if l.strip()]
    fixed = {dt: rows_by_shape(load(os.path.join(d, "fixed-%s.json" % dt))) for dt in DTYPES}
    cols = [(kind, dt) for dt in DTYPES for kind in ("fixed", "tuned")]
    ratios = {c: {} for c in cols}
    problems = []
    table = []
    for shape, label in shapes:
        cells = []
        for kind, dt in cols:
            if kind == "fixed":
                r = fixed[dt].get(shape)
            else:
                r = rows_by_shape(load(os.path.join(d, "tuned-%s-%s.json" % (dt, shape)))).get(shape)
            if r is None:
                cells.append("-")
                if kind == "fixed" or "refused" not in label:
                    problems.append("%s %s %s: no result (see its log)" % (shape, kind, dt))
                continue
            if "error" in r:
                cells.append("refused" if "leading dimension" in r["error"] else "error")
                problems.append("%s %s %s: %s" % (shape, kind, dt, r["error"][:150]))
                continue
            if not r.get("verified", False):
                cells.append("WRONG")
                problems.append("%s %s %s: verification failed" % (shape, kind, dt))
                continue
            ratios[(kind, dt)][shape] = r["ratio_cublas_over_gemmgen"]
            cells.append("%.3f" % r["ratio_cublas_over_gemmgen"])
        cells += [choice(d, dt, shape) for dt in DTYPES]
        table.append((shape, label, cells))

    w = max(len(s) for s, _, _ in table)
    lw = max(len(l) for _, l, _ in table)
    head = ["%s %s" % c for c in cols] + ["tuned ran %s" % dt for dt in DTYPES]
    print("ratio = cuBLAS time / gemmgen time, same process (>= 1.00: gemmgen at least as fast)")
    print("%-*s  %-*s  %s" % (w, "shape", lw, "model / kind", "  ".join("%11s" % h for h in head)))
    for shape, label, cells in table:
        print("%-*s  %-*s  %s" % (w, shape, lw, label, "  ".join("%11s" % c for c in cells)))
    if problems:
        print("\nnot in the geo-means:")
        for p in problems:
            print("  " + p)
    print()
    val = [s for s, l in shapes if l.startswith("val-")]
    if val:
        print("validation set (%d shapes): fixed time / tuned time, from the ratios to cuBLAS" % len(val))
        for dt in DTYPES:
            g = {s: ratios[("tuned", dt)][s] / ratios[("fixed", dt)][s] for s in val
                 if s in ratios[("tuned", dt)] and s in ratios[("fixed", dt)]}
            if not g:
                print("  %-4s no results" % dt)
                continue
            geo = math.exp(sum(math.log(x) for x in g.values()) / len(g))
            worst = min(g, key=g.get)
            slower = sorted(s for s, x in g.items() if x < 0.98)
            print("  %-4s geo-mean %.3f over %d shapes; worst %s %.3f; tuned > 2%% slower than "
                  "fixed on %d%s" % (dt, geo, len(g), worst, g[worst], len(slower),
                                    (": " + ", ".join(slower)) if slower else ""))
            for s in val:
                ratios[("tuned", dt)].pop(s, None)
                ratios[("fixed", dt)].pop(s, None)
        print()
    for c in cols:
        v = ratios[c]
        if not v:
            print("%-11s no results" % ("%s %s" % c))
            continue
        geo = math.exp(sum(math.log(x) for x in v.values()) / len(v))
        worst = min(v, key=v.get)
        below = sum(1 for x in v.values() if x < 0.95)
        print("%-11s geo-mean %.3f over %d shapes; worst %s %.3f; %d below 0.95"
              % ("%s %s" % c, geo, len(v), worst, v[worst], below))
    return 0 if any(ratios[c] for c in cols) else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
