#!/usr/bin/env bash
# Spec 15 in pairs with the scales' addresses stepped one k-block at a time from per-tile
# pointers (NEW: the working tree after b27ba76) instead of computed from kb (CARRY: 7bd0a84's
# binary, the same kernel otherwise): ptxas recomputed them from the kernel parameters every
# k-block; stepped pointers are loop-carried and stay in registers (SASS: 218 -> 193
# instructions per pair of k-blocks). `run --verify` of the new kernel first, then both, same
# call, alternating, two passes.
# Prediction (2026-12-04, before the run): +3-6% (the constant-scale kernel ran 15% shorter for
# ~42 fewer instructions per k-block per warp; this removes ~12-15 of them).
#   usage (device): bash bench/h200-blockwise-stepped.sh CARRY NEW
source "$(dirname "$0")/lib.sh"
bench_init blockwise_stepped "$1"
N=${2:-.devrun/ahead}; case $N in /*) ;; *) N=$PWD/$N ;; esac
S15=specs/sm90/15_blockwise_e4m3.yaml
OLDG=$G; G=$N/gemmgen; export GEMMGEN_CACHE_DIR=$N/cache
for s in 1000x1001x640 129x4000x384 300x449x1160 4096x7168x2048 128x2112x7168 129x257x100 4000x300x3000; do verify new $S15 $s; done
verify new $S15 1000x1001x528 --beta 0.5
verify new specs/sm90/17_splitk_blockwise_e4m3.yaml 128x2112x7168
verify new specs/sm90/17_splitk_blockwise_e4m3.yaml 129x1000x1160
verify new bench/variants/blockwise/n64.yaml 300x449x1160
verify new bench/variants/blockwise/m64_s1.yaml 100x4000x1160
G=$OLDG
for pass in 1 2; do
  for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x7168x18432; do
    IFS=x read -r m n k <<< "$s"
    for v in old new; do
      bin=$C; [ $v = new ] && bin=$N
      [ $pass = 2 ] && { bin=$N; [ $v = new ] && bin=$C; v2=$v; v=$([ $v = old ] && echo new || echo old); }
      GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" bench $S15 --m $m --n $n --k $k --rounds 10 > "$L/${v}_${pass}_$s.txt" 2>&1
      echo "pass $pass $v $(table "$L/${v}_${pass}_$s.txt")" >> "$S"
    done
  done
done
bench_finish
