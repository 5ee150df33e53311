#!/usr/bin/env python3
"""Fits the kernel-choice cost model (runtime/lib/KernelChoice.cpp) to H200 measurements.

Reads committed bench results (no GPU): the sweep's fixed and tuned runs and the
split-K runs, each a (kernel family, split, shape, measured ms) point, and fits the
model's constants by minimising the squared log error (Nelder-Mead, pure Python).
Prints the constants and, per point, measured against predicted.

    python3 bench/model/fit_cost_model.py            # from the repository root
"""
import glob, io, json, math, os, re, sys, tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RES = os.path.join(ROOT, "bench", "results")
SMS = 132

# family -> (tile m, tile n); what the spec files of each family declare.
FAMILIES = {"large": (128, 256), "wide": (128, 192), "medium": (128, 128), "small": (64, 128)}


def family_of_spec(text):
    tm = int(re.search(r"tile:\s*\{\s*m:\s*(\d+)", text).group(1))
    tn = int(re.search(r"tile:\s*\{[^}]*n:\s*(\d+)", text).group(1))
    for name, t in FAMILIES.items():
        if t == (tm, tn):
            return name
    return None


def points():
    pts = []  # (family, split, M, N, K, ms)
    sweep = os.path.join(RES, "2026-12-01_sweep2_h200")
    for dt in ("f16", "bf16"):
        for r in json.load(open(os.path.join(sweep, f"sweep-fixed-{dt}.json")))["results"]:
            if r["N"] % 8 == 0:  # the packed N % 8 != 0 shape stages its operands
                pts.append(("large", 1, r["M"], r["N"], r["K"], r["gemmgen_ms"]["median"]))
    with tarfile.open(os.path.join(sweep, "sweep-logs.tgz")) as tar:
        names = tar.getnames()
        for n in names:
            if not re.search(r"tuned-.*\.json$", n):
                continue
            log = tar.extractfile(n[:-5] + ".log").read().decode()
            spec = re.search(r"tuned defaults: (\S+)", log).group(1)
            fam = family_of_spec(open(os.path.join(ROOT, spec)).read())
            for r in json.load(tar.extractfile(n))["results"]:
                if fam and r["N"] % 8 == 0:
                    pts.append((fam, 1, r["M"], r["N"], r["K"], r["gemmgen_ms"]["median"]))
    # The per-shape tunes: 128x128 one-consumer and 128x256 two-consumer
    # candidates without a cluster at depth 4 (the families' tiles; depth 3
    # starves the 128x128 tile: 270 us against 197 at 4096^3).
    for f in glob.glob(os.path.join(RES, "tune-sweep-2026-11-29", "tune-sweep-*.jsonl")):
        for line in open(f):
            r = json.loads(line)
            if r.get("kind") != "candidate" or r.get("status") != "ok":
                continue
            q = r["params"]
            if q.get("cluster.m") != "1" or q.get("pipeline.depth") != "4":
                continue
            fam = {("128", "1"): "medium", ("256", "2"): "large"}.get(
                (q.get("tile.n"), q.get("consumers")))
            if fam:
                pts.append((fam, 1, r["M"], r["N"], r["K"], r["ms"]["median"]))
    # The 128x192 family's calibration runs (bench/h200-wide.sh: the sweep's
    # shapes, not the validation set).
    for dt in ("f16", "bf16"):
        f = os.path.join(RES, "2026-12-01_wide_h200", f"wide-wide_d5_c64-{dt}.json")
        for r in json.load(open(f))["results"]:
            if r["N"] % 8 == 0 and r.get("verified"):
                pts.append(("wide", 1, r["M"], r["N"], r["K"], r["gemmgen_ms"]["median"]))
    splits = [("2026-12-01_splitk2_h200/bench_12_splitk_f16_*.txt", "small", 8),
              ("2026-12-01_splitk_h200/bench_12_splitk_f16_*.txt", "large", 8),
              ("2026-12-01_splitk_variants_h200/bench_a_128x256_split16.txt", "large", 16),
              ("2026-12-01_splitk_variants_h200/bench_c_64x128_split16.txt", "small", 16)]
    for pattern, fam, s in splits:
        for f in glob.glob(os.path.join(RES, pattern)):
            for line in open(f):
                m = re.match(r"(\d+)x(\d+)x(\d+)\s+\S+\s+([\d.]+)", line)
                if m:
                    M, N, K = map(int, m.groups()[:3])
                    pts.append((fam, s, M, N, K, float(m.group(4))))
    return pts


