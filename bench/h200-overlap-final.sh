#!/usr/bin/env bash
# HEAD's binaries after overlapping chunks and the layout-aware chooser (issue 13): every GPU test;
# memcheck over the overlapping-chunk cases; `auto` at 3000x5000x2048 in f16 and bf16 (now
# 256x152), three processes each; and the choices that failed before: `run auto --verify` with
# B stored KxN (--layout row,row) at 768x3072x3072 and 3000x5000x2048, and with an f32 D at
# 768x3072x3072 (chunk_n 24 refused before). Prediction: all pass, memcheck 0 errors, auto
# 0.95-0.96 of cuBLAS in f16 (0.936-0.942 with 256x160).
#   usage (device): bash bench/h200-overlap-final.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init overlap_final "$1"
gpu_tests
memcheck '*OverlappingChunks*:*n152*:*DBounds*26_wave*-*4096*:*large*:*3000*'
verify auto_brow auto 768x3072x3072 --layout row,row
verify auto_brow auto 3000x5000x2048 --layout row,row
verify auto_f32 auto 768x3072x3072 --out-dtype f32
verify auto auto 3000x5000x2048 --beta 0.5 --c-in-place
for f in "$L"/verify_auto*; do echo "$(basename $f): $(grep -o "gemm_sm90_auto_[a-z0-9_]*" $f | head -1)" >> "$S"; done
for pass in 1 2 3; do
  for t in f16 bf16; do bench_auto "$t-pass$pass" 3000x5000x2048 --dtype $t; done
done
bench_finish
