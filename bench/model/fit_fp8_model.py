#!/usr/bin/env python3
"""Fits the fp8 families of the kernel-choice cost model (runtime/lib/KernelChoice.cpp,
chooseFp8Kernel) to the H200's fp8 measurements already in bench/results.

The model is the 16-bit one (bench/model/fit_cost_model.py): persistent tiles in
rounds of 132, a smooth maximum with the operand stream, the launch, the split-K
reduction. Its shared constants are read from KernelChoice.cpp (one source of
truth); only each fp8 family's time per 128-deep k-block is fitted here, one
family at a time (golden-section search on the squared log error), because the
fp8 runs cover few shapes (the DeepSeek-V3 projections, 4096^3 and 8192^3) and
cannot carry more free constants.

The blockwise families are fitted to the kernels as they are since 2026-12-04
(k-blocks in pairs but for the 128x192 tile, the scales read from shared
memory, the producer over four warps): the family runs of
bench/h200-blockwise-warps4-families.sh, whose summary lines (family_sSPLIT
MxNxK gemmgen-ms cuBLASLt-ms ratio) are read here; the earlier blockwise
documents measured other kernels and are skipped.

    python3 bench/model/fit_fp8_model.py        # from the repository root; -v: every point
"""
import glob, json, math, os, re, sys, tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RES = os.path.join(ROOT, "bench", "results")
SMS = 132
TILE_K = 128      # an fp8 k-block: 128 one-byte elements (one 128-byte swizzled row)
L2_BYTES = 32 << 20

# (scaling, family) -> tile (m, n); what chooseFp8Kernel's families declare.
FAMILIES = {("tensor", "large"): (128, 256), ("tensor", "wide"): (128, 192),
            ("tensor", "medium"): (128, 128), ("block", "medium"): (128, 128),
            ("block", "wide"): (128, 192), ("block", "narrow"): (128, 64),
            ("tensor", "small"): (64, 128), ("block", "small"): (64, 128)}

# Spec file of a run -> (scaling, family, split).
SPECS = {"specs/sm90/13_fast_e4m3.yaml": ("tensor", "large", 1),
         "bench/variants/13_splitk4_e4m3.yaml": ("tensor", "large", 4),
         "bench/variants/13_splitk8_e4m3.yaml": ("tensor", "large", 8),
         "bench/variants/fp8/n192.yaml": ("tensor", "wide", 1),
         "bench/variants/fp8/n128.yaml": ("tensor", "medium", 1),
         "specs/sm90/15_blockwise_e4m3.yaml": ("block", "medium", 1),
         "bench/variants/17_splitk2_blockwise_e4m3.yaml": ("block", "medium", 2),
         "specs/sm90/17_splitk_blockwise_e4m3.yaml": ("block", "medium", 4),
         "bench/variants/17_splitk8_blockwise_e4m3.yaml": ("block", "medium", 8),
         "specs/sm90/19_blockwise_e4m3_n192.yaml": ("block", "wide", 1),
         "bench/variants/blockwise/n192.yaml": ("block", "wide", 1),  # became spec 19
         "bench/variants/blockwise/n64.yaml": ("block", "narrow", 1)}
for _s in (1, 2, 4, 8):
    SPECS[f"bench/variants/fp8/m64_s{_s}.yaml"] = ("tensor", "small", _s)
    SPECS[f"bench/variants/blockwise/m64_s{_s}.yaml"] = ("block", "small", _s)

# The blockwise kernels as shipped: every family at the DeepSeek-V3 shapes (M = 128 split too),
# with four producer warps since 2026-12-04 (bench/h200-blockwise-warps4-families.sh); the
# one-thread producer's run (bench/h200-blockwise-smem-families.sh) before them.
BLOCK_SUMMARY = os.path.join(RES, "2026-12-04_blockwise_warps4_h200",
                             "blockwise_warps4_families-summary.txt")

# Runs of the kernels as shipped (the experiment runs with patched kernels,
# blockwise_turns2 and blockwise_bound, are not among them).
RUNS = ["2026-12-01_blockwise_lt_h200", "2026-12-01_fp8_splitk_h200", "2026-12-01_fp8_variants_h200",
        "2026-12-01_fp8_output_h200", "2026-12-01_wave4_h200", "2026-12-01_blockwise_ahead_h200",
        "2026-12-02_blockwise_n192_h200", "2026-12-02_blockwise_tiles_h200",
        "2026-12-02_fp8_decode_h200"]
# Not fitted: 2026-12-02_fp8_choice_h200, the validation of the choice.