# The model, as runtime/lib/KernelChoice.cpp computes it (microseconds).
PARAMS = ["tkb_large", "tkb_wide", "tkb_medium", "tkb_small", "tile_us", "launch_us", "reduce_us",
          "dram_gbs", "split_gbs", "overlap_p"]
L2_BYTES = 32 << 20  # a split-K workspace up to this size stays in the L2 (60 MiB)


def predict(p, fam, s, M, N, K):
    P = dict(zip(PARAMS, p))
    tm, tn = FAMILIES[fam]
    kblocks = -(-K // 64)
    s = min(s, kblocks)
    per = -(-kblocks // s)
    units = -(-M // tm) * -(-N // tn) * s
    rounds = -(-units // SMS)
    main = rounds * (P["tile_us"] + per * P["tkb_" + fam])
    bytes_ = 2 * (M * K + N * K) + 2 * M * N
    mem = bytes_ / (P["dram_gbs"] * 1e3)
    # The tiles' work and the operand stream overlap, but not perfectly: a
    # smooth maximum (p -> infinity is max()).
    q = P["overlap_p"]
    t = (main ** q + mem ** q) ** (1 / q) + P["launch_us"]
    if s > 1:
        ws = 4 * s * M * N  # W holds M rows per slice (the stores clip the tile)
        gbs = P["split_gbs"] if ws <= L2_BYTES else P["dram_gbs"]
        t += P["reduce_us"] + 2 * ws / (gbs * 1e3)
    return t


def loss(p, pts):
    if min(p) <= 0 or p[-1] < 1:
        return 1e9
    return sum(math.log(predict(p, *q[:5]) / (q[5] * 1e3)) ** 2 for q in pts) / len(pts)


def nelder_mead(f, x0, iters=6000):
    n = len(x0)
    simplex = [list(x0)] + [[x * (1.25 if i == j else 1) for j, x in enumerate(x0)]
                            for i in range(n)]
    vals = [f(x) for x in simplex]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        simplex = [simplex[i] for i in order]; vals = [vals[i] for i in order]
        c = [sum(x[j] for x in simplex[:-1]) / n for j in range(n)]
        def at(t): return [c[j] + t * (simplex[-1][j] - c[j]) for j in range(n)]
        r = at(-1); fr = f(r)
        if fr < vals[0]:
            e = at(-2); fe = f(e)
            simplex[-1], vals[-1] = (e, fe) if fe < fr else (r, fr)
        elif fr < vals[-2]:
            simplex[-1], vals[-1] = r, fr
        else:
            k = at(0.5); fk = f(k)
            if fk < vals[-1]:
                simplex[-1], vals[-1] = k, fk
            else:
                simplex = [simplex[0]] + [[simplex[0][j] + 0.5 * (x[j] - simplex[0][j])
                                           for j in range(n)] for x in simplex[1:]]
                vals = [vals[0]] + [f(x) for x in simplex[1:]]
    i = min(range(n + 1), key=lambda i: vals[i])
    return simplex[i], vals[i]


def main():
    pts = points()
    x0 = [0.69, 0.52, 0.36, 0.21, 1.23, 2.78, 6.0, 3980.0, 4417.0, 3.66]
    best, err = nelder_mead(lambda p: loss(p, pts), x0)
    best, err = nelder_mead(lambda p: loss(p, pts), best)
    print(f"{len(pts)} points; rms log error {math.sqrt(err):.3f}")
    for k, v in zip(PARAMS, best):
        print(f"  {k:12s} {v:.4f}")
    if "-v" in sys.argv:
        for q in sorted(pts):
            pr = predict(best, *q[:5])
            print(f"  {q[0]:6s} split {q[1]:2d} {q[2]}x{q[3]}x{q[4]}: measured {q[5]*1e3:9.1f} us,"
                  f" model {pr:9.1f} ({pr / (q[5] * 1e3):.2f})")


if __name__ == "__main__":
    main()
