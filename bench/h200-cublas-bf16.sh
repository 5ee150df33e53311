#!/usr/bin/env bash
# Where the sweep's bf16 ratio trails its f16 one (2026-12-06_sweep_h200_19th: 512x7168x2048
# 0.963 against 1.063, 128x36864x7168 0.994 against 1.059, 16384x32768x512 1.028 against 1.100,
# 1024x57344x8192 0.995 against 1.027) gemmgen's times are level across the types: cuBLAS's bf16
# kernel is the faster one. Which kernel it runs for each type (ncu launch stats: name, grid,
# registers, shared memory, duration), with gemmgen's `auto` kernel in the same process.
# The question: a tile, cluster or split that ours lacks, worth 4-10% at these shapes.
# Also the decode shapes below 1.00 in bf16 (2026-12-07_sweep_h200_25th, medians of 3 passes):
# 4x28672x4096, where cuBLAS's bf16 time is 0.0563 ms against its f16 0.0616 on a shape that
# only streams 235 MB of weights (ours 0.0581 / 0.0586), and 8x14336x4096 (0.0309 / 0.0316).
#   usage (device): bash bench/h200-cublas-bf16.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init cublas_bf16 "$1"
for s in 4x28672x4096 8x14336x4096 512x7168x2048 128x36864x7168 16384x32768x512 1024x57344x8192 256x14336x4096; do
  IFS=x read -r m n k <<< "$s"
  for t in f16 bf16; do
    ncu_kernels "${t}_$s" auto --m "$m" --n "$n" --k "$k" --dtype $t
  done
done
bench_finish