def shared_constants():
    """The 16-bit model's shared constants, as KernelChoice.cpp has them."""
    src = open(os.path.join(ROOT, "runtime", "lib", "KernelChoice.cpp")).read()
    names = {"tile_us": "kTileMicros", "launch_us": "kLaunchMicros", "reduce_us": "kReduceMicros",
             "dram_gbs": "kDramGBs", "split_gbs": "kSplitGBs", "overlap_p": "kOverlapP"}
    return {k: float(re.search(r"%s = ([\d.]+);" % v, src).group(1)) for k, v in names.items()}


def documents():
    """Every bench JSON document of the runs above, loose or in a tarball."""
    for run in RUNS:
        d = os.path.join(RES, run)
        for f in sorted(glob.glob(os.path.join(d, "**", "*.json"), recursive=True)):
            yield f, json.load(open(f))
        for t in sorted(glob.glob(os.path.join(d, "*.t*gz"))):
            with tarfile.open(t) as tar:
                for n in sorted(tar.getnames()):
                    if n.endswith(".json"):
                        yield t + ":" + n, json.load(tar.extractfile(n))


def points():
    pts, seen = [], set()  # (scaling, family, split, M, N, K, out bytes, ms)
    for name, doc in documents():
        key = SPECS.get(doc.get("spec"))
        if not key or key[0] == "block" or "results" not in doc:
            continue
        # The same document copied into two places counts once.
        ident = (doc.get("date"), doc.get("spec"), doc.get("kernel"),
                 tuple((r["M"], r["N"], r["K"]) for r in doc["results"]))
        if ident in seen:
            continue
        seen.add(ident)
        out_bytes = 1 if doc.get("kernel", "").endswith("out_e4m3") else 2
        for r in doc["results"]:
            if "gemmgen_ms" in r and r.get("verified", True) and r.get("batch", 1) == 1:
                pts.append(key + (r["M"], r["N"], r["K"], out_bytes, r["gemmgen_ms"]["median"]))
    for line in open(BLOCK_SUMMARY):
        m = re.match(r"(\w+)_s(\d+) (\d+)x(\d+)x(\d+) ([\d.]+) ", line)
        if m:
            fam, split, M, N, K, ms = m.groups()
            pts.append(("block", fam, int(split), int(M), int(N), int(K), 2, float(ms)))
    return pts


def predict(c, kblock_us, scaling, fam, split, M, N, K, out_bytes):
    """As KernelChoice.cpp's predict() for an fp8 family (microseconds)."""
    tm, tn = FAMILIES[(scaling, fam)]
    kblocks = -(-K // TILE_K)
    s = min(split, max(kblocks, 1))
    per = -(-kblocks // s)
    units = -(-M // tm) * -(-N // tn) * s
    rounds = -(-units // SMS)
    main = rounds * (c["tile_us"] + per * kblock_us)
    mem = (1.0 * (M * K + N * K) + out_bytes * M * N) / (c["dram_gbs"] * 1e3)
    q = c["overlap_p"]
    t = (main ** q + mem ** q) ** (1 / q) + c["launch_us"]
    if s > 1:
        ws = 4.0 * s * M * N
        t += c["reduce_us"] + 2 * ws / ((c["split_gbs"] if ws <= L2_BYTES else c["dram_gbs"]) * 1e3)
    return t


def fit_one(c, pts):
    def loss(x):
        return sum(math.log(predict(c, x, *p[:7]) / (p[7] * 1e3)) ** 2 for p in pts) / len(pts)
    lo, hi = 0.05, 5.0
    g = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if loss(a) < loss(b):
            hi = b
        else:
            lo = a
    x = (lo + hi) / 2
    return x, math.sqrt(loss(x))


def main():
    c = shared_constants()
    pts = points()
    print(f"{len(pts)} points; shared constants from KernelChoice.cpp: " +
          ", ".join(f"{k} {v:g}" for k, v in c.items()))
    fitted = {}
    for key in FAMILIES:
        fam_pts = [p for p in pts if (p[0], p[1]) == key]
        if not fam_pts:
            print(f"  {key[0]:6s} {key[1]:6s}: no points")
            continue
        fitted[key], rms = fit_one(c, fam_pts)
        print(f"  {key[0]:6s} {key[1]:6s}: {fitted[key]:.4f} us per k-block "
              f"({len(fam_pts)} points, rms log error {rms:.3f})")
    if "-v" in sys.argv:
        for p in sorted(pts):
            pr = predict(c, fitted[(p[0], p[1])], *p[:7])
            print(f"  {p[0]:6s} {p[1]:6s} split {p[2]} {p[3]}x{p[4]}x{p[5]}: measured "
                  f"{p[7] * 1e3:8.1f} us, model {pr:8.1f} ({pr / (p[7] * 1e3):.2f})")


if __name__ == "__main__":
    main()
