#!/usr/bin/env python3
"""Fits the wave-filling tile families' per-k-block times (docs/PERF.md, second session of 2026-12-03).

Reads bench/results/2026-12-03_wave_fit_h200/wavefit-summary.txt (each bench/wave-fit variant on
12 shapes, `bench` medians in ms), holds the shared constants of runtime/lib/KernelChoice.cpp
(tile, launch, DRAM and overlap terms, as fit_cost_model.py fitted them) fixed, and fits each
family's time per k-block by a grid search on the log error. Prints the fitted time beside the
large/wide families' 0.0027 us per column (0.6905 / 256, 0.5186 / 192) times the tile's columns.

    python3 bench/model/fit_wave_fit.py [SUMMARY]   # from the repository root

SUMMARY: another run's summary in the same form (bench/h200-wave-fit224.sh's: a variant's f16
and bf16 sections are fitted together; a `_c<chunk>` suffix of the name is not the tile).
"""
import math, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = os.path.join(ROOT, "bench/results/2026-12-03_wave_fit_h200/wavefit-summary.txt")
SMS, TILE_US, LAUNCH_US, DRAM_GBS, OVERLAP_P = 132, 1.3286, 2.6784, 3966.94, 3.6465
PER_COLUMN = 0.0027  # us per column per k-block of a 128-row, two-consumer tile


def cdiv(a, b):
    return -(-a // b)


def predict(tkb, tm, tn, M, N, K):
    rounds = cdiv(cdiv(M, tm) * cdiv(N, tn), SMS)
    main = rounds * (TILE_US + cdiv(K, 64) * tkb)
    stream = (2 * (M * K + N * K) + 2 * M * N) / (DRAM_GBS * 1e3)
    return (main ** OVERLAP_P + stream ** OVERLAP_P) ** (1 / OVERLAP_P) + LAUNCH_US


def read():
    data, cur = {}, None
    for line in open(sys.argv[1] if len(sys.argv) > 1 else SUMMARY):
        if line.startswith("== "):  # a section: a variant (m<rows>n<cols>...) or another kernel
            cur = line.split()[1] if line.startswith("== m") else None
            if cur:
                data.setdefault(cur, [])
        elif cur and line[:1].isdigit():
            shape, ms = line.split()[:2]
            M, N, K = map(int, shape.split("x"))
            data[cur].append((M, N, K, float(ms) * 1e3))
    return data


def main():
    for name, rows in read().items():
        tm, tn = int(name[1:4]), int(name.split("n")[1].split("_")[0])
        best = None
        for i in range(2000):
            tkb = 0.1 + i * 0.0005
            err = sum((math.log(predict(tkb, tm, tn, M, N, K)) - math.log(us)) ** 2
                      for M, N, K, us in rows)
            if best is None or err < best[0]:
                best = (err, tkb)
        print(f"{name}: {best[1]:.4f} us per k-block (per-column rule {PER_COLUMN * tn * tm / 128:.4f}), "
              f"rms log error {math.sqrt(best[0] / len(rows)):.3f} over {len(rows)} shapes")


if __name__ == "__main__":
    main()
