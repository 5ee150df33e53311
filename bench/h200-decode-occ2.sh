#!/usr/bin/env bash
# Decode with two CTAs per SM (experiment; the binary carries
# bench/results/2026-12-03_decode_occ2_h200/min-blocks.patch: GEMMGEN_EXP_MIN_BLOCKS sets
# __launch_bounds__'s second argument). Spec 23's 64x16 tile holds 85 KB of shared memory and
# 8 accumulators per consumer thread, yet one CTA per SM runs because of its 232 consumer
# registers; with 216 (bench/decode-occ2/) and min blocks 2, ptxas caps the launch at 128, two
# CTAs fit an SM and the persistent grid (cuOccupancyMaxActiveClusters) doubles: two consumers'
# k-block chains per SM and twice the loads in flight. The 1-token shapes stream the weights at
# 0.96-0.97 of cuBLAS, and 16 stages in one CTA (twice the bytes in flight, one chain) moved
# them < 1% (2026-12-03_decode_wide_h200), so what this tests is the chain.
# Prediction: +3-6% at 1x57344x8192, 1x4096x14336 and 4x28672x4096; level at 16 tokens.
#   usage (device): bash bench/h200-decode-occ2.sh CARRY   (CARRY: gemmgen with the patch)
source "$(dirname "$0")/lib.sh"
bench_init decode-occ2 "$1"
for v in occ2_d8 occ2_d10 occ2_d8_s2; do
  for s in 1x57344x8192 5x1000x520 16x4096x4096; do
    GEMMGEN_EXP_MIN_BLOCKS=2 verify "$v" bench/decode-occ2/$v.yaml "$s" --beta 0.5
  done
done
SH="1x57344x8192,1x11008x4096,4x28672x4096,1x6144x4096,8x14336x4096,16x10240x8192,16x8192x28672,16x6144x4096"
for pass in 1 2; do
  timeout 150 "$G" bench specs/sm90/23_decode_col_d_f16.yaml --shapes $SH --rounds 20 > "$L/spec23_$pass.txt" 2>&1
  echo "== spec 23 pass $pass rc=$?" >> "$S"; table "$L/spec23_$pass.txt" >> "$S"
  for v in occ2_d8 occ2_d10; do
    GEMMGEN_EXP_MIN_BLOCKS=2 timeout 150 "$G" bench bench/decode-occ2/$v.yaml --shapes $SH --rounds 20 > "$L/${v}_$pass.txt" 2>&1
    echo "== $v pass $pass rc=$?" >> "$S"; table "$L/${v}_$pass.txt" >> "$S"
  done
done
SH="1x4096x14336,1x4032x14336"
timeout 150 "$G" bench bench/decode-col/m64n16_d8_s2.yaml --shapes $SH --rounds 20 > "$L/s2.txt" 2>&1
echo "== m64n16_d8_s2 rc=$?" >> "$S"; table "$L/s2.txt" >> "$S"
GEMMGEN_EXP_MIN_BLOCKS=2 timeout 150 "$G" bench bench/decode-occ2/occ2_d8_s2.yaml --shapes $SH --rounds 20 > "$L/occ2_s2.txt" 2>&1
echo "== occ2_d8_s2 rc=$?" >> "$S"; table "$L/occ2_s2.txt" >> "$S"
bench_finish
