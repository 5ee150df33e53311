#!/usr/bin/env python3
"""Host overhead per call from Python: a cached gemmgen kernel vs torch.matmul.

At a tiny shape (default 128x256x64: one tile, a few µs of GPU time) the
time a call takes on the host is the overhead: reading the tensors, the
launch. Each round times `--calls` back-to-back calls with a wall clock and
synchronizes only after the clock stops (the launch queue never fills, so the
GPU's time is not measured); the figure is the median over `--rounds`
rounds of the per-call time.

  usage (H200): python3 bench/python_overhead.py [--m 128 --n 256 --k 64] [--json FILE]
  target: `kernel(a, b, out)` at most 10 µs per call
"""
import argparse
import json
import statistics
import sys
import time

import torch

import gemmgen


def per_call_us(fn, calls: int, rounds: int, warmup: int = 3):
    for _ in range(warmup):
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        samples.append((t1 - t0) / calls * 1e6)
    q = statistics.quantiles(samples, n=4)
    return {"median_us": statistics.median(samples), "p25_us": q[0], "p75_us": q[2]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--m", type=int, default=128)
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--k", type=int, default=64)
    p.add_argument("--dtype", choices=["f16", "bf16"], default="f16")
    p.add_argument("--spec", default="specs/sm90/05_fast_f16.yaml",
                   help="the spec of the cached kernel (its dtype must match --dtype)")
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--json", help="write the figures to this file")
    args = p.parse_args()

    dt = torch.float16 if args.dtype == "f16" else torch.bfloat16
    m, n, k = args.m, args.n, args.k
    a = torch.randn(m, k, device="cuda", dtype=dt)
    w = torch.randn(n, k, device="cuda", dtype=dt)
    b = w.t()  # K x N with unit stride along K (nn.Linear's layout): no copy
    out = torch.empty(m, n, device="cuda", dtype=dt)
    kernel = gemmgen.compile(args.spec)

    # Correctness first: the figures are of calls that compute the product.
    out.fill_(float("nan"))
    kernel(a, b, out)
    ref = a.float() @ b.float()
    err = float((out.float() - ref).norm() / ref.norm())
    if not (err < 1e-2):
        print(f"error: gemmgen's result is wrong (relative error {err:.3e})", file=sys.stderr)
        return 1

    cases = {
        "gemmgen kernel(a, b, out)": lambda: kernel(a, b, out),
        "gemmgen kernel(a, b) (allocates out)": lambda: kernel(a, b),
        "gemmgen.matmul(a, b, out) (tuned spec)": lambda: gemmgen.matmul(a, b, out),
        "torch.ops.gemmgen.matmul(a, b)": lambda: torch.ops.gemmgen.matmul(a, b),
        "torch.matmul(a, b, out=out)": lambda: torch.matmul(a, b, out=out),
        "torch.matmul(a, b)": lambda: torch.matmul(a, b),
    }
    results = {}
    print(f"{torch.cuda.get_device_name()}  torch {torch.__version__}  {m}x{n}x{k} {args.dtype}  "
          f"kernel {kernel.name}  median of {args.rounds} rounds x {args.calls} calls")
    for name, fn in cases.items():
        r = per_call_us(fn, args.calls, args.rounds)
        results[name] = r
        print(f"  {name:42s} {r['median_us']:7.2f} µs/call  (p25 {r['p25_us']:.2f}, p75 {r['p75_us']:.2f})")
    headline = results["gemmgen kernel(a, b, out)"]["median_us"]
    verdict = "meets" if headline <= 10.0 else "misses"
    print(f"kernel(a, b, out): {headline:.2f} µs per call {verdict} the 10 µs target")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "shape": [m, n, k], "dtype": args.dtype, "kernel": kernel.name,
                       "calls": args.calls, "rounds": args.rounds, "results": results}, f, indent=2)
    return 0 if headline <= 10.0 else 2


if __name__ == "__main__":
    sys.exit(main())
