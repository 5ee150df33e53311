#!/usr/bin/env python3
"""Summarises a bench/h200-fp8-choice.sh run: per scaling mode and shape, the
ratio cuBLASLt time ÷ gemmgen time of the fixed spec (13 per-tensor, 15
blockwise) and of the fp8 cost model's choice (`bench auto`), each from its
own process, the fixed time ÷ chosen time, the fixed spec's ratio when all
shapes ran in one process, and the chosen family and split (from the
kernel's name);
then per set (fit: shapes the fit saw; val: shapes it never saw) the
geo-means and the worst shape. Every row of the JSON must be verified.
Usage: fp8_choice_summary.py DIR "FIT SHAPES" "VAL SHAPES"""
import glob, json, math, os, re, sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def rows(path):
    return {f'{r["M"]}x{r["N"]}x{r["K"]}': r for r in load(path).get("results", [])
            if r.get("verified") and "gemmgen_ms" in r}


def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    d, fit, val = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
    passes = sorted({int(m.group(1)) for f in glob.glob(os.path.join(d, "auto_*_*.json"))
                     if (m := re.search(r"_(\d+)\.json$", f))})
    print("fixed/Lt, auto/Lt: one process per shape and kernel; all/Lt: the fixed spec on all shapes in one")
    print("scaling     set shape            pass  fixed/Lt  auto/Lt  fixed÷auto   all/Lt  choice")
    for sc in ("per_tensor", "blockwise"):
        sets = {"fit": ([], [], []), "val": ([], [], [])}
        for p in passes:
            together = rows(os.path.join(d, f"fixedall_{sc}_{p}.json"))
            for name, shapes in (("fit", fit), ("val", val)):
                for s in shapes:
                    auto = rows(os.path.join(d, f"auto_{sc}_{s}_{p}.json")).get(s)
                    fx = rows(os.path.join(d, f"fixed_{sc}_{s}_{p}.json")).get(s)
                    al = together.get(s)
                    all_text = f"{al['ratio_cublas_over_gemmgen']:8.3f}" if al and \
                        "ratio_cublas_over_gemmgen" in al else "       -"
                    # The kernel's name says the family and split (gemm_sm90_auto_FAMILY_sN_...).
                    kernel = load(os.path.join(d, f"auto_{sc}_{s}_{p}.json")).get("kernel", "")
                    m = re.match(r"gemm_sm90_auto_([a-z]+)_s(\d+)_", kernel)
                    choice = f"{m.group(1)}, split_k {m.group(2)}" if m else "?"
                    if not fx or not auto:
                        print(f"{sc:11s} {name} {s:16s} {p:4d}  missing or unverified "
                              f"(fixed {'ok' if fx else '-'}, auto {'ok' if auto else '-'})  {choice}")
                        continue
                    speed = fx["gemmgen_ms"]["median"] / auto["gemmgen_ms"]["median"]
                    sets[name][2].append((speed, s))
                    # cuBLASLt's blockwise modes need M and N multiples of 4: no ratio there.
                    if "ratio_cublas_over_gemmgen" in fx and "ratio_cublas_over_gemmgen" in auto:
                        rf, ra = fx["ratio_cublas_over_gemmgen"], auto["ratio_cublas_over_gemmgen"]
                        sets[name][0].append(rf), sets[name][1].append(ra)
                        ratios = f"{rf:8.3f} {ra:8.3f}"
                    else:
                        ratios = "    no cuBLASLt  "
                    print(f"{sc:11s} {name} {s:16s} {p:4d}  {ratios}  {speed:10.3f} {all_text}  {choice}")
        for name, (rf, ra, sp) in sets.items():
            if not sp:
                continue
            worst = min(sp)
            print(f"{sc} {name}: geo-mean fixed/Lt {geo(rf):.3f}, auto/Lt {geo(ra):.3f} ({len(ra)} rows), "
                  f"fixed÷auto {geo([x for x, _ in sp]):.3f} (worst {worst[0]:.3f} at {worst[1]}, "
                  f"{sum(1 for x, _ in sp if x < 0.98)} of {len(sp)} more than 2% slower than fixed)")


if __name__ == "__main__":
    main()
