#!/usr/bin/env bash
# Overlapping epilogue chunks as built (the last chunk ends at the tile's edge and keeps the shared
# columns' values in registers; issue 13): the GPU cases that reach them, then spec 26 (256x152 in
# chunks of 32: five 64-byte boxes per consumer and tile) against 256x160 (the chooser's
# fit256x160) on the wave-fit shapes, for fit_wave_fit.py, and at 3000x5000 in two passes.
# Prediction (bench/h200-overlap-chunks.sh's experiment, 18:16 UTC): spec 26 1-3% faster than
# 256x160 at 3000x5000 (K = 2048: 0.936-0.950 of cuBLAS against 0.921-0.935), its k-block
# ~0.82-0.84 us against fit256x160's 0.8625.
#   usage (device): bash bench/h200-overlap-fit.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init overlap_fit "$1"
gpu_tests '*OverlappingChunks*:*26_wave_fit*:*n152*:*DBounds*'
SH=768x3072x3072,1536x1536x1536,3072x768x3072,384x12288x4096,3000x5000x2048,4096x2112x7168,2048x2048x2048,7168x2048x4096,2304x4608x4608,256x14336x4096,512x7168x2048,128x36864x7168
for v in m256n152 m256n160; do
  spec=bench/wave-fit/$v.yaml; [ $v = m256n152 ] && spec=specs/sm90/26_wave_fit_n152_f16.yaml
  timeout 150 "$G" bench $spec --shapes $SH --rounds 20 > "$L/bench_$v.txt" 2>&1
  echo "== $v rc=$?" >> "$S"; table "$L/bench_$v.txt" >> "$S"
done
for pass in 1 2; do
  for v in m256n152 m256n160; do
    spec=bench/wave-fit/$v.yaml; [ $v = m256n152 ] && spec=specs/sm90/26_wave_fit_n152_f16.yaml
    timeout 100 "$G" bench $spec --shapes 3000x5000x2048,3000x5000x4096,3000x5000x8192 --rounds 20 \
      > "$L/pass${pass}_$v.txt" 2>&1
    echo "== pass $pass $v rc=$?" >> "$S"; table "$L/pass${pass}_$v.txt" >> "$S"
  done
done
bench_finish
