#!/usr/bin/env bash
# A tile of 8 columns mod 16: spec 26 (256x152) at 3000x5000x2048, where its 12 x 33 = 396 tiles
# are three exact waves on 132 SMs (cuBLAS runs 256x152 there) and 256x160 (bench/wave-fit/
# m256n160.yaml, the chooser's pick) makes 384 tiles on 128 CTAs, each computing 5% more per
# round. First every GPU test (spec 26 joins every per-spec suite; RaggedChunks and the n152
# epilogue chains are new), memcheck over the new cases, then both tiles and spec 05 against
# cuBLAS in the same process, f16 and bf16, 20 rounds.
# Prediction (before the run): 256x152 ~5% faster than 256x160 at 3000x5000x2048 (0.936 of
# cuBLAS -> ~0.98) if the 16-byte TMA store boxes cost nothing visible; at 4096^3 slower than
# spec 05 (27 columns of tiles: 432 tiles, 3.3 waves).
#   usage (device): bash bench/h200-wave-fit152.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init wave_fit152 "$1"
timeout 240 "$C/gemmgen_gpu_tests" > "$L/gpu_tests.log" 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]+ test' "$L/gpu_tests.log" | tr '\n' ' ')" >> "$S"
grep -E '^\[  FAILED  \] [A-Z]' "$L/gpu_tests.log" | sed 's/, where.*//' | head -20 >> "$S"
echo "skipped: $(grep -cE '^\[  SKIPPED \] [A-Z]' "$L/gpu_tests.log")" >> "$S"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 120 "$CS" --tool memcheck --print-limit 20 --error-exitcode 99 "$C/gemmgen_gpu_tests" \
  --gtest_filter='*26_wave_fit*:*RaggedChunks*:*n152*-*4096x4096x4096*:*8192*:*4000x4000x4000*:*large*:*3000*' \
  > "$L/memcheck.log" 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1); $(grep -cE '^\[       OK \]' "$L/memcheck.log") OK, $(grep -cE '^\[  FAILED  \] [A-Z]' "$L/memcheck.log") failed" >> "$S"
SH="3000x5000x2048,3000x5000x4096,4096x4096x4096,2048x4864x4096"
for t in f16 bf16; do
  for v in specs/sm90/26_wave_fit_n152_f16 bench/wave-fit/m256n160 specs/sm90/05_fast_f16; do
    n=$(basename $v)
    timeout 120 "$G" bench $v.yaml --dtype $t --shapes $SH --rounds 20 > "$L/${t}_$n.txt" 2>&1
    echo "== $n $t rc=$?" >> "$S"; table "$L/${t}_$n.txt" >> "$S"
  done
done
bench_finish
