#!/usr/bin/env bash
# The staging copy's grid from the host (copyLaunchOf, Staging.cpp): ncu at 1000x1000x1001 saw
# each gg_copy2d launch issue-bound (12.5 us, SM throughput 56%, DRAM 3.4%): 3911 blocks of 256
# threads for 1000 lines, every thread finding the word width and dividing its pitches by it in
# 64-bit divisions (~70 instructions each), though only 1000 blocks had a line. NEW: the host
# picks the word and the form, a block per line launches one block per line, counts arrive in
# words (no division per thread), 32-bit indices for a word per thread where they fit.
# Prediction: the copy at 1000x1000x1001 12.5 -> ~3 us under ncu, `bench auto` 0.0365 ->
# ~0.020 ms; 512x512x514 and 2048x2048x2050 faster by the same ~19 us of copies less; shapes
# whose copies already had a block per line (4096x1x4100, 4096x4096x4100) level; no staging,
# no change. Also the owed run of bench/h200-decode-long-k.sh's shapes (OLD: two CTAs per SM;
# NEW: 16 stages at 96-132 tiles with K > 8192), which lands here on the H200 first.
#   usage (device): bash bench/h200-copy-grid.sh OLD NEW   (gemmgen; NEW also gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init copy_grid "$2"
gpu_tests '*Bounds*:*Stag*:*ChosenKernel*:*Batch*:*Grouped*:*Fp8*:*Straddl*:*Decode*'
memcheck '*Bounds*:*Stag*:*ChosenKernel*/4096x1x4100*:*ChosenKernel*/7x4100x1000*'
SECT="--section SpeedOfLight --section LaunchStats"
timeout 120 ncu --clock-control none -k 'regex:gg_copy2d|gemm_sm90' --launch-count 3 $SECT \
  "$G" bench auto --m 1000 --n 1000 --k 1001 --rounds 1 > "$L/ncu_copy_bench.txt" 2>&1
echo "== ncu copy (bench) rc=$?" >> "$S"
grep -E '^  gg_copy2d|^  gemm_sm90|Duration|DRAM Throughput|Compute \(SM\)|Grid Size' \
  "$L/ncu_copy_bench.txt" | head -24 >> "$S"
ab_bench "$OLD" "$C" "1000x1000x1001 512x512x514 2048x2048x2050 4096x1x4100 4096x4096x4100 \
  4096x4095x4096 4096x4096x4096" auto
ab_bench "$OLD" "$C" "16x8192x28672 16x7168x16384 1x8448x14336 8x8192x16384 1x8448x8192 \
  16x8512x16384" auto
bench_finish
