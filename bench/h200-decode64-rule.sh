#!/usr/bin/env bash
# The decode64 rule (33-64 tokens, 40-128 tiles of 64 weights, < 96 MiB of weights: the 64x64
# column-major-D tile with 12 stages; read from bench/h200-decode64-l2.sh parts a, c and d, f16):
#  1. GPU tests of every chosen kernel (the rule's 64x4096x4096 f16 and 37x3000x4100 bf16 among
#     them: every element against the reference, D's surroundings poisoned);
#  2. bf16, which the rule was not measured in: the chooser (now decode64) against the small
#     family's spec (the chooser's kernel before) at eight shapes inside the rule, and f16 at
#     the same shapes again.
# Prediction: bf16 like f16, decode64 ahead of the small tile by 3-25% at each shape.
#   usage (device): bash bench/h200-decode64-rule.sh CARRY   (CARRY: gemmgen, gemmgen_gpu_tests)
source "$(dirname "$0")/lib.sh"
bench_init decode64-rule "$1"
timeout 300 "$C/gemmgen_gpu_tests" --gtest_filter='*ChosenKernel*' > "$L/gtest_chosen.txt" 2>&1
echo "gtest ChosenKernel rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$L/gtest_chosen.txt" | tr '\n' ' ')" >> "$S"
SH="64x4096x4096,48x4096x4096,36x4096x4096,64x6144x4096,64x3072x4096,56x5120x5120,64x4096x8192,48x7168x4096"
SMALL=specs/tuned/nvidia_h200/f16_128x8192x8192.yaml
for t in bf16 f16; do
  echo "== $t auto" >> "$S"
  for s in ${SH//,/ }; do
    IFS=x read -r m n k <<< "$s"
    timeout 60 "$G" bench auto --dtype $t --m $m --n $n --k $k --rounds 20 > "$L/auto_${t}_$s.txt" 2>&1
    echo "$(table "$L/auto_${t}_$s.txt") $(grep -o 'auto_[a-z0-9_]*_s[0-9]' "$L/auto_${t}_$s.txt" | head -1)" >> "$S"
  done
  timeout 150 "$G" bench $SMALL --dtype $t --shapes $SH --rounds 20 > "$L/small_$t.txt" 2>&1
  echo "== $t small (spec 12's tile) rc=$?" >> "$S"; table "$L/small_$t.txt" >> "$S"
done
bench_finish
