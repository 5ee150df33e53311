#!/usr/bin/env bash
# TMA L2 promotion for decode, on more shapes (issue 13). At 1x57344x8192 (940 MB of weights)
# 128-byte promotion was 2-6% faster than the default 256 in two calls (docs/PERF.md "TMA L2
# promotion for decode"); 256 was 2.5-3.5% faster at 1x11008x4096 and 16x10240x8192. Is the
# size of the weights the rule? `bench auto` (the chooser's decode kernels), 256 (default) and 128,
# two passes in alternating order at weights from 88 MB to 940 MB. Prediction: 128 ahead by 2-5%
# above ~400 MB (1x57344x8192, 4x57344x8192, 1x28672x8192), level or behind below.
#   usage (device): bash bench/h200-decode-l2promo.sh CARRY   (CARRY: gemmgen)
source "$(dirname "$0")/lib.sh"
bench_init decode_l2promo "$1"
SH="1x57344x8192 4x57344x8192 16x57344x8192 1x28672x8192 1x28672x4096 4x28672x4096 1x4096x14336 1x14336x8192 1x11008x4096 16x10240x8192"
for pass in 1 2; do
  for s in $SH; do
    for p in 256 128; do
      [ $pass = 2 ] && p=$([ $p = 256 ] && echo 128 || echo 256)
      GEMMGEN_TMA_L2_PROMOTION=$p bench_auto "p${p}_$pass" $s
    done
  done
done
bench_finish
