#!/usr/bin/env bash
# Blockwise pairs with the scales in shared memory: each consumer thread copies its rows' A
# scales and the tile's B scales four k-blocks ahead with cp.async (no register for a later
# instruction to wait on) and reads them with ld.shared at the promotion; spec 15 then needs
# epilogue.chunk_n 64 for the 16 KB of slots. NEW (the working tree after 12c4812) against
# CARRY (12c4812's binary, scales by LDG before each k-block's wgmmas) on spec 15, and the old
# binary on spec 15 with chunk_n 64 (bench/variants/blockwise/chunk64.yaml) to tell the
# staging chunk's share; `run --verify` of the new kernel first.
# Prediction (2026-12-04, before the run): most of what removing the loads bought
# (bench/h200-blockwise-noload.sh: 14-18% less time), 8-15% at M = 4096; the chunk 0 to -2%.
# An experiment: NEW is built from bench/results/2026-12-04_blockwise_pairs_h200/
# cpasync-experiment.patch on 12c4812 (not on main: it lost, docs/PERF.md).
#   usage (device): bash bench/h200-blockwise-cpasync.sh CARRY NEW
source "$(dirname "$0")/lib.sh"
bench_init blockwise_cpasync "$1"
N=${2:-.devrun/ahead}; case $N in /*) ;; *) N=$PWD/$N ;; esac
S15=specs/sm90/15_blockwise_e4m3.yaml C64=bench/variants/blockwise/chunk64.yaml
OLDG=$G; G=$N/gemmgen; export GEMMGEN_CACHE_DIR=$N/cache
for s in 1000x1001x640 129x4000x384 300x449x1160 4096x7168x2048 128x2112x7168 129x257x100; do verify new $S15 $s; done
verify new $S15 1000x1001x528 --beta 0.5
verify new specs/sm90/17_splitk_blockwise_e4m3.yaml 128x2112x7168
verify new bench/variants/blockwise/n64.yaml 300x449x1160
verify new bench/variants/blockwise/m64_s1.yaml 100x4000x1160
G=$OLDG
for pass in 1 2; do
  for s in 4096x7168x2048 4096x4096x7168 4096x7168x18432 4096x2112x7168 128x7168x2048 128x7168x18432; do
    IFS=x read -r m n k <<< "$s"
    for v in old new old64; do
      bin=$C spec=$S15; [ $v = new ] && bin=$N; [ $v = old64 ] && spec=$C64
      GEMMGEN_CACHE_DIR=$bin/cache timeout 90 "$bin/gemmgen" bench $spec --m $m --n $n --k $k --rounds 10 > "$L/${v}_${pass}_$s.txt" 2>&1
      echo "pass $pass $v $(table "$L/${v}_${pass}_$s.txt")" >> "$S"
    done
  done
done
bench_finish
