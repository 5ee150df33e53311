#!/usr/bin/env python3
"""Fits a ping-pong tile family to the cost model's form (docs/PERF.md, session of 2026-12-03).

Reads bench/results/2026-12-03_pingpong_family_h200/ppf-logs.tgz (spec 20's 128x128 ping-pong
tile and the 64x256 ping-pong tile on the sweep's shapes with M >= 64, f16 and bf16), holds the
shared constants of runtime/lib/KernelChoice.cpp (as fit_cost_model.py fitted them) fixed, and
fits each family's per-k-block and per-tile times. Prints them and, per shape, the model's time
for the family against its time for the default 128x256 family: the question is whether the
model can tell where ping-pong wins (it cannot, which is why no ping-pong family is a candidate of
the model; the chooser takes spec 20's kernel by a measured rule for K <= 1024 instead,
`pickPingPong` in runtime/lib/KernelChoice.cpp).

    python3 bench/model/fit_pingpong_family.py       # from the repository root
"""
import json, math, os, tarfile

import fit_cost_model as F

ROOT = F.ROOT
TGZ = os.path.join(F.RES, "2026-12-03_pingpong_family_h200", "ppf-logs.tgz")
# KernelChoice.cpp's constants, in fit_cost_model.PARAMS order.
SHARED = dict(zip(F.PARAMS, [0.6905, 0.5186, 0.3572, 0.2082, 1.3286, 2.6784, 5.9787, 3966.94,
                             4550.55, 3.6465]))
FAMILIES = {"20_pingpong_f16": (128, 128), "64x256_f16": (64, 256)}


def points(tar, name):
    out = []
    for dt in ("f16", "bf16"):
        for r in json.load(tar.extractfile(f"ppf/cal-{name}-{dt}.json"))["results"]:
            if r["N"] % 8 == 0 and r.get("verified"):
                out.append((r["M"], r["N"], r["K"], r["gemmgen_ms"]["median"] * 1e3))
    return out


def predict(tkb, tile_us, tm, tn, M, N, K):
    kb = -(-K // 64)
    rounds = -(-(-(-M // tm) * -(-N // tn)) // F.SMS)
    main = rounds * (tile_us + kb * tkb)
    mem = (2 * (M * K + N * K) + 2 * M * N) / (SHARED["dram_gbs"] * 1e3)
    q = SHARED["overlap_p"]
    return (main ** q + mem ** q) ** (1 / q) + SHARED["launch_us"]


def main():
    shared = [SHARED[k] for k in F.PARAMS]
    with tarfile.open(TGZ) as tar:
        for name, (tm, tn) in FAMILIES.items():
            pts = points(tar, name)

            def loss(x):
                if min(x) <= 0:
                    return 1e9
                return sum(math.log(predict(x[0], x[1], tm, tn, *p[:3]) / p[3]) ** 2
                           for p in pts) / len(pts)

            best, err = F.nelder_mead(loss, [0.36, 0.5], 2000)
            print(f"{name} ({tm}x{tn}): {len(pts)} points; per k-block {best[0]:.4f} us, "
                  f"per tile {best[1]:.4f} us; rms log error {math.sqrt(err):.3f}")
            for M, N, K, us in pts[: len(pts) // 2]:  # the f16 half
                fam = predict(best[0], best[1], tm, tn, M, N, K)
                default = F.predict(shared, "large", 1, M, N, K)
                print(f"  {M}x{N}x{K}: measured {us:8.1f} us, model {fam:8.1f}, "
                      f"model default {default:8.1f} (default / family {default / fam:.2f})")


if __name__ == "__main__":
    main()
