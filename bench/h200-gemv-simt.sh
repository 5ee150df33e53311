#!/usr/bin/env bash
# Experiment (bench/experiments/decode_gemv.cu, "simt"): a warp streams whole rows of the weights
# with 16-byte loads, its lanes along K (each load instruction 512 contiguous bytes of one row),
# f32 FMAs on the CUDA cores, 8 warps a CTA, a CTA for every 8 or 16 weight rows. The mma.sync
# form (2026-12-03) read 64 bytes of each of 8 rows per instruction and streamed 2.0-3.1 TB/s.
# Prediction: >= 3.8 TB/s at M = 1 on the large shapes (1x57344x8192, 1x4096x14336), ahead of
# cuBLAS at 1x2112x7168 and 1x11008x4096; M = 8 and 16 behind (FMA-bound: 8 FMAs and a
# conversion per weight per token). Then `bench auto` (gemmgen's chosen kernel) at the same
# shapes, for the same GPU's figure.
#   usage (device): bash bench/h200-gemv-simt.sh PROBE NEW   (PROBE: a folder holding decode_gemv)
source "$(dirname "$0")/lib.sh"
P=$PWD/$1
bench_init gemv_simt "$2"
timeout 300 "$P/decode_gemv" simt > "$L/simt.txt" 2>&1
echo "== decode_gemv simt rc=$?" >> "$S"
cat "$L/simt.txt" >> "$S"
for s in 1x6144x4096 16x4096x4096 1x4096x14336 1x2112x7168 16x7168x16384 16x8192x28672 \
  4x28672x4096 1x57344x8192 8x14336x4096 1x11008x4096 16x10240x8192 16x2112x7168 2x57344x8192 \
  4x14336x4096; do
  bench_auto gg "$s"
done
bench_finish
