#!/usr/bin/env bash
# Spec 15 (k-blocks in pairs) in 2x1 clusters sharing B by multicast, as cuBLASLt's blockwise
# kernel (128x128, k128, 6 stages, 2x1: docs/PERF.md "The library's kernels"), against spec 15,
# and the 128x64 tile split 8 at 64x2112x7168 (the chooser: 128x192 split 8), two passes.
# Prediction (2026-12-04, before the run): the cluster +0-3% at M = 4096 (the operands come
# from the L2 at these shapes; multicast halves B's L2 reads), -0-3% at M = 128 (fewer CTAs
# per row of tiles); n64_s8 within 5% of the chooser's pick at 64x2112x7168.
#   usage (device): bash bench/h200-blockwise-cluster.sh CARRY   (CARRY: gemmgen, cache/)
source "$(dirname "$0")/lib.sh"
bench_init blockwise_cluster "$1"
V=bench/variants/blockwise
for s in 1000x1001x640 4096x7168x2048; do verify cl2 $V/cluster2.yaml $s; done
verify n64_s8 $V/n64_s8.yaml 64x2112x7168
run() { # label shape bench-args...
  local label=$1 s=$2 m n k; shift 2
  IFS=x read -r m n k <<< "$s"
  timeout 90 "$G" bench "$@" --m $m --n $n --k $k --rounds 10 > "$L/${label}_${pass}_$s.txt" 2>&1
  echo "pass $pass $label $(table "$L/${label}_${pass}_$s.txt") $(grep -o 'auto_[a-z0-9_]*' "$L/${label}_${pass}_$s.txt" | head -1)" >> "$S"
}
for pass in 1 2; do
  for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 128x7168x2048; do
    if [ $pass = 1 ]; then run spec15 $s specs/sm90/15_blockwise_e4m3.yaml; run cl2 $s $V/cluster2.yaml
    else run cl2 $s $V/cluster2.yaml; run spec15 $s specs/sm90/15_blockwise_e4m3.yaml; fi
  done
  run auto 64x2112x7168 auto --dtype e4m3 --scaling blockwise
  run n64_s8 64x2112x7168 $V/n64_s8.yaml
done
bench_finish
