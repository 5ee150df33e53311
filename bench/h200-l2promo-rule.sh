#!/usr/bin/env bash
# pipeline.l2_promotion as built (issue 13): spec 25 and the chooser's `decode` family (two CTAs per
# SM) request 128 bytes per L2 fetch of A and B. Correctness first: every GPU test of spec 25 and
# every chosen kernel, and memcheck over spec 25's. Then `bench auto` before (OLD: the binary
# without the key) and after (NEW), two passes in alternating order (ab_bench), at the ten shapes
# the rule came from and eight it did not see, f16, and four in bf16. Prediction: as in
# bench/h200-decode-l2promo.sh, 0.5-4% faster where `decode` runs, the same kernel elsewhere
# (decode_d16 / split decode unchanged: their specs have no key).
#   usage (device): bash bench/h200-l2promo-rule.sh OLD NEW   (OLD: gemmgen; NEW: gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
OLD=$PWD/$1
bench_init l2promo_rule "$2"
gpu_tests '*25_decode*:*ChosenKernel*:*DecodeCol*'
memcheck '*25_decode_two_ctas*'
ab_bench "$OLD" "$C" "1x57344x8192 4x57344x8192 16x57344x8192 1x28672x8192 1x28672x4096 4x28672x4096 1x4096x14336 1x14336x8192 1x11008x4096 16x10240x8192 8x14336x4096 16x6144x4096 2x53248x16384 16x8192x28672 4x11008x4096 1x6144x4096 12x18432x7168 16x4096x4096" auto
echo "== bf16" >> "$S"
ab_bench "$OLD" "$C" "1x57344x8192 4x28672x4096 16x10240x8192 1x11008x4096" auto --dtype bf16
bench_finish
