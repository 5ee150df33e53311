#!/usr/bin/env bash
# What beta costs the narrow kernels: C's element is read after the k-loop (one dependent load
# before each warp's store). Spec 06 (bf16) with `simt_narrow: 2`, `bench` at beta 0 and beta 1
# (C random, cuBLAS with the same beta), two passes, the second in reverse order.
# Prediction: beta 1 costs 2-5% at one wave of warps (a load's latency added to each warp's end,
# about 0.7 us of 15-20), less at many waves.
# Measured (H100, 2026-12-06_narrow_beta_h100): 0.6-1.5% (1x6144x4096 0.0193 -> 0.0195-0.0196 ms,
# 8192x2x4096 0.0266 -> 0.0269-0.0270): less than predicted; left as it is.
#   usage (device): bash bench/h200-narrow-beta.sh CARRY
source "$(dirname "$0")/lib.sh"
bench_init narrow_beta "$1"
mkdir -p "$L/specs"
simt_spec 06_fast_bf16 2 "$L/specs/plain2.yaml"
for pass in 1 2; do
  order="0 1"; [ $pass = 2 ] && order="1 0"
  for s in 1x6144x4096 1x4096x4096 2x4096x4096 8192x2x4096 1x57344x8192; do
    IFS=x read -r m n k <<< "$s"
    for beta in $order; do
      log=$L/beta${beta}_${pass}_$s.txt
      timeout 90 "$G" bench "$L/specs/plain2.yaml" --m $m --n $n --k $k --alpha 1 --beta $beta \
        --rounds 20 > "$log" 2>&1
      echo "pass $pass beta $beta $(table "$log")" >> "$S"
    done
  done
done
bench_finish
