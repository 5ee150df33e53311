#!/usr/bin/env bash
# L2 promotion for the other decode families, and below 128 (issue 13). pipeline.l2_promotion: 128
# made the two-CTA `decode` family 0.3-5% faster (bench/h200-l2promo-rule.sh). The chooser's other
# decode kernels (decode_d16: 64-95 tiles, 16 stages; decode32: 17-32 tokens; decode64: 33-64;
# split `decode`) have no key (256 on aligned rows). `bench auto` as the spec says, with
# GEMMGEN_TMA_L2_PROMOTION=128 and =64 (the variable overrides the spec), two passes in rotating
# order. Prediction: 128 level to +3% for decode_d16/decode32/decode64 (same streaming of weights
# that exceed the L2), 64 behind 128 (two requests per 128-byte row).
#   usage (device): bash bench/h200-decode-l2promo2.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init decode_l2promo2 "$1"
SH="1x4096x7168 16x4096x4096 16x6080x4096 16x4096x8192 32x4096x14336 24x10240x8192 32x28672x4096 64x4096x4096 48x6144x4096 1x4096x14336 16x4096x14336 1x2112x7168 1x57344x8192 16x10240x8192"
for pass in 1 2; do
  for s in $SH; do
    order="spec 128 64"; [ $pass = 2 ] && order="64 128 spec"
    for p in $order; do
      if [ $p = spec ]; then bench_auto "spec_$pass" $s
      else GEMMGEN_TMA_L2_PROMOTION=$p bench_auto "p${p}_$pass" $s; fi
    done
  done
done
bench_finish
