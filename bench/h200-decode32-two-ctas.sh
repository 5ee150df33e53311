#!/usr/bin/env bash
# 17-32 tokens with two CTAs per SM (after bench/h200-decode-two-ctas.sh): the decode32 family
# (64x32, 12 stages, 147 KB) cannot hold two; at 8 stages it can (bench/decode-occ2/
# m64n32_d8_occ2.yaml). Prediction: like the 16-token kernel, 2-6% faster where there are >= 96
# tiles of 64 weights, level below.
#   usage (device): bash bench/h200-decode32-two-ctas.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init decode32-two-ctas "$1"
for s in 32x4096x14336 21x1000x520 24x10240x8192; do
  verify m64n32_d8_occ2 bench/decode-occ2/m64n32_d8_occ2.yaml "$s" --beta 0.5
done
SH="32x4096x14336,24x4096x14336,32x4096x7168,32x6144x4096,32x5120x8192,32x14336x4096,24x10240x8192,32x28672x4096,20x8192x28672"
for pass in 1 2; do
  for v in bench/decode-col/m64n32_d12 bench/decode-occ2/m64n32_d8_occ2; do
    n=$(basename $v)
    timeout 150 "$G" bench $v.yaml --shapes $SH --rounds 20 > "$L/${n}_$pass.txt" 2>&1
    echo "== $n pass $pass rc=$?" >> "$S"; table "$L/${n}_$pass.txt" >> "$S"
  done
done
bench_finish
